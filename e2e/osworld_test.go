//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
	"github.com/testcontainers/testcontainers-go/wait"
)

// TestOSWorldImage runs the osworld image as the docker provider runs
// every sandbox (as the desktop user, no capabilities, no-new-privileges,
// no network) and checks what OSWorld's tasks assume of their VM, the way
// a task or a user would find it: commands through agentd's exec (as a
// task's setup runs them), keys through agentd's input, windows on the
// screen, and the apps' own network interfaces reached from this host as
// OSWorld's getters reach them.
func TestOSWorldImage(t *testing.T) {
	cli := engine(t, osworldImage)
	p, _ := newProvider(t, cli, docker.Config{})
	t0 := time.Now()
	inst := startSandbox(t, p, sandbox.Spec{Image: osworldImage, Screen: api.Screen{Width: 1280, Height: 800}})
	t.Logf("start to healthy: %v", time.Since(t0).Round(time.Millisecond))
	s := agentSession(inst)
	u, err := url.Parse(inst.AgentURL)
	if err != nil {
		t.Fatal(err)
	}
	host := u.Hostname()

	t.Run("session services up when agentd answers", func(t *testing.T) {
		// The first command of the sandbox: deskrun-session started the
		// bus and the sound server before agentd.
		out := run(t, s, `test -S /run/user/1000/bus && echo "bus $DBUS_SESSION_BUS_ADDRESS $XDG_RUNTIME_DIR" && pactl info`)
		for _, want := range []string{"bus unix:path=/run/user/1000/bus /run/user/1000", "Default Sink: speakers"} {
			if !strings.Contains(out, want) {
				t.Errorf("output %q lacks %q", out, want)
			}
		}
	})

	t.Run("python and pyautogui", func(t *testing.T) {
		for _, py := range []string{"python", "python3"} {
			out := run(t, s, py+` -c "import sys, pyautogui; print(sys.version_info[0], pyautogui.__version__)"`)
			if !strings.HasPrefix(out, "3 ") || !strings.Contains(out, "deskrun") {
				t.Errorf("%s: %q, want Python 3 and deskrun's pyautogui", py, out)
			}
		}
	})

	t.Run("gsettings over the session bus", func(t *testing.T) {
		// As OSWorld's tasks write it: the bus address exported by hand.
		const bus = `export DBUS_SESSION_BUS_ADDRESS='unix:path=/run/user/1000/bus'; `
		out := run(t, s, bus+`gsettings set org.gnome.desktop.interface text-scaling-factor 1.25 && gsettings get org.gnome.desktop.interface text-scaling-factor`)
		if out != "1.25\n" {
			t.Errorf("text-scaling-factor read back %q, want 1.25", out)
		}
		// Stored by dconf for the user: another process, started
		// another way (docker exec), reads the same value.
		if r := dockerExec(t, cli, inst.ID, "user", nil, "dconf", "read", "/org/gnome/desktop/interface/text-scaling-factor"); r.Stdout != "1.25\n" {
			t.Errorf("dconf read = %+v, want 1.25", r)
		}
		out = run(t, s, bus+`gsettings set org.gnome.shell favorite-apps "['thunderbird.desktop', 'google-chrome.desktop']" && gsettings get org.gnome.shell favorite-apps`)
		if out != "['thunderbird.desktop', 'google-chrome.desktop']\n" {
			t.Errorf("favorite-apps read back %q", out)
		}
		for _, tt := range []struct{ schema, key, want string }{
			{"org.gnome.desktop.interface", "toolkit-accessibility", "true"},
			{"org.gnome.desktop.interface", "gtk-theme", "'Yaru'"},
			{"org.gnome.desktop.screensaver", "lock-enabled", "false"},
			{"org.gnome.desktop.notifications", "show-banners", "true"},
			{"org.gnome.desktop.session", "idle-delay", "uint32 0"},
			{"org.gnome.settings-daemon.plugins.power", "sleep-inactive-ac-type", ""},
		} {
			out := run(t, s, bus+"gsettings get "+tt.schema+" "+tt.key)
			if strings.TrimSpace(out) == "" || tt.want != "" && out != tt.want+"\n" {
				t.Errorf("gsettings get %s %s = %q, want %q", tt.schema, tt.key, out, tt.want)
			}
		}
		run(t, s, bus+"gsettings set org.gnome.desktop.notifications show-banners false")
		if out := run(t, s, bus+"gsettings get org.gnome.desktop.notifications show-banners"); out != "false\n" {
			t.Errorf("show-banners after set false: %q", out)
		}
	})

	t.Run("volume through pactl", func(t *testing.T) {
		out := run(t, s, `pactl set-sink-volume @DEFAULT_SINK@ 50% && pactl get-sink-volume @DEFAULT_SINK@`)
		if !strings.Contains(out, " 50% ") {
			t.Errorf("volume after setting 50%%: %q", out)
		}
		out = run(t, s, `pactl set-sink-mute @DEFAULT_SINK@ 1 && pactl get-sink-mute @DEFAULT_SINK@`)
		if out != "Mute: yes\n" {
			t.Errorf("mute after muting: %q", out)
		}
	})

	t.Run("apps and commands", func(t *testing.T) {
		for _, tt := range []struct{ cmd, want string }{
			{"google-chrome --version", "Chromium "},
			{"google-chrome-stable --version", "Chromium "},
			{"chromium --version", "Chromium "},
			{"libreoffice --version", "LibreOffice 7."},
			{"soffice --version", "LibreOffice 7."},
			{"gimp --version", "GNU Image Manipulation Program version 2.10"},
			{"thunderbird --version", "Thunderbird "},
			{"/usr/bin/thunderbird --version", "Thunderbird "},
			{"vlc --version", "VLC version 3."},
			{"gnome-terminal --version", "GNOME Terminal"},
			{"nautilus --version", "GNOME nautilus"},
			{"git --version", "git version"},
			{"pip --version", "python 3"},
			// The commands OSWorld's setups and checks run.
			{"for c in socat wmctrl killall pkill xdg-open xdg-mime xdg-settings gio gsettings zip unzip xz tar xsel update-desktop-database; do command -v $c >/dev/null || echo missing $c; done; echo ok", "ok"},
		} {
			out := run(t, s, tt.cmd)
			if !strings.Contains(out, tt.want) || strings.Contains(out, "missing") {
				t.Errorf("%s: %q, want %q", tt.cmd, out, tt.want)
			}
		}
		for _, tt := range []struct{ cmd, want string }{
			{"xdg-mime query default x-scheme-handler/https", "google-chrome.desktop\n"},
			{"xdg-settings get default-web-browser", "google-chrome.desktop\n"},
			{"xdg-mime query default inode/directory", "org.gnome.Nautilus.desktop\n"},
			{"ls /usr/share/applications/google-chrome.desktop /usr/share/applications/vlc.desktop /usr/share/applications/gimp.desktop /usr/share/applications/thunderbird.desktop /usr/share/applications/libreoffice-calc.desktop /usr/share/applications/org.gnome.Nautilus.desktop /usr/share/applications/org.gnome.Terminal.desktop >/dev/null && echo ok", "ok\n"},
		} {
			if out := run(t, s, tt.cmd); out != tt.want {
				t.Errorf("%s: %q, want %q", tt.cmd, out, tt.want)
			}
		}
	})

	t.Run("accessibility bus", func(t *testing.T) {
		out := run(t, s, `dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus org.freedesktop.DBus.Properties.Get string:org.a11y.Status string:IsEnabled && dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus org.a11y.Bus.GetAddress`)
		if !strings.Contains(out, "boolean true") || !strings.Contains(out, `string "unix:`) {
			t.Errorf("accessibility bus: %q, want enabled and an address", out)
		}
	})

	t.Run("LibreOffice Calc opens without first-run dialogs and saves xlsx in place", func(t *testing.T) {
		t0 := time.Now()
		closeApp(t, s, "soffice.bin")
		run(t, s, "setsid soffice --calc >/tmp/calc.log 2>&1 &")
		calc := waitWindow(t, s, 90*time.Second, "Untitled 1 - LibreOffice Calc")
		t.Logf("Calc window after %v", time.Since(t0).Round(time.Millisecond))
		// A dialog (tip of the day, recovery, what's new) would come up
		// as a window of its own within a few seconds.
		time.Sleep(3 * time.Second)
		ws := windows(t, s)
		if len(ws) != 1 || ws[0].ID != calc.ID {
			t.Fatalf("windows beside Calc's: %+v", ws)
		}
		if !ws[0].Active {
			t.Errorf("Calc's window is not the active one: %+v", ws)
		}

		// An xlsx made by LibreOffice itself (converted through the
		// running instance, as OSWorld's checks convert), opened, edited
		// by typing, and saved with Ctrl+S sent through pyautogui exactly
		// as OSWorld's post-config steps do: saved in place, with no
		// "keep current format" question.
		if err := s.writeFile(t.Context(), "/home/user/Desktop/fruit.csv", []byte("name,count\napples,3\npears,5\n")); err != nil {
			t.Fatal(err)
		}
		run(t, s, "cd /home/user/Desktop && soffice --headless --convert-to xlsx fruit.csv >/dev/null && test -s fruit.xlsx")
		run(t, s, "setsid libreoffice --calc /home/user/Desktop/fruit.xlsx >/dev/null 2>&1 &")
		waitWindow(t, s, 60*time.Second, "fruit.xlsx - LibreOffice Calc")
		eventually(t, 10*time.Second, "fruit.xlsx's window active", func() error {
			for _, w := range windows(t, s) {
				if w.Active && strings.Contains(w.Title, "fruit.xlsx") {
					return nil
				}
			}
			return fmt.Errorf("windows %+v", windows(t, s))
		})
		// The window comes up before the document takes keys: type into
		// A1 and save until the file holds the text, as a user would
		// after a keystroke that went nowhere.
		eventually(t, 60*time.Second, "the typed cell saved in fruit.xlsx", func() error {
			if err := s.input(t.Context(),
				api.Action{Type: api.ActionKey, Keys: []string{"ctrl", "Home"}},
				api.Action{Type: api.ActionType, Text: "kiwis"},
				api.Action{Type: api.ActionKey, Keys: []string{"Return"}},
			); err != nil {
				return err
			}
			run(t, s, `python -c "import pyautogui; pyautogui.hotkey('ctrl', 's')"`)
			deadline := time.Now().Add(5 * time.Second)
			for {
				r, err := s.exec(t.Context(), "sh", "-c", "unzip -p /home/user/Desktop/fruit.xlsx xl/sharedStrings.xml")
				if err != nil {
					return err
				}
				if strings.Contains(r.Stdout, ">kiwis<") {
					return nil
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("shared strings %.300q", r.Stdout)
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
		// LibreOffice runs with its GTK3 toolkit, the one that exposes
		// its accessibility tree.
		if out := run(t, s, `grep -c libvclplug_gtk3 /proc/$(pgrep -x soffice.bin)/maps`); out == "0\n" {
			t.Errorf("soffice.bin has not loaded the GTK3 toolkit")
		}
		for _, w := range windows(t, s) {
			if !strings.Contains(w.Title, "LibreOffice Calc") {
				t.Errorf("window %q open after saving", w.Title)
			}
		}
	})

	t.Run("VLC web interface", func(t *testing.T) {
		closeApp(t, s, "vlc")
		run(t, s, "setsid vlc >/tmp/vlc.log 2>&1 &")
		status := "http://" + net.JoinHostPort(host, "8080") + "/requests/status.xml"
		hc := &http.Client{Timeout: 5 * time.Second}
		eventually(t, 60*time.Second, "VLC's status page with the password", func() error {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, status, nil)
			req.SetBasicAuth("", "password")
			resp, err := hc.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<state>") {
				return fmt.Errorf("status %d: %.200s", resp.StatusCode, body)
			}
			return nil
		})
		resp, err := hc.Get(status)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("status page without the password: %d, want 401", resp.StatusCode)
		}
		waitWindow(t, s, 30*time.Second, "VLC media player")
		time.Sleep(2 * time.Second)
		for _, w := range windows(t, s) {
			if w.Title != "VLC media player" {
				t.Errorf("window %q beside VLC's (a first-run question?)", w.Title)
			}
		}
	})

	t.Run("Chrome debugging port as OSWorld opens it", func(t *testing.T) {
		// The two launch steps of OSWorld's Chrome tasks.
		closeApp(t, s, "chromium")
		closeApp(t, s, "socat")
		run(t, s, "setsid google-chrome --remote-debugging-port=1337 >/tmp/chrome.log 2>&1 &")
		run(t, s, "setsid socat tcp-listen:9222,fork tcp:localhost:1337 >/dev/null 2>&1 &")
		hc := &http.Client{Timeout: 5 * time.Second}
		var version struct{ Browser, WebSocketDebuggerURL string }
		eventually(t, 60*time.Second, "the DevTools endpoint through port 9222", func() error {
			resp, err := hc.Get("http://" + net.JoinHostPort(host, "9222") + "/json/version")
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("status %d", resp.StatusCode)
			}
			return json.NewDecoder(resp.Body).Decode(&version)
		})
		if !strings.HasPrefix(version.Browser, "Chrome/") || version.WebSocketDebuggerURL == "" {
			t.Errorf("/json/version = %+v", version)
		}
		// Google Chrome's profile folder, where OSWorld's getters read.
		eventually(t, 20*time.Second, "the profile in ~/.config/google-chrome", func() error {
			r, err := s.exec(t.Context(), "sh", "-c", `test -f "$HOME/.config/google-chrome/Local State" && test -d "$HOME/.config/google-chrome/Default"`)
			if err != nil || r.ExitCode != 0 {
				return fmt.Errorf("%v %+v", err, r)
			}
			return nil
		})
	})

	t.Run("Ctrl+Alt+T opens a terminal", func(t *testing.T) {
		eventually(t, 30*time.Second, "the other apps' windows gone", func() error {
			if ws := windows(t, s); len(ws) != 0 {
				return fmt.Errorf("windows %+v", ws)
			}
			return nil
		})
		if err := s.input(t.Context(), api.Action{Type: api.ActionKey, Keys: []string{"ctrl", "alt", "t"}}); err != nil {
			t.Fatal(err)
		}
		var term api.Window
		// GNOME Terminal's window, active, titled by its shell's prompt
		// once the shell is up (user@host: ~).
		eventually(t, 30*time.Second, "a terminal window with a shell", func() error {
			for _, w := range windows(t, s) {
				if w.Class == "Gnome-terminal" && w.Active && strings.HasPrefix(w.Title, "user@") && strings.HasSuffix(w.Title, ": ~") {
					term = w
					return nil
				}
			}
			return fmt.Errorf("windows %+v", windows(t, s))
		})
		t.Logf("terminal window %q", term.Title)
		// It has the keyboard and a shell in the home folder.
		if err := s.input(t.Context(),
			api.Action{Type: api.ActionType, Text: "pwd > ctrl-alt-t.txt"},
			api.Action{Type: api.ActionKey, Keys: []string{"Return"}},
		); err != nil {
			t.Fatal(err)
		}
		eventually(t, 10*time.Second, "the command typed into the terminal ran", func() error {
			got, err := s.readFile(t.Context(), "/home/user/ctrl-alt-t.txt")
			if err != nil {
				return err
			}
			if string(got) != "/home/user\n" {
				return fmt.Errorf("file holds %q", got)
			}
			return nil
		})
	})
}

// TestOSWorldImageReadOnlyRootfs: the session services also start where
// the image's file system is read-only (the provider's ReadOnlyRootfs:
// a tmpfs on /tmp, a volume on the home folder).
func TestOSWorldImageReadOnlyRootfs(t *testing.T) {
	cli := engine(t, osworldImage)
	p, _ := newProvider(t, cli, docker.Config{ReadOnlyRootfs: true})
	s := agentSession(startSandbox(t, p, sandbox.Spec{Image: osworldImage, Screen: api.Screen{Width: 1024, Height: 768}}))
	out := run(t, s, `pactl info | grep "Default Sink" && gsettings set org.gnome.desktop.interface text-scaling-factor 1.5 && gsettings get org.gnome.desktop.interface text-scaling-factor`)
	if out != "Default Sink: speakers\n1.5\n" {
		t.Errorf("output %q, want the null sink and 1.5", out)
	}
}

// TestImageOSWorld runs the osworld image the way any Docker user would
// (docker run with the image's own user, default network, published
// port), through testcontainers-go, and checks its health check and the
// label saying whether Visual Studio Code is in it.
func TestImageOSWorld(t *testing.T) {
	cli := engine(t, osworldImage)
	img, err := cli.ImageInspect(t.Context(), osworldImage)
	if err != nil {
		t.Fatal(err)
	}
	vscode := img.Config.Labels["dev.deskrun.vscode"]
	if vscode != "0" && vscode != "1" {
		t.Fatalf("label dev.deskrun.vscode = %q, want 0 or 1", vscode)
	}
	hc := img.Config.Healthcheck
	if hc == nil || len(hc.Test) < 2 || hc.Test[0] != "CMD" {
		t.Fatalf("image healthcheck = %+v, want an exec-form CMD", hc)
	}
	ctr, err := testcontainers.Run(t.Context(), osworldImage,
		testcontainers.WithEnv(map[string]string{"AGENTD_TOKEN": randomHex(t, 16)}),
		testcontainers.WithExposedPorts("7000/tcp"),
		testcontainers.WithLabels(map[string]string{sandbox.LabelOwner: "e2e-" + randomHex(t, 6)}),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/healthz").WithPort("7000/tcp").WithStartupTimeout(time.Minute)),
	)
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatalf("run %s: %v", osworldImage, err)
	}
	codeCheck := "command -v code >/dev/null && echo present || echo absent"
	wantCode := map[string]string{"0": "absent", "1": "present"}[vscode]
	for _, tt := range []struct {
		name string
		cmd  []string
		want string
	}{
		{"healthcheck passes", hc.Test[1:], ""},
		{"desktop user", []string{"sh", "-c", "id -un; id -u; echo $HOME"}, "user\n1000\n/home/user\n"},
		{"password for sudo", []string{"sh", "-c", "echo password | sudo -S -p '' id -un"}, "root"},
		{"sound server", []string{"pactl", "info"}, "Default Sink: speakers"},
		{"vscode as labelled", []string{"sh", "-c", codeCheck}, wantCode},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, r, err := ctr.Exec(t.Context(), tt.cmd, tcexec.Multiplexed())
			if err != nil {
				t.Fatalf("exec %q: %v", tt.cmd, err)
			}
			out, _ := io.ReadAll(r)
			if code != 0 || !strings.Contains(string(out), tt.want) {
				t.Errorf("%q: exit %d, output %q; want exit 0 and %q", tt.cmd, code, out, tt.want)
			}
		})
	}
}

// run runs script with bash through agentd's exec, as a task's setup
// step runs commands, and fails the test unless it exits 0.
func run(t *testing.T, s *session, script string) string {
	t.Helper()
	res, err := s.exec(t.Context(), "bash", "-c", script)
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("%s: exit %d, stdout %q, stderr %q", script, res.ExitCode, res.Stdout, res.Stderr)
	}
	return res.Stdout
}

// closeApp makes sure that, when the calling test ends, no process named
// name runs in the session's sandbox, so that the next test starts from a
// desktop without its windows.
func closeApp(t *testing.T, s *session, name string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.exec(ctx, "sh", "-c", "pkill -x "+name+"; for i in $(seq 50); do pgrep -x "+name+" >/dev/null || exit 0; sleep 0.1; done; pkill -9 -x "+name)
	})
}

// windows lists the desktop's windows through agentd.
func windows(t *testing.T, s *session) []api.Window {
	t.Helper()
	var ws api.WindowList
	if _, err := s.do(t.Context(), http.MethodGet, "/windows", nil, &ws); err != nil {
		t.Fatalf("windows: %v", err)
	}
	return ws.Windows
}

// waitWindow waits for a window titled title.
func waitWindow(t *testing.T, s *session, d time.Duration, title string) api.Window {
	t.Helper()
	var found api.Window
	eventually(t, d, "window "+title, func() error {
		ws := windows(t, s)
		i := slices.IndexFunc(ws, func(w api.Window) bool { return w.Title == title })
		if i < 0 {
			return fmt.Errorf("windows %+v", ws)
		}
		found = ws[i]
		return nil
	})
	return found
}

// BenchmarkOSWorldColdStart: a fresh osworld sandbox (1920x1080, as
// OSWorld's screens), from Start to agentd healthy (the session services
// up) and on to a screenshot showing LibreOffice Calc, which the sandbox
// starts at once; medians of 5.
func BenchmarkOSWorldColdStart(b *testing.B) {
	cli := engine(b, osworldImage)
	p, _ := newProvider(b, cli, docker.Config{})
	startSandbox(b, p, sandbox.Spec{Image: osworldImage}) // network exists, image cached
	hc := &http.Client{Timeout: 10 * time.Second}
	spec := sandbox.Spec{Image: osworldImage, Screen: api.Screen{Width: 1920, Height: 1080}}
	for b.Loop() {
		var healthy, calc []time.Duration
		for range 5 {
			t0 := time.Now()
			inst, err := p.Start(b.Context(), spec)
			if err != nil {
				b.Fatal(err)
			}
			healthy = append(healthy, time.Since(t0))
			err = calcOnScreen(b, hc, inst)
			calc = append(calc, time.Since(t0))
			p.Stop(context.WithoutCancel(b.Context()), inst.ID)
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(ms(median(healthy)), "ms-median-to-healthy")
		b.ReportMetric(ms(median(calc)), "ms-median-to-calc-screenshot")
		b.ReportMetric(ms(slices.Max(calc)), "ms-max-to-calc-screenshot")
		b.Logf("to healthy: %v; to a screenshot with Calc: %v", healthy, calc)
	}
}

// calcOnScreen starts LibreOffice Calc in inst, waits for its window and
// takes a screenshot.
func calcOnScreen(tb testing.TB, hc *http.Client, inst sandbox.Instance) error {
	s := agentSession(inst)
	s.hc = hc
	if _, err := s.exec(tb.Context(), "sh", "-c", "setsid soffice --calc >/dev/null 2>&1 &"); err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var ws api.WindowList
		if _, err := s.do(tb.Context(), http.MethodGet, "/windows", nil, &ws); err != nil {
			return err
		}
		if slices.ContainsFunc(ws.Windows, func(w api.Window) bool { return strings.HasSuffix(w.Title, "LibreOffice Calc") }) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no Calc window after 2 minutes: %+v", ws.Windows)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, err := screenshot(tb.Context(), hc, inst)
	return err
}
