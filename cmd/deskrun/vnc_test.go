package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/client"
)

// syncBuffer is a bytes.Buffer written by one goroutine and read by another.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listeningOn = regexp.MustCompile(`live view on (127\.0\.0\.1:\d+)`)

// TestSessionsVNC forwards a local port to a session's live view with
// `deskrun sessions vnc` and points TigerVNC's vncviewer at it, full
// screen on an X display of its own: a screenshot of that display shows
// the session's desktop.
func TestSessionsVNC(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	srv := startServe(t, "--provider", "local")
	viewer, err := exec.LookPath("vncviewer")
	if err != nil {
		t.Fatal("vncviewer is not installed (scripts/install-deps.sh installs tigervnc-viewer)")
	}
	c := client.NewClient(srv.url, "", nil)
	ctx := t.Context()
	s, err := c.CreateSession(ctx, api.CreateSessionRequest{Provider: "local"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteSession(context.Background(), s.ID) })
	if _, err := c.Exec(ctx, s.ID, api.ExecRequest{Cmd: []string{"sh", "-c", "xsetroot -solid '#3366cc'; (xterm -geometry 60x12+50+50 -e 'ls -l /; sleep 600' &)"}}); err != nil {
		t.Fatal(err)
	}

	// Bad input is refused before anything listens.
	if code, _, stderr := runCLI(t, "sessions", "--server", srv.url, "vnc", "nosuch"); code != 1 || !strings.Contains(stderr, "nosuch") {
		t.Errorf("unknown session: %d %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "sessions", "--server", srv.url, "vnc", s.ID, "--listen", "nowhere"); code == 0 || !strings.Contains(stderr, "--listen") {
		t.Errorf("bad --listen: %d %q", code, stderr)
	}

	fwdCtx, stop := context.WithCancel(ctx)
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		var out bytes.Buffer
		done <- run(fwdCtx, []string{"sessions", "vnc", s.ID, "--server", srv.url, "--listen", "127.0.0.1:0"}, &out, &stderr)
	}()
	var addr string
	for range 100 {
		if m := listeningOn.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if addr == "" {
		t.Fatalf("deskrun sessions vnc printed no address: %q", stderr.String())
	}
	host, port, _ := strings.Cut(addr, ":")

	vd := viewerDisplay(t)
	cmd := exec.Command(viewer, "-FullScreen", "-ViewOnly", "-Shared", host+"::"+port)
	cmd.Env = append(os.Environ(), "DISPLAY="+vd, "HOME="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var vout syncBuffer
	cmd.Stdout, cmd.Stderr = &vout, &vout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	// The viewer's screen shows the desktop: the root colour, and the
	// xterm where the session's own screenshot has it.
	var last string
	deadline := time.Now().Add(30 * time.Second)
	for {
		shot, err := c.Screenshot(ctx, s.ID, api.ScreenshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := png.Decode(bytes.NewReader(shot.Data))
		got := grab(t, vd)
		same, n := 0, 0
		for y := 0; y < 800; y += 4 {
			for x := 0; x < 1280; x += 4 {
				if image.Pt(x, y).In(image.Rect(600, 360, 680, 440)) {
					continue // the viewer's pointer, with the cursor drawn at it
				}
				n++
				r1, g1, b1, _ := want.At(x, y).RGBA()
				r2, g2, b2, _ := got.At(x, y).RGBA()
				if d := absDiff(r1, r2) + absDiff(g1, g2) + absDiff(b1, b2); d < 3*8<<8 {
					same++
				}
			}
		}
		r, g, b, _ := got.At(1000, 700).RGBA()
		last = fmt.Sprintf("%d of %d sampled pixels alike; the viewer's (1000,700) is %02x%02x%02x", same, n, r>>8, g>>8, b>>8)
		if same >= n*98/100 && r>>8 == 0x33 && g>>8 == 0x66 && b>>8 == 0xcc {
			t.Logf("vncviewer shows the desktop: %s", last)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("vncviewer never showed the desktop: %s\nvncviewer: %s\nforward: %s", last, vout.String(), stderr.String())
		}
		time.Sleep(300 * time.Millisecond)
	}
	if d := os.Getenv("DESKRUN_VNCVIEWER_SHOT"); d != "" {
		out, _ := exec.Command("import", "-display", vd, "-window", "root", d).CombinedOutput()
		t.Logf("saved %s %s", d, out)
	}
	stop()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("deskrun sessions vnc ended with %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("deskrun sessions vnc did not end on interrupt")
	}
}

func absDiff(a, b uint32) uint32 { return max(a, b) - min(a, b) }

// viewerDisplay starts an Xvfb of 1280x800 for the viewer.
func viewerDisplay(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if strings.TrimSpace(line) == "" {
		t.Fatal("Xvfb reported no display")
	}
	return ":" + strings.TrimSpace(line)
}

// grab is a screenshot of display by ImageMagick's import.
func grab(t *testing.T, display string) image.Image {
	t.Helper()
	out, err := exec.Command("import", "-display", display, "-window", "root", "png:-").Output()
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return img
}
