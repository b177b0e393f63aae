package task

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/internal/py"
)

// profileRun is a run on this machine's files and processes with home
// as the user's home.
func profileRun(t *testing.T, home string) (*run, func(js string) any) {
	t.Helper()
	r, done, err := newRun(&hostSandbox{home: home}, &Task{ID: "profile"}, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(done)
	return r, func(js string) any {
		t.Helper()
		g, err := buildGetter(jv(t, js), "result")
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		v, err := r.get(t.Context(), g)
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The preference getters on profile files as Chrome writes them, and
// OSWorld's answers when there is no profile.
func TestChromePreferenceGetters(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed (scripts/install-deps.sh installs it)")
	}
	empty := t.TempDir()
	_, get := profileRun(t, empty)
	for js, want := range map[string]string{
		`{"type": "default_search_engine"}`:           `Google`,
		`{"type": "profile_name"}`:                    `None`,
		`{"type": "chrome_language"}`:                 `en-US`,
		`{"type": "enabled_experiments"}`:             `[]`,
		`{"type": "chrome_font_size"}`:                `{'default_fixed_font_size': 13, 'default_font_size': 16}`,
		`{"type": "enable_do_not_track"}`:             `false`,
		`{"type": "history", "dest": "h.sqlite"}`:     `None`,
		`{"type": "cookie_data", "dest": "Cookies"}`:  `None`,
		`{"type": "extensions_installed_from_shop"}`:  `[]`,
		`{"type": "find_installed_extension_name"}`:   `Google`,
		`{"type": "enable_enhanced_safety_browsing"}`: `Google`,
		`{"type": "enable_safe_browsing"}`:            `false`,
	} {
		if got := get(js); shown(got) != want {
			t.Errorf("no profile: %s = %s, want %s", js, shown(got), want)
		}
	}

	home := t.TempDir()
	ext := filepath.Join(home, "Desktop/helloExtension")
	writeFiles(t, home, map[string]string{
		".config/google-chrome/Default/Preferences": `{
			"default_search_provider_data": {"template_url_data": {"short_name": "Bing"}},
			"profile": {"name": "Thomas", "default_content_setting_values": {"cookies": 1}},
			"webkit": {"webprefs": {"default_font_size": 20, "default_fixed_font_size": 16}},
			"enable_do_not_track": true,
			"safebrowsing": {"enabled": true, "enhanced": true},
			"session": {"restore_on_startup": 5},
			"extensions": {"settings": {
				"aaa": {"path": "aaa/1.0_0"},
				"bbb": {"path": "` + ext + `"},
				"ccc": {"path": "/usr/share/x", "manifest": {"name": "Component"}},
				"ddd": {"location": 5}
			}}}`,
		".config/google-chrome/Local State":                                `{"browser": {"enabled_labs_experiments": ["chrome-refresh-2023@2"]}, "intl": {"app_locale": "de"}}`,
		".config/google-chrome/Default/Extensions/aaa/1.0_0/manifest.json": `{"name": "Momentum", "version": "1.0"}`,
		".config/google-chrome/Default/Extensions/aaa/0.9_0/manifest.json": `not json`,
		"Desktop/helloExtension/manifest.json":                             `{"name": "Hello", "manifest_version": 3}`,
	})
	_, get = profileRun(t, home)
	for js, want := range map[string]string{
		`{"type": "default_search_engine"}`:           `Bing`,
		`{"type": "profile_name"}`:                    `Thomas`,
		`{"type": "chrome_language"}`:                 `de`,
		`{"type": "enabled_experiments"}`:             `['chrome-refresh-2023@2']`,
		`{"type": "chrome_font_size"}`:                `{'default_fixed_font_size': 16, 'default_font_size': 20}`,
		`{"type": "enable_do_not_track"}`:             `true`,
		`{"type": "enable_enhanced_safety_browsing"}`: `true`,
		`{"type": "enable_safe_browsing"}`:            `true`,
		`{"type": "new_startup_page"}`:                `true`,
		`{"type": "data_delete_automacally"}`:         `true`,
		`{"type": "find_unpacked_extension_path"}`:    `['aaa/1.0_0', '` + ext + `', '/usr/share/x']`,
		`{"type": "find_installed_extension_name"}`:   `['Momentum', 'Hello', 'Component']`,
		`{"type": "extensions_installed_from_shop"}`:  `[{'name': 'Momentum', 'version': '1.0'}]`,
	} {
		if got := get(js); shown(got) != want {
			t.Errorf("%s = %s, want %s", js, shown(got), want)
		}
	}
}

// Chromium started without --user-data-dir keeps its profile in
// ~/.config/chromium; the getters read it when there is no
// google-chrome folder.
func TestChromePreferenceGettersChromiumFolder(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{
		".config/chromium/Default/Preferences":                    `{"profile": {"name": "Ada"}}`,
		".config/chromium/Default/Extensions/x/2_0/manifest.json": `{"name": "Speechify"}`,
		".config/chromium/Local State":                            `{"intl": {"app_locale": "fr"}}`,
	})
	_, get := profileRun(t, home)
	for js, want := range map[string]string{
		`{"type": "profile_name"}`:                   `Ada`,
		`{"type": "chrome_language"}`:                `fr`,
		`{"type": "extensions_installed_from_shop"}`: `[{'name': 'Speechify'}]`,
	} {
		if got := shown(get(js)); got != want {
			t.Errorf("%s = %s, want %s", js, got, want)
		}
	}
}

func shown(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return py.Repr(v)
}

// The profile getters and update_browse_history on a profile the real
// browser made: its History, Cookies and extension settings.
func TestChromeProfileOnHost(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Chromium; skipped in -short mode")
	}
	browser := needBrowser(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed (scripts/install-deps.sh installs it)")
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "visitor", Value: "42", Expires: time.Now().Add(time.Hour)})
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<title>Shop</title><h1>Lil'Log</h1><p>PDF me</p>"))
	}))
	defer site.Close()

	home := t.TempDir()
	writeFiles(t, home, map[string]string{"Desktop/helloExtension/manifest.json": `{"name": "Hello Extension", "version": "1.0", "manifest_version": 3}`})
	r, get := profileRun(t, home)

	// update_browse_history on a home without a profile: the browser
	// makes one, then the visits go in.
	steps, err := buildSteps(jv(t, `[{"type": "update_browse_history", "parameters": {"history": [
		{"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "title": "Never Gonna Give You Up", "visit_time_from_now_in_seconds": 3600},
		{"url": "https://www.nytimes.com/", "title": "The New York Times", "visit_time_from_now_in_seconds": 300}]}}]`), "config")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.steps(t.Context(), steps, "config"); err != nil {
		t.Fatal(err)
	}
	// The browser itself visits the site on that profile, with the
	// unpacked extension loaded.
	profile := filepath.Join(home, ".config/google-chrome")
	cmd := exec.CommandContext(t.Context(), browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+profile, "--load-extension="+filepath.Join(home, "Desktop/helloExtension"), "--dump-dom", site.URL+"/")
	cmd.Env = append(os.Environ(), "HOME="+home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, out)
	}

	hist, ok := get(`{"type": "history", "dest": "history.sqlite"}`).([]any)
	if !ok {
		t.Fatalf("history = %#v", hist)
	}
	var urls []string
	now := chromeTime(time.Now())
	for _, row := range hist {
		cols := row.([]any)
		urls = append(urls, cols[0].(string))
		if ts, _ := py.Number(cols[2]); ts > float64(now) || ts < float64(now-2*3600e6) {
			t.Errorf("visit time of %s: %v, want within the last two hours (now %d)", cols[0], ts, now)
		}
	}
	for _, want := range []string{"https://www.youtube.com/watch?v=dQw4w9WgXcQ", "https://www.nytimes.com/", site.URL + "/"} {
		if !slices.Contains(urls, want) {
			t.Errorf("history %q lacks %s", urls, want)
		}
	}
	if _, err := os.Stat(filepath.Join(r.cacheDir, "history.sqlite")); err != nil {
		t.Errorf("the history copy is not in the cache: %v", err)
	}
	score, detail, _ := lookupMetricScore(t, "check_history_deleted", hist, jv(t, `{"type": "keywords", "keywords": ["youtube"]}`), nil)
	if score != 0 {
		t.Errorf("check_history_deleted with youtube visits = %v (%s), want 0", score, detail)
	}

	cookies, ok := get(`{"type": "cookie_data", "dest": "Cookies"}`).([]any)
	if !ok || len(cookies) == 0 {
		t.Fatalf("cookie_data = %#v", cookies)
	}
	if host := cookies[0].([]any)[1]; host != "127.0.0.1" {
		t.Errorf("cookie host %v, want 127.0.0.1", host)
	}
	if s, _, _ := lookupMetricScore(t, "is_cookie_deleted", cookies, jv(t, `{"type": "domains", "domains": ["127.0.0.1"]}`), nil); s != 0 {
		t.Errorf("is_cookie_deleted of the site's cookie = %v, want 0", s)
	}

	if got := shown(get(`{"type": "find_unpacked_extension_path"}`)); !strings.Contains(got, filepath.Join(home, "Desktop/helloExtension")) {
		t.Errorf("find_unpacked_extension_path = %s", got)
	}
	if got, _ := get(`{"type": "find_installed_extension_name"}`).([]any); !slices.Contains(got, any("Hello Extension")) {
		t.Errorf("find_installed_extension_name = %s", py.Repr(got))
	}
	for js, want := range map[string]string{
		`{"type": "enable_do_not_track"}`: "false",
		`{"type": "chrome_language"}`:     "en-US",
		`{"type": "enabled_experiments"}`: "[]",
	} {
		if got := shown(get(js)); got != want {
			t.Errorf("fresh profile: %s = %s, want %s", js, got, want)
		}
	}
	if fs, ok := get(`{"type": "chrome_font_size"}`).(map[string]any); !ok || py.Repr(fs["default_font_size"]) != "16" {
		t.Errorf("fresh profile: chrome_font_size = %#v, want default_font_size 16", fs)
	}

	// pdf_from_url prints the site with the browser.
	p, ok := get(`{"type": "pdf_from_url", "path": "` + site.URL + `/", "dest": "gold.pdf"}`).(string)
	if !ok {
		t.Fatal("pdf_from_url gave no file")
	}
	data, err := os.ReadFile(p)
	if err != nil || !strings.HasPrefix(string(data), "%PDF-") {
		t.Fatalf("pdf_from_url wrote %d bytes starting %q, %v", len(data), py.Truncate(string(data), 8), err)
	}
}

// BenchmarkChromeHistory measures the history getter (History copied,
// queried with python3's sqlite3, rows decoded) on a profile the browser
// made, holding 1,000 visits.
func BenchmarkChromeHistory(b *testing.B) {
	if _, err := exec.LookPath("chromium"); err != nil {
		b.Fatal("no Chromium installed (scripts/install-deps.sh installs it)")
	}
	// The images run /usr/bin/python3; a version manager's shim earlier
	// in this machine's PATH would be measured instead of the getter.
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		b.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	}
	home := b.TempDir()
	r, done, err := newRun(&hostSandbox{home: home}, &Task{ID: "bench"}, Options{CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer done()
	var items []any
	for i := range 1000 {
		items = append(items, map[string]any{"url": "https://example.org/page/" + strconv.Itoa(i), "title": "Page", "visit_time_from_now_in_seconds": json.Number(strconv.Itoa(i))})
	}
	if err := r.updateBrowseHistory(b.Context(), map[string]any{"history": items}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		rows, err := r.history(b.Context(), map[string]any{"dest": "history.sqlite"})
		if err != nil || len(rows.([]any)) < 1000 {
			b.Fatalf("history: %d rows, %v", len(rows.([]any)), err)
		}
	}
}
