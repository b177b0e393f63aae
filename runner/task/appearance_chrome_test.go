package task

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
)

// One Preferences file's mode as OSWorld's get_chrome_color_scheme reads
// it, and the files it passes over (ok false: its reading raises).
func TestPreferencesMode(t *testing.T) {
	for _, c := range []struct {
		prefs string
		want  string // "" where the file is passed over
	}{
		{`{}`, "system"},
		{`{"browser": {"theme": {"color_scheme": 2}}}`, "dark"},
		{`{"browser": {"theme": {"color_scheme": 1}}}`, "light"},
		{`{"browser": {"theme": {"color_scheme": 0}}}`, "system"},
		// color_scheme2 wins over color_scheme, even when it says nothing.
		{`{"browser": {"theme": {"color_scheme": 2, "color_scheme2": 1}}}`, "light"},
		{`{"browser": {"theme": {"color_scheme": 2, "color_scheme2": null}}}`, "system"},
		{`{"browser": {"theme": {"color_scheme2": " Dark\n"}}}`, "dark"},
		{`{"browser": {"theme": {"color_scheme2": "DEFAULT"}}}`, "system"},
		{`{"browser": {"theme": {"color_scheme2": "2"}}}`, "dark"},
		{`{"browser": {"theme": {"color_scheme2": "night"}}}`, "system"},
		// int() truncates; bool is an int.
		{`{"browser": {"theme": {"color_scheme2": 2.9}}}`, "dark"},
		{`{"browser": {"theme": {"color_scheme2": -0.5}}}`, "system"},
		{`{"browser": {"theme": {"color_scheme2": true}}}`, "light"},
		{`{"browser": {"theme": {"color_scheme2": 7}}}`, "system"},
		{`{"browser": {"theme": {"color_scheme2": 1e400}}}`, ""},
		// extensions.theme.system_theme 0 is light whatever the scheme.
		{`{"browser": {"theme": {"color_scheme2": 2}}, "extensions": {"theme": {"system_theme": 0}}}`, "light"},
		{`{"browser": {"theme": {"color_scheme2": 2}}, "extensions": {"theme": {"system_theme": false}}}`, "light"},
		{`{"browser": {"theme": {"color_scheme2": 2}}, "extensions": {"theme": {"system_theme": "0"}}}`, "light"},
		{`{"browser": {"theme": {"color_scheme2": 2}}, "extensions": {"theme": {"system_theme": 0.0}}}`, "light"},
		{`{"browser": {"theme": {"color_scheme2": 2}}, "extensions": {"theme": {"system_theme": 1}}}`, "dark"},
		{`{"browser": {"theme": {"color_scheme2": 2}}, "extensions": {"theme": {"system_theme": "false"}}}`, "dark"},
		// What raises in OSWorld's reading.
		{`[]`, ""},
		{`not json`, ""},
		{`{"browser": null}`, ""},
		{`{"browser": {"theme": []}}`, ""},
		{`{"browser": {"theme": {"color_scheme2": 2}}, "extensions": {"theme": "x"}}`, ""},
	} {
		got, ok := preferencesMode([]byte(c.prefs))
		if !ok {
			got = ""
		}
		if got != c.want {
			t.Errorf("%s: mode %q, want %q", c.prefs, got, c.want)
		}
	}
}

// settingsBrowser is a desktop browser with the given tabs; console_exec
// answers mode and records the tab it ran in.
type settingsBrowser struct {
	*hostSandbox
	tabs []api.BrowserTab
	mode string
	ran  []string
}

func (b *settingsBrowser) Browser(_ context.Context, action string, r api.BrowserRequest) (api.BrowserResult, error) {
	switch action {
	case "tabs":
		if b.tabs == nil {
			return api.BrowserResult{}, errdefs.ErrUnavailable.WithMessage("no browser")
		}
		return api.BrowserResult{Tabs: b.tabs}, nil
	case "console_exec":
		b.ran = append(b.ran, r.Tab)
		v, _ := json.Marshal(b.mode)
		if b.mode == "" {
			v = []byte("null")
		}
		return api.BrowserResult{Value: v}, nil
	}
	return api.BrowserResult{}, errdefs.ErrNotImplemented
}

// chrome_appearance_mode_ui reads a tab on chrome://settings first, the
// active one when there are several, else the most recently written
// profile's Preferences; "system" with neither.
func TestChromeAppearanceModeGetter(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed (scripts/install-deps.sh installs it)")
	}
	poll := appearancePoll
	appearancePoll = time.Millisecond
	t.Cleanup(func() { appearancePoll = poll })

	get := func(sb Sandbox) string {
		t.Helper()
		r, done, err := newRun(sb, &Task{ID: "appearance"}, Options{CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		g, err := buildGetter(jv(t, `{"type": "chrome_appearance_mode_ui"}`), "result")
		if err != nil {
			t.Fatal(err)
		}
		v, err := r.get(t.Context(), g)
		if err != nil {
			t.Fatal(err)
		}
		return shown(v)
	}

	if got := get(&hostSandbox{home: t.TempDir()}); got != "system" {
		t.Errorf("no browser, no profile: %s, want system", got)
	}

	// The task's own setup: Default says dark. A newer profile saying
	// light is read first; a newer one saying system does not hide dark.
	home := t.TempDir()
	chrome := filepath.Join(home, ".config/google-chrome")
	writeFiles(t, home, map[string]string{
		".config/google-chrome/Default/Preferences":   `{"browser": {"theme": {"color_scheme": 2, "color_scheme2": 2}}}`,
		".config/google-chrome/Profile 1/Preferences": `{"browser": {"theme": {"color_scheme2": 0}}}`,
	})
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(chrome, "Default/Preferences"), old, old); err != nil {
		t.Fatal(err)
	}
	host := &hostSandbox{home: home}
	if got := get(host); got != "dark" {
		t.Errorf("Default dark, newer Profile 1 system: %s, want dark", got)
	}
	writeFiles(t, home, map[string]string{".config/google-chrome/Guest Profile/Preferences": `{"browser": {"theme": {"color_scheme2": 1}}}`})
	if got := get(host); got != "light" {
		t.Errorf("a profile says light: %s, want light", got)
	}

	// The settings page is read before the files.
	b := &settingsBrowser{hostSandbox: host, mode: "dark", tabs: []api.BrowserTab{
		{ID: "news", URL: "https://example.org/"},
		{ID: "fonts", URL: "chrome://settings/fonts"},
		{ID: "look", URL: "chrome://settings/appearance", Active: true},
	}}
	if got := get(b); got != "dark" || len(b.ran) != 1 || b.ran[0] != "look" {
		t.Errorf("settings tabs: %s, read in %v; want dark, read in [look]", got, b.ran)
	}
	// A settings page that tells nothing, or no settings tab: the files.
	b.mode, b.ran = "", nil
	if got := get(b); got != "light" || len(b.ran) != 1 {
		t.Errorf("settings page tells nothing: %s (read %v), want light from the files", got, b.ran)
	}
	b.mode, b.ran, b.tabs = "dark", nil, []api.BrowserTab{{ID: "news", URL: "https://example.org/", Active: true}}
	if got := get(b); got != "light" || len(b.ran) != 0 {
		t.Errorf("no settings tab: %s (read %v), want light from the files, no page read", got, b.ran)
	}
}

// Chromium without --user-data-dir: its ~/.config/chromium profile is
// read when there is no google-chrome one.
func TestChromeAppearanceModeChromiumFolder(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed (scripts/install-deps.sh installs it)")
	}
	poll := appearancePoll
	appearancePoll = time.Millisecond
	t.Cleanup(func() { appearancePoll = poll })
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".config/chromium/Default/Preferences": `{"browser": {"theme": {"color_scheme2": 2}}}`})
	_, get := profileRun(t, home)
	if got := shown(get(`{"type": "chrome_appearance_mode_ui"}`)); got != "dark" {
		t.Errorf("chromium profile: %s, want dark", got)
	}
}

// chrome_appearance_mode_ui on a real settings page: Chromium on
// agentd's desktop shows chrome://settings/appearance, and the getter
// answers what the page's preferences and controls say (the page is
// read, not the Preferences file).
func TestChromeAppearanceModeLive(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Chromium; skipped in -short mode")
	}
	browser := needBrowser(t)
	a := startAgentd(t)
	// The browser's home is a folder of its own, removed once every
	// process naming it (the browser, its crash handlers) has ended.
	dir, err := os.MkdirTemp("", "deskrun-appearance-")
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	t.Cleanup(func() {
		stopBrowser(t, port)
		agentdtest.KillUsing(dir)
		_ = os.RemoveAll(dir)
	})
	writeFiles(t, dir, map[string]string{"profile/Default/Preferences": `{"browser": {"theme": {"color_scheme": 2, "color_scheme2": 2}}}`})
	r, done, err := newRun(a, &Task{ID: "appearance"}, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if _, err := r.vm.Launch(t.Context(), []string{"env", "HOME=" + dir, browser, "--user-data-dir=" + dir + "/profile",
		"--remote-debugging-port=" + strconv.Itoa(port), "--no-first-run", "--no-default-browser-check", "--no-sandbox", "--disable-gpu"}, 0); err != nil {
		t.Fatal(err)
	}
	// Chromium opens no chrome:// address given on its command line; the
	// tab is opened over DevTools.
	tab := ""
	for deadline := time.Now().Add(30 * time.Second); tab == "" && time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPut, "http://127.0.0.1:"+strconv.Itoa(port)+"/json/new?chrome://settings/appearance", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			continue
		}
		var target struct{ ID string }
		_ = json.NewDecoder(resp.Body).Decode(&target)
		resp.Body.Close()
		tab = target.ID
	}
	if tab == "" {
		t.Fatal("the browser opened no chrome://settings tab")
	}
	time.Sleep(2500 * time.Millisecond) // the page's preferences arrive after its load, as OSWorld waits
	res, err := a.Browser(t.Context(), "console_exec", api.BrowserRequest{Port: port, Tab: tab, JavaScript: appearanceJS})
	if err != nil {
		t.Fatal(err)
	}
	var page string
	if err := json.Unmarshal(res.Value, &page); err != nil || (page != "light" && page != "dark" && page != "system") {
		t.Fatalf("the settings page answers %s, want light, dark or system", res.Value)
	}

	g, err := buildGetter(jv(t, `{"type": "chrome_appearance_mode_ui"}`), "result")
	if err != nil {
		t.Fatal(err)
	}
	v, err := r.get(t.Context(), g)
	if err != nil {
		t.Fatal(err)
	}
	if v != page {
		t.Errorf("chrome_appearance_mode_ui = %v, want the page's %s", v, page)
	}
	t.Logf("Preferences say dark; the settings page of %s says %s", browser, page)
}
