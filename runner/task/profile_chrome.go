package task

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/internal/py"
)

// Chrome's profile: getters that read the files Chrome keeps in the
// sandbox (Default/Preferences, Local State, the History and Cookies
// SQLite databases, the extensions), as OSWorld reads them, and the
// update_browse_history step that adds visits to History.
//
// The profile is ~/.config/google-chrome (what the images' google-chrome
// uses and OSWorld's paths name), else ~/.config/chromium (Chromium
// started without --user-data-dir). Where OSWorld's getter answers a
// fallback value on a missing or unreadable file ("Google", "en-US",
// "false", the default font sizes), these answer the same.
//
// SQLite is read and written with python3's sqlite3 module inside the
// sandbox, as run_sqlite3 does: every image has python3 (OSWorld's
// tasks need it), the host needs no SQLite of its own, and SQLite's own
// code reads the file Chrome wrote, whatever its page size or journal.
// Chrome keeps History and Cookies locked while it runs, so a database
// is first copied (its bytes read through the sandbox's files) and the
// copy queried, as OSWorld does.

// chromeDirs are the user data folders tried, relative to the home.
var chromeDirs = []string{".config/google-chrome", ".config/chromium"}

// chromeFile reads a file of the profile (rel is relative to the user
// data folder), and says which folder held it. A file in none of them
// is an error for which errdefs.IsNotFound holds.
func (r *run) chromeFile(ctx context.Context, rel string) ([]byte, string, error) {
	home, err := r.userHome(ctx)
	if err != nil {
		return nil, "", err
	}
	for _, dir := range chromeDirs {
		p := path.Join(home, dir, rel)
		data, err := r.sb.ReadFile(ctx, p)
		if errdefs.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("read %s: %w", p, err)
		}
		return data, p, nil
	}
	return nil, "", errdefs.ErrNotFound.WithMessage(fmt.Sprintf("no %s in %s", rel, strings.Join(chromeDirs, " or ")))
}

// chromeJSON reads a JSON file of the profile.
func (r *run) chromeJSON(ctx context.Context, rel string) (map[string]any, error) {
	data, p, err := r.chromeFile(ctx, rel)
	if err != nil {
		return nil, err
	}
	v, err := py.DecodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an object, got %s", p, py.TypeName(v))
	}
	return m, nil
}

// prefGetter implements OSWorld's default_search_engine, profile_name,
// chrome_font_size, enable_do_not_track, enable_enhanced_safety_browsing,
// new_startup_page, data_delete_automacally,
// find_unpacked_extension_path, enabled_experiments and chrome_language
// (desktop_env/evaluators/getters/chrome.py).
//
// prefGetter makes a getter of one JSON file of the profile: read gets
// its object, or nil when the file is missing or unreadable, and answers
// OSWorld's value for both cases.
func prefGetter(rel string, read func(m map[string]any) any) func(*run, context.Context, map[string]any) (any, error) {
	return func(r *run, ctx context.Context, _ map[string]any) (any, error) {
		m, err := r.chromeJSON(ctx, rel)
		if err != nil {
			r.log.WarnContext(ctx, "chrome profile file not read", "file", rel, "err", err)
			m = nil
		}
		return read(m), nil
	}
}

func defaultSearchEngine(m map[string]any) any {
	if name, ok := py.DictAt(py.DictAt(m, "default_search_provider_data"), "template_url_data")["short_name"]; ok {
		return name
	}
	return "Google"
}

func profileName(m map[string]any) any {
	return py.DictAt(m, "profile")["name"]
}

func chromeFontSize(m map[string]any) any {
	if m == nil {
		return map[string]any{"default_fixed_font_size": json.Number("13"), "default_font_size": json.Number("16")}
	}
	if p, ok := py.DictAt(m, "webkit")["webprefs"]; ok {
		return p
	}
	return map[string]any{"default_fixed_font_size": json.Number("13"), "default_font_size": json.Number("16"), "minimum_font_size": json.Number("13")}
}

// pyBool is "true" or "false", the strings OSWorld's getters answer.
func pyBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func enableDoNotTrack(m map[string]any) any {
	return pyBool(py.Truthy(m["enable_do_not_track"]))
}

func enhancedSafeBrowsing(m map[string]any) any {
	if m == nil {
		return "Google"
	}
	return pyBool(py.Truthy(py.DictAt(m, "safebrowsing")["enhanced"]))
}

// safeBrowsing is OSWorld's enable_safe_browsing: "true" when safe
// browsing is on, enhanced or standard; "false" otherwise, a missing or
// unreadable Preferences file included.
func safeBrowsing(m map[string]any) any {
	sb := py.DictAt(m, "safebrowsing")
	return pyBool(py.Truthy(sb["enhanced"]) || py.Truthy(sb["enabled"]))
}

// newStartupPage is "true" when Chrome opens the New Tab page at start:
// no session settings at all (a fresh profile), or restore_on_startup 5.
func newStartupPage(m map[string]any) any {
	if m == nil {
		return "Google"
	}
	s, ok := m["session"]
	if !ok {
		return "true"
	}
	sm, _ := s.(map[string]any)
	n, ok := py.Number(sm["restore_on_startup"])
	return pyBool(ok && n == 5)
}

func dataDeleteAutomatically(m map[string]any) any {
	p, ok := m["profile"].(map[string]any)
	if !ok {
		return "Google"
	}
	return pyBool(p["default_content_setting_values"] != nil)
}

// extensionSettings lists the profile's extensions.settings entries.
func extensionSettings(m map[string]any) map[string]any {
	return py.DictAt(py.DictAt(m, "extensions"), "settings")
}

// unpackedExtensionPaths lists the path of every extension the profile
// knows (OSWorld lets the metric look for the one wanted); entries
// without a path are left out.
func unpackedExtensionPaths(m map[string]any) any {
	if m == nil {
		return "Google"
	}
	out := []any{}
	for _, id := range slices.Sorted(maps.Keys(extensionSettings(m))) {
		e, _ := extensionSettings(m)[id].(map[string]any)
		if p, ok := e["path"].(string); ok {
			out = append(out, p)
		}
	}
	return out
}

func enabledExperiments(m map[string]any) any {
	if v, ok := py.DictAt(m, "browser")["enabled_labs_experiments"]; ok {
		return v
	}
	return []any{}
}

func chromeLanguage(m map[string]any) any {
	if v, ok := py.DictAt(m, "intl")["app_locale"]; ok {
		return v
	}
	return "en-US"
}

// installedExtensionNames implements OSWorld's
// find_installed_extension_name
// (desktop_env/evaluators/getters/chrome.py).
//
// installedExtensionNames lists the name of every extension the profile
// knows. OSWorld reads the manifest Chrome copied into Preferences;
// current Chrome keeps it there only for some (component and store
// extensions), so for the others the name comes from the manifest.json
// in the extension's folder (an unpacked extension's own, a store one's
// under Default/Extensions). A name written as a message (__MSG_x__)
// stays as written, as in OSWorld.
func (r *run) installedExtensionNames(ctx context.Context, _ map[string]any) (any, error) {
	m, err := r.chromeJSON(ctx, "Default/Preferences")
	if err != nil {
		r.log.WarnContext(ctx, "find_installed_extension_name: no preferences", "err", err)
		return "Google", nil
	}
	settings := extensionSettings(m)
	out := []any{}
	for _, id := range slices.Sorted(maps.Keys(settings)) {
		e, _ := settings[id].(map[string]any)
		if name, ok := py.DictAt(e, "manifest")["name"]; ok {
			out = append(out, name)
			continue
		}
		p, _ := e["path"].(string)
		if p == "" {
			continue
		}
		if !strings.HasPrefix(p, "/") {
			data, _, err := r.chromeFile(ctx, path.Join("Default/Extensions", p, "manifest.json"))
			if err == nil {
				if name, ok := manifestName(data); ok {
					out = append(out, name)
				}
			}
			continue
		}
		data, err := r.sb.ReadFile(ctx, path.Join(p, "manifest.json"))
		if err != nil {
			continue
		}
		if name, ok := manifestName(data); ok {
			out = append(out, name)
		}
	}
	return out, nil
}

func manifestName(data []byte) (any, bool) {
	v, err := py.DecodeJSON(data)
	if err != nil {
		return nil, false
	}
	name, ok := py.Dict(v)["name"]
	return name, ok
}

// extensionsScript prints, as a JSON list, every manifest.json found two
// levels under the first of its arguments that is a folder
// (Extensions/<id>/<version>/), skipping those that do not parse.
const extensionsScript = `import json, os, sys
out = []
for d in sys.argv[1:]:
    if not os.path.isdir(d):
        continue
    for i in sorted(os.listdir(d)):
        p = os.path.join(d, i)
        if not os.path.isdir(p):
            continue
        for v in sorted(os.listdir(p)):
            f = os.path.join(p, v, "manifest.json")
            if os.path.isfile(f):
                try:
                    with open(f, encoding="utf-8-sig") as fh:
                        out.append(json.load(fh))
                except ValueError:
                    pass
    break
json.dump(out, sys.stdout)`

// extensionsFromShop implements OSWorld's extensions_installed_from_shop
// (desktop_env/evaluators/getters/chrome.py).
//
// extensionsFromShop answers the manifests of the extensions installed
// from the web store (the profile's Default/Extensions folder).
func (r *run) extensionsFromShop(ctx context.Context, _ map[string]any) (any, error) {
	home, err := r.userHome(ctx)
	if err != nil {
		return nil, err
	}
	argv := []string{"python3", "-c", extensionsScript}
	for _, dir := range chromeDirs {
		argv = append(argv, path.Join(home, dir, "Default/Extensions"))
	}
	res, err := r.exec(ctx, argv, false, 0, "")
	if err != nil {
		return nil, fmt.Errorf("list extensions: %w", err)
	}
	if res.ExitCode != 0 {
		r.log.WarnContext(ctx, "extensions_installed_from_shop failed", "stderr", py.Truncate(res.Stderr, 300))
		return []any{}, nil
	}
	var list []any
	if err := decodeNumbers([]byte(res.Stdout), &list); err != nil {
		return nil, fmt.Errorf("list extensions: %w", err)
	}
	return list, nil
}

func checkDestOptional(f fields) error {
	d, err := f.str("dest", false)
	if err != nil {
		return err
	}
	if d != "" {
		if err := checkCacheName(d); err != nil {
			return fmt.Errorf("%s: %w", f.name("dest"), err)
		}
	}
	return nil
}

// queryScript runs the SQL read on stdin against the database named by
// its argument and prints the rows as a JSON list of lists; BLOBs are
// written as lowercase hex.
const queryScript = `import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
rows = con.execute(sys.stdin.read()).fetchall()
con.close()
json.dump([[c.hex() if isinstance(c, bytes) else c for c in r] for r in rows], sys.stdout)`

// queryChromeDB copies one of the profile's databases (the first of rels
// found), keeps the copy as dest in the cache when dest is set, and
// answers the rows of the query; nil when the database is missing or
// the query fails, as OSWorld answers None.
func (r *run) queryChromeDB(ctx context.Context, rels []string, dest, sql string) (any, error) {
	var data []byte
	var src string
	var err error
	for _, rel := range rels {
		data, src, err = r.chromeFile(ctx, rel)
		if err == nil || !errdefs.IsNotFound(err) {
			break
		}
	}
	if err != nil {
		r.log.WarnContext(ctx, "chrome database not read", "file", rels[0], "err", err)
		return nil, nil
	}
	if dest != "" {
		if err := r.writeCache(dest, data); err != nil {
			return nil, err
		}
	}
	tmp := "/tmp/deskrun-chrome-" + py.UUID5URL(src + strconv.Itoa(len(data)) + time.Now().String())[:8] + ".db"
	if err := r.sb.WriteFile(ctx, tmp, data); err != nil {
		return nil, fmt.Errorf("copy %s in the sandbox: %w", src, err)
	}
	res, err := r.exec(ctx, []string{"python3", "-c", queryScript, tmp}, false, 0, sql)
	_, _ = r.exec(ctx, []string{"rm", "-f", "--", tmp}, false, 0, "")
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", src, err)
	}
	if res.ExitCode != 0 {
		r.log.WarnContext(ctx, "chrome database query failed", "file", src, "stderr", py.Truncate(strings.TrimSpace(res.Stderr), 300))
		return nil, nil
	}
	var rows []any
	if err := decodeNumbers([]byte(res.Stdout), &rows); err != nil {
		return nil, fmt.Errorf("query %s: %w", src, err)
	}
	return rows, nil
}

// history implements OSWorld's history
// (desktop_env/evaluators/getters/chrome.py).
//
// history answers the rows [url, title, last_visit_time] of History's
// urls table.
func (r *run) history(ctx context.Context, p map[string]any) (any, error) {
	dest, _ := p["dest"].(string)
	return r.queryChromeDB(ctx, []string{"Default/History"}, dest, "SELECT url, title, last_visit_time FROM urls")
}

// cookieData implements OSWorld's cookie_data
// (desktop_env/evaluators/getters/chrome.py).
//
// cookieData answers every row of the cookies table, columns in the
// table's order (host_key second). Chrome on Linux keeps Default/Cookies;
// Default/Network/Cookies, where other builds moved it, is read when the
// first is missing.
func (r *run) cookieData(ctx context.Context, p map[string]any) (any, error) {
	dest, _ := p["dest"].(string)
	return r.queryChromeDB(ctx, []string{"Default/Cookies", "Default/Network/Cookies"}, dest, "SELECT * FROM cookies")
}

func checkBrowseHistory(f fields) error {
	if err := f.only("history"); err != nil {
		return err
	}
	list, ok := f.m["history"].([]any)
	if !ok {
		return fmt.Errorf("%s: want a list, got %s", f.name("history"), py.TypeName(f.m["history"]))
	}
	for i, e := range list {
		m, ok := e.(map[string]any)
		item := fields{m: m, path: fmt.Sprintf("%s[%d]", f.name("history"), i)}
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", item.path, py.TypeName(e))
		}
		if _, err := item.str("url", true); err != nil {
			return err
		}
		if _, err := item.str("title", true); err != nil {
			return err
		}
		if err := item.num("visit_time_from_now_in_seconds", true); err != nil {
			return err
		}
	}
	return nil
}

// addHistoryScript adds the visits of the JSON on stdin to a copy of the
// History database, then puts the copy in its place (a rollback journal
// or WAL of the old file would not apply to the new one, so they go):
// each a urls row (one visit, not typed, not hidden) and a visits row
// (transition 805306368, a link chained as OSWorld writes it).
const addHistoryScript = `import json, os, shutil, sqlite3, sys
cfg = json.load(sys.stdin)
db = cfg["db"]
tmp = db + ".deskrun-new"
shutil.copyfile(db, tmp)
con = sqlite3.connect(tmp)
for h in cfg["history"]:
    cur = con.execute("INSERT INTO urls (url, title, visit_count, typed_count, last_visit_time, hidden) VALUES (?, ?, 1, 0, ?, 0)", (h["url"], h["title"], h["time"]))
    con.execute("INSERT INTO visits (url, visit_time, from_visit, transition, segment_id, visit_duration) VALUES (?, ?, 0, 805306368, 0, 0)", (cur.lastrowid, h["time"]))
con.commit()
con.close()
for s in ("-journal", "-wal", "-shm"):
    if os.path.exists(db + s):
        os.remove(db + s)
os.replace(tmp, db)`

// bootstrapScript makes a profile's History by running the browser once,
// headless, on the user data folder given: OSWorld starts from a History
// of its own, deskrun from the one the image's browser makes, whose
// schema that browser accepts.
const bootstrapScript = `dir="$1"
for b in google-chrome chromium chromium-browser; do
	if command -v "$b" >/dev/null 2>&1; then
		exec timeout 60 "$b" --headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check --user-data-dir="$dir" --dump-dom about:blank >/dev/null
	fi
done
echo "no browser (google-chrome, chromium) to make the profile with" >&2
exit 127`

// chromeTime is a time as Chrome stores it: microseconds since
// 1601-01-01 UTC.
func chromeTime(t time.Time) int64 {
	const fromUnix = 11644473600 // seconds from 1601-01-01 to 1970-01-01
	return t.UnixMicro() + fromUnix*1_000_000
}

// updateBrowseHistory implements OSWorld's update_browse_history
// (desktop_env/controllers/setup.py).
//
// updateBrowseHistory adds visits to the profile's History, each
// visit_time_from_now_in_seconds before now. A profile without History
// gets one first from the browser itself.
func (r *run) updateBrowseHistory(ctx context.Context, p map[string]any) error {
	home, err := r.userHome(ctx)
	if err != nil {
		return err
	}
	dir := path.Join(home, chromeDirs[0])
	db := ""
	for _, d := range chromeDirs {
		if _, err := r.sb.ReadFile(ctx, path.Join(home, d, "Default/History")); err == nil {
			dir, db = path.Join(home, d), path.Join(home, d, "Default/History")
			break
		}
	}
	if db == "" {
		for _, d := range chromeDirs {
			if _, err := r.sb.ReadFile(ctx, path.Join(home, d, "Local State")); err == nil {
				dir = path.Join(home, d)
				break
			}
		}
		res, err := r.exec(ctx, []string{"sh", "-c", bootstrapScript, "sh", dir}, false, 90*time.Second, "")
		if err != nil {
			return fmt.Errorf("make the browser's profile: %w", err)
		}
		db = path.Join(dir, "Default/History")
		if _, err := r.sb.ReadFile(ctx, db); err != nil {
			return fmt.Errorf("make the browser's profile in %s (exit %d: %s): %w", dir, res.ExitCode, py.Truncate(strings.TrimSpace(res.Stderr), 300), err)
		}
	}
	now := time.Now()
	var items []map[string]any
	list, _ := p["history"].([]any)
	for _, e := range list {
		m, _ := e.(map[string]any)
		secs, _ := py.Number(m["visit_time_from_now_in_seconds"])
		items = append(items, map[string]any{
			"url":   m["url"],
			"title": m["title"],
			"time":  chromeTime(now.Add(-time.Duration(secs * float64(time.Second)))),
		})
	}
	in, err := json.Marshal(map[string]any{"db": db, "history": items})
	if err != nil {
		return err
	}
	res, err := r.exec(ctx, []string{"python3", "-c", addHistoryScript}, false, 0, string(in))
	if err != nil {
		return fmt.Errorf("update %s: %w", db, err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("update %s: exit %d: %s", db, res.ExitCode, py.Truncate(strings.TrimSpace(res.Stderr), 300))
	}
	return nil
}
