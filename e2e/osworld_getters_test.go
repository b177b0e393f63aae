//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/server/osworld"
)

// parityGetters are the getters TestOSWorldGettersMatch runs both ways,
// by name, with configs of the shapes OSWorld's task files give them.
var parityGetters = []struct{ name, getter, env string }{
	{"vm_file", `{"type": "vm_file", "path": "/home/user/parity/notes.txt", "dest": "notes.txt"}`, ""},
	{"vm_file missing", `{"type": "vm_file", "path": "/home/user/parity/none.txt", "dest": "none.txt"}`, ""},
	{"vm_file multi", `{"type": "vm_file", "multi": true, "gives": [0, 1, 2],
	  "path": ["/home/user/parity/notes.txt", "/home/user/parity/sub/a.txt", "/home/user/parity/none.txt"],
	  "dest": ["m0.txt", "m1.txt", "m2.txt"]}`, ""},
	{"vm_file time_suffix", `{"type": "vm_file", "path": "/home/user/parity/notes.txt", "dest": "notes.txt", "time_suffix": true, "time_format": "%Y%m%d"}`, ""},
	{"vm_command_line shell", `{"type": "vm_command_line", "command": "cat ~/parity/notes.txt; echo \"home=$HOME\"", "shell": true}`, ""},
	{"vm_command_line argv", `{"type": "vm_command_line", "command": ["ls", "-1", "/home/user/parity"]}`, ""},
	{"vm_command_line string", `{"type": "vm_command_line", "command": "echo 'two words' three"}`, ""},
	{"gsettings text-scaling-factor", `{"type": "vm_command_line", "command": "gsettings get org.gnome.desktop.interface text-scaling-factor", "shell": true}`, ""},
	{"gsettings favorite-apps", `{"type": "vm_command_line", "command": "export DBUS_SESSION_BUS_ADDRESS='unix:path=/run/user/1000/bus'\ngsettings get org.gnome.shell favorite-apps", "shell": true}`, ""},
	{"gsettings argv", `{"type": "vm_command_line", "command": ["gsettings", "get", "org.gnome.desktop.session", "idle-delay"]}`, ""},
	{"vm_command_error", `{"type": "vm_command_error", "command": ["python", "-c", "import no_such_module_parity"]}`, ""},
	{"vm_command_error shell", `{"type": "vm_command_error", "command": "echo oops >&2; exit 3", "shell": true}`, ""},
	{"vm_terminal_output", `{"type": "vm_terminal_output"}`, ""},
	{"accessibility_tree", `{"type": "accessibility_tree"}`, ""},
	{"vm_screen_size", `{"type": "vm_screen_size"}`, ""},
	{"vm_window_size terminal", `{"type": "vm_window_size", "app_class_name": "gnome-terminal-server"}`, ""},
	{"vm_window_size class", `{"type": "vm_window_size", "app_class_name": "Gnome-terminal"}`, ""},
	{"vm_window_size chromium", `{"type": "vm_window_size", "app_class_name": "chromium"}`, ""},
	{"vm_window_size none", `{"type": "vm_window_size", "app_class_name": "vlc"}`, ""},
	{"list_directory", `{"type": "list_directory", "path": "/home/user/parity"}`, ""},
	{"content_from_vm_file", `{"type": "content_from_vm_file", "path": "/home/user/parity/table.xlsx", "file_type": "xlsx", "file_content": "last_row"}`, ""},
	{"vm_wallpaper", `{"type": "vm_wallpaper", "dest": "wallpaper.bin"}`, ""},
	{"shortcuts_on_desktop", `{"type": "shortcuts_on_desktop"}`, ""},
	{"default_video_player", `{"type": "default_video_player"}`, ""},
	{"active_url_from_accessTree", `{"type": "active_url_from_accessTree", "goto_prefix": ""}`, ""},
	// OSWorld's getter on a VM whose browser is Chromium (it tells them
	// apart by the machine: Chromium on arm).
	{"active_url_from_accessTree Chromium", `{"type": "active_url_from_accessTree", "goto_prefix": ""}`, `{"vm_machine": "aarch64"}`},
	{"active_url_from_accessTree https", `{"type": "active_url_from_accessTree"}`, `{"vm_machine": "aarch64"}`},
	{"vlc_config", `{"type": "vlc_config", "dest": "vlcrc"}`, ""},
	{"rule", `{"type": "rule", "rules": {"include": ["43 132"], "exclude": [], "n": 1.5}}`, ""},
	{"rule_relativeTime", `{"type": "rule_relativeTime", "rules": {"relativeTime": {"from": "next week Saturday", "to": "next week Sunday"},
	  "timezone": "America/New_York", "expected": {"from": "{DoW}, {Month} {Day0D}", "to": "{DoW}, {Month} {Day0D}", "city": "New York City Hotels"}}}`, ""},
	{"bookmarks", `{"type": "bookmarks"}`, ""},
	{"default_search_engine", `{"type": "default_search_engine"}`, ""},
	{"chrome_font_size", `{"type": "chrome_font_size"}`, ""},
	{"open_tabs_info", `{"type": "open_tabs_info"}`, ""},
	{"active_tab_info", `{"type": "active_tab_info"}`, ""},
}

// parityChanges names the getters that change the sandbox (deskrun's
// active_tab_info opens the page in a new tab, as OSWorld's does): they
// run after OSWorld's driver has read everything else.
var parityChanges = map[string]bool{"active_tab_info": true}

// parityVolatile names the getters whose values change by themselves.
var parityVolatile = map[string]bool{"accessibility_tree": true}

// parityAllowed names the getters whose values may differ, and why.
var parityAllowed = map[string]string{
	"active_url_from_accessTree": "the image's browser is Chromium, whose accessibility application is named " +
		"\"Chromium\": OSWorld's getter on an x86 VM looks for \"Google Chrome\" (its VM's browser) and finds no " +
		"address bar here; deskrun answers the address bar's text, as OSWorld's getter does for a Chromium VM " +
		"(\"active_url_from_accessTree Chromium\" compares that)",
}

// TestOSWorldGettersMatch puts a known state in one osworld sandbox (files
// in the home, gsettings values, Chrome started as OSWorld's tasks start
// it with a page open, a terminal with known output in front), then runs
// each getter of parityGetters twice on it: deskrun's (task.Get) and
// OSWorld's own Python function from the checkout DESKRUN_OSWORLD_DIR
// names (integrations/osworld/getters_parity.py), which reaches the
// sandbox through deskrun's OSWorld server as OSWorld's env reaches its
// VM. The values must be equal, files compared by name in the cache and
// SHA-256, the accessibility tree after parsing; parityAllowed names the
// differences allowed, with their reasons.
//
// OSWorld's side runs OSWorld's getter code but reaches the sandbox
// through deskrun's routes (server/osworld), which reproduce OSWorld's
// in-VM server (main.py): where a getter is a thin call of a route, this
// checks that the route and deskrun's getter answer alike and that
// OSWorld's client code reads the route's answer as deskrun's getter
// does; the routes' own fidelity to main.py is pinned by runner/task/vm's
// and server/osworld's tests.
func TestOSWorldGettersMatch(t *testing.T) {
	dir := os.Getenv("DESKRUN_OSWORLD_DIR")
	if dir == "" {
		t.Skip("DESKRUN_OSWORLD_DIR is not set: no OSWorld checkout to import the getters from")
	}
	if _, err := os.Stat(filepath.Join(dir, "desktop_env", "evaluators", "getters", "general.py")); err != nil {
		t.Fatalf("DESKRUN_OSWORLD_DIR=%s is not an OSWorld checkout: %v", dir, err)
	}
	python := "python3"
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		python = "/usr/bin/python3" // Debian's, with OSWorld's Debian-packaged dependencies
	}
	if out, err := exec.Command(python, "-c", "import requests, lxml.etree, cssselect, pandas, openpyxl, pytz").CombinedOutput(); err != nil {
		t.Skipf("%s lacks what OSWorld's getter modules import (python3-requests python3-lxml python3-cssselect python3-pandas python3-openpyxl python3-tz): %v\n%s", python, err, out)
	}
	m := osworldManager(t)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	sess, err := m.Create(ctx, api.CreateSessionRequest{Provider: "docker", Image: osworldImage, Screen: api.Screen{Width: 1280, Height: 800}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Delete(context.WithoutCancel(ctx), sess.ID())
	srv, err := osworld.Start(sess, osworld.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	// The state.
	xlsx, err := os.ReadFile("../runner/task/metric/testdata/metrics/table_bold.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	for path, data := range map[string][]byte{
		"/home/user/parity/notes.txt":       []byte("first line\nsecond line, ünïcode\n"),
		"/home/user/parity/sub/a.txt":       []byte("a\n"),
		"/home/user/parity/table.xlsx":      xlsx,
		"/home/user/parity/page.html":       []byte("<!doctype html><title>Parity page</title><h1>Parity</h1><p>Known text.</p>"),
		"/home/user/.config/vlc/vlcrc":      []byte("[qt]\nqt-max-volume=200\n"),
		"/home/user/Desktop/parity.desktop": []byte("[Desktop Entry]\nType=Link\nName=Parity\nURL=file:///home/user/parity/page.html\n"),
	} {
		if err := sess.WriteFile(ctx, path, data); err != nil {
			t.Fatalf("write %s: %v", path, err)
		}
	}
	setup := func(steps string) {
		t.Helper()
		tk, err := task.Parse(fmt.Appendf(nil, `{"id": "getters-parity", "instruction": "x", "config": [%s], "evaluator": {"func": "infeasible"}}`, steps), task.FormatJSON)
		if err != nil {
			t.Fatal(err)
		}
		if err := task.Setup(ctx, sess, tk, task.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	setup(`{"type": "execute", "parameters": {"command": ["gsettings", "set", "org.gnome.desktop.interface", "text-scaling-factor", "1.25"]}},
	  {"type": "execute", "parameters": {"command": "export DBUS_SESSION_BUS_ADDRESS='unix:path=/run/user/1000/bus'\ngsettings set org.gnome.shell favorite-apps \"['thunderbird.desktop', 'vim.desktop', 'google-chrome.desktop']\"", "shell": true}},
	  {"type": "execute", "parameters": {"command": ["gsettings", "set", "org.gnome.desktop.session", "idle-delay", "300"]}},
	  {"type": "launch", "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337"]}},
	  {"type": "chrome_open_tabs", "parameters": {"urls_to_open": ["file:///home/user/parity/page.html"]}},
	  {"type": "sleep", "parameters": {"seconds": 2}},
	  {"type": "execute", "parameters": {"command": ["python", "-c", "import pyautogui; import time; time.sleep(0.5); pyautogui.hotkey('ctrl', 'alt', 't'); time.sleep(2); pyautogui.write('echo parity $((6*7))'); time.sleep(0.5); pyautogui.press('enter')"]}}`)

	// deskrun's getters, from a task whose evaluator holds them all.
	var results []string
	for _, g := range parityGetters {
		results = append(results, g.getter)
	}
	funcs := strings.TrimSuffix(strings.Repeat(`"exact_match", `, len(parityGetters)), ", ")
	rules := strings.TrimSuffix(strings.Repeat(`{"type": "rule", "rules": {"expected": ""}}, `, len(parityGetters)), ", ")
	tk, err := task.Parse(fmt.Appendf(nil, `{"id": "getters-parity", "instruction": "x", "evaluator": {"func": [%s], "result": [%s], "expected": [%s]}}`,
		funcs, strings.Join(results, ", "), rules), task.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	goCache := t.TempDir()
	eventually(t, 30*time.Second, "the terminal's output", func() error {
		v, err := task.Get(ctx, sess, tk, &task.Getter{Type: "vm_terminal_output"}, task.Options{CacheDir: goCache})
		if s, _ := v.(string); err != nil || !strings.Contains(s, "parity 42") {
			return fmt.Errorf("vm_terminal_output: %q, %v", v, err)
		}
		return nil
	})
	if ws, err := sess.Windows(ctx); err == nil {
		for _, w := range ws {
			t.Logf("window %#x %q class %q active %v", w.ID, w.Title, w.Class, w.Active)
		}
	}
	ours := func(i int) any {
		v, err := task.Get(ctx, sess, tk, tk.Evaluator.Result[i], task.Options{CacheDir: goCache})
		if err != nil {
			return jsonValue(t, map[string]any{"error": err.Error()})
		}
		return jsonValue(t, map[string]any{"value": shapeValue(t, v, goCache)})
	}
	// OSWorld's getters, through the driver.
	osworldCache := t.TempDir()
	var standIns any
	theirs := func(idx []int) map[string]any {
		var configs []map[string]any
		for _, i := range idx {
			g := parityGetters[i]
			c := map[string]any{"name": g.name, "getter": json.RawMessage(g.getter)}
			if g.env != "" {
				c["env"] = json.RawMessage(g.env)
			}
			configs = append(configs, c)
		}
		in := filepath.Join(t.TempDir(), "configs.json")
		b, _ := json.Marshal(configs)
		if err := os.WriteFile(in, b, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(ctx, python, "../integrations/osworld/getters_parity.py", in)
		cmd.Env = append(os.Environ(), "DESKRUN_OSWORLD_DIR="+dir, "OSWORLD_SERVER="+srv.Addrs().Server,
			"OSWORLD_CHROMIUM="+srv.Addrs().Chromium, "OSWORLD_CACHE="+osworldCache)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("getters_parity.py: %v\n%s", err, stderr.Bytes())
		}
		var out map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("getters_parity.py output: %v\n%s\n%s", err, stdout.Bytes(), stderr.Bytes())
		}
		standIns = out["_stand_ins"]
		return out
	}

	var first, volatile, later []int
	for i, g := range parityGetters {
		switch {
		case parityChanges[g.name]:
			later = append(later, i)
		case parityVolatile[g.name]:
			volatile = append(volatile, i)
		default:
			first = append(first, i)
		}
	}
	deskrun := map[string]any{}
	for _, i := range first {
		deskrun[parityGetters[i].name] = ours(i)
	}
	osw := theirs(first)
	tabs := tabsDiff(ctx, srv.Addrs().Chromium, deskrun["open_tabs_info"])
	t.Logf("OSWorld's getters ran with stand-ins for %v", standIns)
	// A value that changes by itself (the tree holds the clock, windows
	// settle) is read by deskrun just before and just after OSWorld's
	// read, and compared when deskrun's two reads agree.
	for _, i := range volatile {
		name := parityGetters[i].name
		for try := 1; ; try++ {
			before := ours(i)
			osw[name] = theirs([]int{i})[name]
			after := ours(i)
			deskrun[name] = before
			diff := valueDiff(name, before, after)
			if diff == "" || try == 5 {
				break
			}
			t.Logf("%s changed while OSWorld's getter read it (try %d): %s", name, try, diff)
			time.Sleep(2 * time.Second)
		}
	}
	if len(later) > 0 {
		maps.Copy(osw, theirs(later))
		for _, i := range later {
			deskrun[parityGetters[i].name] = ours(i)
		}
	}
	// Both sides' values, kept with -artifacts.
	art := t.ArtifactDir()
	for name, v := range map[string]any{"osworld.json": osw, "deskrun.json": deskrun} {
		b, _ := json.MarshalIndent(v, "", " ")
		if err := os.WriteFile(filepath.Join(art, name), b, 0o644); err != nil {
			t.Error(err)
		}
	}

	// The comparison, one line per getter.
	var table []string
	for _, g := range parityGetters {
		their, _ := osw[g.name].(map[string]any)
		outcome := "agree"
		var detail string
		switch {
		case their == nil:
			outcome, detail = "differ", "no answer from OSWorld's driver"
		case their["skipped"] != nil && g.name == "open_tabs_info":
			// What playwright would list: the browser's pages, as
			// DevTools lists them through the same forward.
			outcome, detail = "agree", "with DevTools' page list ("+fmt.Sprint(their["skipped"])+")"
			if tabs != "" {
				outcome, detail = "differ", tabs
			}
		case their["skipped"] != nil:
			outcome, detail = "not compared", fmt.Sprint(their["skipped"])
		default:
			if detail = valueDiff(g.name, deskrun[g.name], any(their)); detail != "" {
				outcome = "differ"
			}
		}
		if outcome == "differ" {
			if why, ok := parityAllowed[g.name]; ok {
				outcome, detail = "allowed", why+"\n\t"+detail
			} else {
				t.Errorf("%s: deskrun's value differs from OSWorld's: %s", g.name, detail)
			}
		}
		line := fmt.Sprintf("%-32s %s", g.name, outcome)
		if detail != "" && outcome != "differ" {
			line += ": " + detail
		}
		table = append(table, line)
	}
	t.Logf("getter values, deskrun's and OSWorld's on the same sandbox:\n%s", strings.Join(table, "\n"))
}

// shapeValue writes a getter's value as getters_parity.py prints
// OSWorld's: a file of the cache folder as its name there and SHA-256.
func shapeValue(t *testing.T, v any, cache string) any {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, cache+string(filepath.Separator)) {
			if b, err := os.ReadFile(x); err == nil {
				rel, _ := filepath.Rel(cache, x)
				sum := sha256.Sum256(b)
				return map[string]any{"file": filepath.ToSlash(rel), "sha256": hex.EncodeToString(sum[:])}
			}
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = shapeValue(t, e, cache)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = shapeValue(t, e, cache)
		}
		return out
	}
	return v
}

// jsonValue is v as encoding/json decodes it back (numbers float64,
// lists []any), for comparing with the driver's output.
func jsonValue(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("value %v: %v", v, err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// valueDiff compares deskrun's and OSWorld's answers of one getter
// ({"value": ...} or {"error": ...}, as JSON decodes them); empty when
// they agree. Accessibility trees are compared after parsing.
func valueDiff(name string, ours, theirs any) string {
	if name == "accessibility_tree" {
		return treeDiff(ours, theirs)
	}
	if reflect.DeepEqual(ours, theirs) {
		return ""
	}
	o, _ := json.Marshal(ours)
	w, _ := json.Marshal(theirs)
	return fmt.Sprintf("deskrun %s\n\tOSWorld %s", clip(o), clip(w))
}

// treeDiff compares two accessibility trees as OSWorld's XML, after
// parsing; empty when they agree.
func treeDiff(ours, theirs any) string {
	o, _ := ours.(map[string]any)
	w, _ := theirs.(map[string]any)
	a, _ := o["value"].(string)
	b, _ := w["value"].(string)
	if a == "" || b == "" {
		return fmt.Sprintf("a tree is missing: deskrun %s, OSWorld %s", clip([]byte(fmt.Sprint(ours))), clip([]byte(fmt.Sprint(theirs))))
	}
	la, err := treeLines(a)
	if err != nil {
		return "deskrun's tree: " + err.Error()
	}
	lb, err := treeLines(b)
	if err != nil {
		return "OSWorld's tree: " + err.Error()
	}
	if slices.Equal(la, lb) {
		return ""
	}
	var diff []string
	for i := 0; i < max(len(la), len(lb)) && len(diff) < 10; i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			diff = append(diff, fmt.Sprintf("node %d: deskrun %q, OSWorld %q", i, x, y))
		}
	}
	return fmt.Sprintf("%d and %d nodes; %s", len(la), len(lb), strings.Join(diff, "; "))
}

// treeLines flattens an accessibility tree's XML into one line per
// element: its depth, tag, attributes (sorted, namespaces by URI) and
// text.
func treeLines(doc string) ([]string, error) {
	d := xml.NewDecoder(strings.NewReader(doc))
	var lines []string
	depth := 0
	open := -1 // the line of the element whose text comes next
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return nil, err
		}
		switch x := tok.(type) {
		case xml.StartElement:
			var attrs []string
			for _, a := range x.Attr {
				attrs = append(attrs, a.Name.Space+":"+a.Name.Local+"="+a.Value)
			}
			slices.Sort(attrs)
			lines = append(lines, fmt.Sprintf("%d %s %s", depth, x.Name.Local, strings.Join(attrs, " ")))
			open = len(lines) - 1
			depth++
		case xml.EndElement:
			depth--
			open = -1
		case xml.CharData:
			if s := strings.TrimSpace(string(x)); s != "" && open >= 0 {
				lines[open] += " text=" + s
			}
		}
	}
}

// tabsDiff compares open_tabs_info's value with the pages DevTools lists
// at addr (the targets playwright's connect_over_cdp makes its pages
// of), as sets of {title, url}; empty when they agree.
func tabsDiff(ctx context.Context, addr string, ours any) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/json/list", nil)
	if err != nil {
		return err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "DevTools: " + err.Error()
	}
	defer resp.Body.Close()
	var targets []struct{ Type, Title, URL string }
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		return "DevTools' list: " + err.Error()
	}
	var want []string
	for _, t := range targets {
		if t.Type == "page" {
			want = append(want, t.Title+" "+t.URL)
		}
	}
	var got []string
	o, _ := ours.(map[string]any)
	tabs, _ := o["value"].([]any)
	for _, t := range tabs {
		m, _ := t.(map[string]any)
		got = append(got, fmt.Sprint(m["title"])+" "+fmt.Sprint(m["url"]))
	}
	slices.Sort(want)
	slices.Sort(got)
	if len(want) == 0 || !slices.Equal(got, want) {
		return fmt.Sprintf("deskrun %q, DevTools' pages %q", got, want)
	}
	return ""
}
