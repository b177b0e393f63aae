package task

import (
	"context"
	"encoding/json"
	"math"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/py"
)

// Chrome's appearance mode ("light", "dark" or "system"), as OSWorld's
// chrome_appearance_mode_ui reads it: first from the settings page's live
// preferences and its selected controls, then, when that gives nothing,
// from the profile's Preferences files (OSWorld's get_chrome_color_scheme,
// its fallback).
//
// OSWorld opens chrome://settings/appearance in a new tab for the first
// reading. The runner's browser access opens http, https, file and about
// pages only, so the first reading is made in a tab the desktop's browser
// already shows on chrome://settings (the active one if it is such a
// tab); with none, the answer is the Preferences files', as in OSWorld
// when its page cannot be read. The two differ only while Chrome has not
// yet written a change to disk, which the fallback waits for as OSWorld
// does (up to five readings a second apart).

// appearancePoll is the pause between two readings of the Preferences
// files.
var appearancePoll = time.Second

// appearanceReads is how many times the Preferences files are read
// before the last answer stands (OSWorld's five).
const appearanceReads = 5

// appearanceJS answers the mode the settings page shows, or null. From
// the preferences the page holds (<settings-ui>'s prefs): the
// browser.theme color_scheme and color_scheme2 values (0 or "system",
// "default", "device"; 1 or "light"; 2 or "dark") and
// extensions.theme.system_theme (0 or false light, 1 or true dark). From
// the selected, checked and chosen controls of the page and its shadow
// trees: a text naming light, dark, or the device, the system or the
// default. Light wins over dark, dark over system.
const appearanceJS = `(() => {
  const low = (v) => String(v || '').toLowerCase();
  const found = new Set();
  try {
    const seen = new Set();
    const visit = (node, name) => {
      if (node === null || typeof node !== 'object' || seen.has(node)) return;
      seen.add(node);
      if (Object.prototype.hasOwnProperty.call(node, 'value')) {
        const v = node.value;
        const n = low(name);
        if (n === 'prefs.extensions.theme.system_theme') {
          if (v === 0 || v === '0' || v === false) found.add('light');
          if (v === 1 || v === '1' || v === true) found.add('dark');
        } else if (n === 'prefs.browser.theme.color_scheme' || n === 'prefs.browser.theme.color_scheme2') {
          if (v === 1 || v === '1' || low(v) === 'light') found.add('light');
          if (v === 2 || v === '2' || low(v) === 'dark') found.add('dark');
          if (v === 0 || v === '0' || ['system', 'default', 'device'].includes(low(v))) found.add('system');
        }
      }
      for (const [k, child] of Object.entries(node)) visit(child, name + '.' + k);
    };
    const ui = document.querySelector('settings-ui');
    visit(ui && ui.prefs ? ui.prefs : null, 'prefs');
  } catch (e) {}
  try {
    const roots = [document];
    for (let i = 0; i < roots.length; i++) {
      for (const el of roots[i].querySelectorAll('*')) {
        if (el.shadowRoot) roots.push(el.shadowRoot);
      }
    }
    const texts = [];
    for (const root of roots) {
      for (const el of root.querySelectorAll('[selected],[checked],[aria-checked="true"],option:checked')) {
        const t = (el.innerText || el.textContent || '').trim();
        if (t) texts.push(low(t));
      }
    }
    for (const t of texts) {
      if (t.includes('light')) found.add('light');
      else if (t.includes('dark')) found.add('dark');
      else if (t.includes('device') || t.includes('system') || t.includes('default')) found.add('system');
    }
  } catch (e) {}
  for (const m of ['light', 'dark', 'system']) {
    if (found.has(m)) return m;
  }
  return null;
})()`

// appearanceMode implements OSWorld's chrome_appearance_mode_ui
// (desktop_env/evaluators/getters/chrome.py).
func (r *run) appearanceMode(ctx context.Context, _ map[string]any) (any, error) {
	if m := r.settingsPageMode(ctx); m != "" {
		return m, nil
	}
	return r.colorScheme(ctx)
}

// settingsPageMode reads the mode in a tab on chrome://settings; "" when
// there is no browser, no such tab, or the page tells nothing.
func (r *run) settingsPageMode(ctx context.Context) string {
	tabs, err := r.tabs(ctx, getterBrowserWait)
	if err != nil {
		r.log.InfoContext(ctx, "chrome_appearance_mode_ui: no browser; reading the profile", "err", err)
		return ""
	}
	id := ""
	for _, t := range tabs {
		if strings.HasPrefix(t.URL, "chrome://settings") && (id == "" || t.Active) {
			id = t.ID
		}
	}
	if id == "" {
		r.log.InfoContext(ctx, "chrome_appearance_mode_ui: no tab on chrome://settings; reading the profile", "tabs", len(tabs))
		return ""
	}
	bh, _ := r.browser()
	res, err := bh.Browser(ctx, "console_exec", api.BrowserRequest{Port: desktopBrowser, Tab: id, JavaScript: appearanceJS})
	if err != nil {
		r.log.WarnContext(ctx, "chrome_appearance_mode_ui: the settings page could not be read", "err", err)
		return ""
	}
	var m any
	_ = json.Unmarshal(res.Value, &m)
	switch m {
	case "light", "dark", "system":
		return m.(string)
	}
	r.log.InfoContext(ctx, "chrome_appearance_mode_ui: the settings page tells no mode; reading the profile", "answer", py.Truncate(string(res.Value), 100))
	return ""
}

// preferencesScript prints, as a JSON list, the Preferences files of the
// profiles (Default, Guest Profile, Profile *) under the user data
// folders named by its arguments, the most recently written first.
const preferencesScript = `import glob, json, os, sys
found = {}
for root in sys.argv[1:]:
    for name in ("Default", "Guest Profile", "Profile *"):
        for p in sorted(glob.glob(os.path.join(glob.escape(root), name, "Preferences"))):
            if p not in found and os.path.isfile(p):
                try:
                    found[p] = os.path.getmtime(p)
                except OSError:
                    found[p] = 0
json.dump(sorted(found, key=lambda p: -found[p]), sys.stdout)`

// preferenceFiles lists the Preferences files the color scheme is read
// from: OSWorld's google-chrome folders (the user's, /home/user's and
// /home/ubuntu's), else ~/.config/chromium's, else the user's
// google-chrome Default/Preferences whether or not it exists.
func (r *run) preferenceFiles(ctx context.Context) []string {
	home, err := r.userHome(ctx)
	if err != nil {
		r.log.WarnContext(ctx, "chrome_appearance_mode_ui: no home", "err", err)
		return nil
	}
	for _, roots := range [][]string{
		{path.Join(home, ".config/google-chrome"), "/home/user/.config/google-chrome", "/home/ubuntu/.config/google-chrome"},
		{path.Join(home, ".config/chromium")},
	} {
		res, err := r.exec(ctx, append([]string{"python3", "-c", preferencesScript}, roots...), false, 0, "")
		if err != nil || res.ExitCode != 0 {
			r.log.WarnContext(ctx, "chrome_appearance_mode_ui: profiles not listed", "err", err, "stderr", py.Truncate(res.Stderr, 300))
			break
		}
		var files []string
		if json.Unmarshal([]byte(res.Stdout), &files) == nil && len(files) > 0 {
			return files
		}
	}
	return []string{path.Join(home, ".config/google-chrome/Default/Preferences")}
}

// colorScheme implements OSWorld's get_chrome_color_scheme
// (desktop_env/evaluators/getters/chrome.py) on Linux: the files of
// preferenceFiles are read up to appearanceReads times; a reading stops
// at the first file saying light or dark, else takes the first file's
// mode. "light" ends the wait; otherwise the last reading's mode stands,
// "system" when no file could be read.
func (r *run) colorScheme(ctx context.Context) (any, error) {
	files := r.preferenceFiles(ctx)
	mode := "system"
	for i := range appearanceReads {
		best := ""
		for _, f := range files {
			data, err := r.sb.ReadFile(ctx, f)
			if err != nil || len(data) == 0 {
				continue
			}
			m, ok := preferencesMode(data)
			if !ok {
				continue
			}
			if m == "light" || m == "dark" {
				best = m
				break
			}
			if best == "" {
				best = m
			}
		}
		if best != "" {
			mode = best
			if best == "light" {
				return mode, nil
			}
		}
		if i == appearanceReads-1 {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(appearancePoll):
		}
	}
	return mode, nil
}

// preferencesMode is the mode one Preferences file gives, as OSWorld
// reads it: browser.theme's color_scheme2, else color_scheme (0
// "system", 1 "light", 2 "dark"; a number is truncated to an integer, a
// string stripped and lower-cased, "default" is "system"), then "light"
// whenever extensions.theme.system_theme is 0, "0" or false, and
// "system" for any other value. ok is false where OSWorld's reading
// raises and the file is passed over: not JSON, not an object, a
// browser, theme or extensions entry that is not an object, a color
// scheme number that is not finite.
func preferencesMode(data []byte) (mode string, ok bool) {
	v, err := py.DecodeJSON(data)
	if err != nil {
		return "", false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	theme, ok := dictOr(m, "browser")
	if ok {
		theme, ok = dictOr(theme, "theme")
	}
	if !ok {
		return "", false
	}
	raw, has := theme["color_scheme2"]
	if !has {
		raw = theme["color_scheme"]
	}
	mode, ok = normalizeScheme(raw)
	if !ok {
		return "", false
	}
	ext, ok := dictOr(m, "extensions")
	if ok {
		ext, ok = dictOr(ext, "theme")
	}
	if !ok {
		return "", false
	}
	if flag, has := ext["system_theme"]; has {
		if s, isStr := flag.(string); (isStr && s == "0") || (!isStr && py.Equal(flag, json.Number("0"))) {
			return "light", true
		}
	}
	if mode == "" {
		mode = "system"
	}
	return mode, true
}

// dictOr is Python's m.get(key, {}) where the answer must be a dict: ok
// is false when the key holds anything else (None included).
func dictOr(m map[string]any, key string) (map[string]any, bool) {
	v, has := m[key]
	if !has {
		return map[string]any{}, true
	}
	d, ok := v.(map[string]any)
	return d, ok
}

// normalizeScheme is OSWorld's reading of a color scheme value: "" for
// a value naming no mode; ok is false where Python's int() raises (a
// number that is not finite).
func normalizeScheme(v any) (string, bool) {
	names := map[int]string{0: "system", 1: "light", 2: "dark"}
	switch x := v.(type) {
	case string:
		switch py.Lower(py.Strip(x)) {
		case "system", "default", "0":
			return "system", true
		case "light", "1":
			return "light", true
		case "dark", "2":
			return "dark", true
		}
		return "", true
	case bool:
		if x {
			return "light", true
		}
		return "system", true
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			if py.IsInt(x) {
				return "", true // a big integer: no mode
			}
			return "", false
		}
		t := math.Trunc(f)
		if t < 0 || t > 2 {
			return "", true
		}
		return names[int(t)], true
	}
	return "", true
}
