//go:build e2e

package e2e

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/moby/moby/client"
)

// TestDesktopAgent drives one sandbox through its agentd directly.
func TestDesktopAgent(t *testing.T) {
	cli := engine(t, minimalImage)
	p, _ := newProvider(t, cli, docker.Config{})
	inst := startSandbox(t, p, sandbox.Spec{Image: minimalImage, Screen: api.Screen{Width: 1024, Height: 768}})
	checkDesktop(t, cli, agentSession(inst), api.Screen{Width: 1024, Height: 768})
}

// checkDesktop checks what a session does against programs inside the
// sandbox that do not go through agentd: xsetroot paints, xdotool reads
// the pointer, a terminal program records what it was typed, cat and ls
// see files.
func checkDesktop(t *testing.T, cli *client.Client, s *session, screen api.Screen) {
	t.Helper()
	display := sessionDisplay(t, s)
	x := func(cmd ...string) execResult { // an X client inside the sandbox, not through agentd
		return dockerExec(t, cli, s.sandboxID, "user", []string{"DISPLAY=" + display}, cmd...)
	}

	t.Run("screenshot pixels", func(t *testing.T) {
		for _, c := range []color.RGBA{{255, 0, 0, 255}, {0, 200, 100, 255}} {
			hex := fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
			if r := x("xsetroot", "-solid", hex); r.ExitCode != 0 {
				t.Fatalf("xsetroot: %s", r.Stderr)
			}
			img, err := s.screenshot(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if got := img.Bounds().Size(); got != (image.Point{screen.Width, screen.Height}) {
				t.Errorf("screenshot size %v, want %dx%d", got, screen.Width, screen.Height)
			}
			for _, pt := range []image.Point{{2, 2}, {screen.Width - 3, screen.Height - 3}, {screen.Width / 3, screen.Height - 10}} {
				r, g, b, _ := img.At(pt.X, pt.Y).RGBA()
				got := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
				if got != c {
					t.Errorf("pixel %v = %v, want %v (root painted %s)", pt, got, c, hex)
				}
			}
		}
	})

	t.Run("pointer", func(t *testing.T) {
		for _, pt := range []api.Point{{X: 123, Y: 456}, {X: 0, Y: 0}, {X: screen.Width - 1, Y: screen.Height - 1}} {
			if err := s.input(t.Context(), api.Action{Type: api.ActionMove, X: api.Int(pt.X), Y: api.Int(pt.Y)}); err != nil {
				t.Fatal(err)
			}
			r := x("xdotool", "getmouselocation", "--shell")
			got := shellVars(r.Stdout)
			if got["X"] != strconv.Itoa(pt.X) || got["Y"] != strconv.Itoa(pt.Y) {
				t.Errorf("after move to %v: xdotool says %q", pt, r.Stdout)
			}
			c, err := s.cursor(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if c != pt {
				t.Errorf("cursor = %v, want %v", c, pt)
			}
		}
	})

	t.Run("unicode typing", func(t *testing.T) {
		const title = "e2e-typing"
		out := "/tmp/typed.txt"
		res, err := s.exec(t.Context(), "sh", "-c",
			"setsid xterm -T "+title+" -geometry 80x10+40+40 -e sh -c 'cat > "+out+"' </dev/null >/dev/null 2>&1 &")
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("start xterm: %v %+v", err, res)
		}
		var geom map[string]string
		eventually(t, 10*time.Second, "xterm window", func() error {
			r := x("sh", "-c", "xdotool getwindowgeometry --shell $(xdotool search --onlyvisible --name "+title+" | head -1)")
			if r.ExitCode != 0 {
				return errors.New(r.Stderr)
			}
			geom = shellVars(r.Stdout)
			return nil
		})
		wx, _ := strconv.Atoi(geom["X"])
		wy, _ := strconv.Atoi(geom["Y"])
		ww, _ := strconv.Atoi(geom["WIDTH"])
		wh, _ := strconv.Atoi(geom["HEIGHT"])
		// Focus the terminal the way an agent would: click into it.
		if err := s.input(t.Context(), api.Action{Type: api.ActionClick, X: api.Int(wx + ww/2), Y: api.Int(wy + wh/2)}); err != nil {
			t.Fatal(err)
		}
		text := `Grüße, naïve café — 你好，世界 Ωμέγα ¿¡ 𝄞 ~!@#$%^&*()_+{}|:"<>? 'quoted' \back`
		if err := s.input(t.Context(),
			api.Action{Type: api.ActionType, Text: text},
			api.Action{Type: api.ActionKey, Keys: []string{"Return"}},
		); err != nil {
			t.Fatal(err)
		}
		eventually(t, 10*time.Second, "typed text in the terminal", func() error {
			r := dockerExec(t, cli, s.sandboxID, "user", nil, "cat", out)
			if r.Stdout != text+"\n" {
				return fmt.Errorf("terminal received %q, want %q", r.Stdout, text+"\n")
			}
			return nil
		})
	})

	t.Run("exec", func(t *testing.T) {
		res, err := s.exec(t.Context(), "sh", "-c", "echo out; echo err >&2; id -un; exit 3")
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 3 || res.Stdout != "out\nuser\n" || res.Stderr != "err\n" {
			t.Errorf("exec = %+v, want exit 3, stdout \"out\\nuser\\n\", stderr \"err\\n\"", res)
		}
	})

	t.Run("files", func(t *testing.T) {
		data := append([]byte("line 1\nUnicode ✓\n"), 0, 0xff, 0xfe, '\n')
		path := "/home/user/Desktop/e2e file.bin"
		if err := s.writeFile(t.Context(), path, data); err != nil {
			t.Fatal(err)
		}
		r := dockerExec(t, cli, s.sandboxID, "user", nil, "base64", "-w0", path)
		if got, _ := base64.StdEncoding.DecodeString(r.Stdout); !bytes.Equal(got, data) {
			t.Errorf("file in the sandbox = %q, want %q", got, data)
		}
		got, err := s.readFile(t.Context(), path)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("read back = %q, %v; want %q", got, err, data)
		}
		_, err = s.readFile(t.Context(), "/home/user/Desktop/missing")
		var he *httpError
		if !errors.As(err, &he) || he.Status != http.StatusNotFound {
			t.Errorf("reading a missing file: %v, want status 404", err)
		}
	})
}

// sessionDisplay asks the sandbox for the DISPLAY its commands get.
func sessionDisplay(t *testing.T, s *session) string {
	t.Helper()
	res, err := s.exec(t.Context(), "sh", "-c", `printf %s "$DISPLAY"`)
	if err != nil || res.Stdout == "" {
		t.Fatalf("DISPLAY of the session: %v %+v", err, res)
	}
	return res.Stdout
}

// shellVars parses KEY=value lines (xdotool --shell output).
func shellVars(s string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			m[k] = v
		}
	}
	return m
}

// TestDesktopChromium: the desktop image's Chromium runs in a locked-down
// sandbox (no capabilities, no-new-privileges, no network) and renders a
// local page: its window is listed with the page's title and the
// screenshot shows the page's colour.
func TestDesktopChromium(t *testing.T) {
	cli := engine(t, desktopImage)
	p, _ := newProvider(t, cli, docker.Config{})
	inst := startSandbox(t, p, sandbox.Spec{Image: desktopImage, Screen: api.Screen{Width: 1024, Height: 768}})
	s := agentSession(inst)
	ctx := t.Context()
	page := `<!doctype html><title>deskrun page</title><body style="margin:0;background:#ff00aa"><h1>Quarterly numbers</h1></body>`
	if err := s.writeFile(ctx, "/home/user/page.html", []byte(page)); err != nil {
		t.Fatal(err)
	}
	res, err := s.exec(ctx, "sh", "-c", "chromium --start-maximized file:///home/user/page.html >/tmp/chromium.log 2>&1 &")
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("start chromium: %v %+v", err, res)
	}
	eventually(t, 60*time.Second, "chromium window titled after the page", func() error {
		var ws api.WindowList
		if _, err := s.do(ctx, http.MethodGet, "/windows", nil, &ws); err != nil {
			return err
		}
		for _, w := range ws.Windows {
			if strings.Contains(w.Title, "deskrun page") {
				return nil
			}
		}
		return fmt.Errorf("windows %+v", ws.Windows)
	})
	eventually(t, 30*time.Second, "the page's colour on screen", func() error {
		img, err := s.screenshot(ctx)
		if err != nil {
			return err
		}
		r, g, b, _ := img.At(512, 600).RGBA()
		if got := (color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}); got != (color.RGBA{0xff, 0x00, 0xaa, 0xff}) {
			return fmt.Errorf("pixel (512,600) = %v", got)
		}
		return nil
	})
}
