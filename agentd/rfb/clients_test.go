package rfb_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/deskrun/deskrun/agentd/rfb"
	"github.com/deskrun/deskrun/x11"
)

// The real viewers these tests drive: noVNC (Debian's novnc) in headless
// Chromium, and TigerVNC's vncviewer (Debian's tigervnc-viewer).
const noVNCDir = "/usr/share/novnc"

// startXvfb starts an X server of size ("1280x800x24") on a free display
// and returns its name; the test is skipped under -short or without
// Xvfb.
func startXvfb(t *testing.T, size string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Xvfb; skipped in -short mode")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("Xvfb not installed")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", size, "-nolisten", "tcp", "-noreset")
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

// run starts a program on display; it is killed when the test ends.
func run(t *testing.T, display, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display, "HOME="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	return cmd
}

// desktop starts an X display showing a root colour, an xterm with text
// and a photograph-like picture, and returns the connection rfb serves
// and a function that makes the xterm scroll 60 lines, one every 50 ms.
func desktop(t *testing.T) (*x11.Conn, string, func()) {
	d := startXvfb(t, "1024x700x24")
	if err := exec.Command("xsetroot", "-display", d, "-solid", "#3366cc").Run(); err != nil {
		t.Fatalf("xsetroot: %v", err)
	}
	dir := t.TempDir()
	start := dir + "/scroll"
	run(t, d, "xterm", "-geometry", "70x20+40+40", "-bg", "white", "-fg", "black", "-e",
		"sh", "-c", "ls -l /usr/bin | head -30; while [ ! -e "+start+" ]; do sleep 0.05; done; "+
			"for i in $(seq 1 60); do echo line $i of the scroll: $(seq $i $((i+12))); sleep 0.05; done; sleep 600")
	photo := image.NewRGBA(image.Rect(0, 0, 320, 240))
	for y := range 240 {
		for x := range 320 {
			n := uint8((x*7 + y*13) % 23)
			photo.SetRGBA(x, y, color.RGBA{uint8(x*255/320) + n, uint8(y*255/240) - n, uint8((x+y)/3) + n/2, 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, photo)
	os.WriteFile(dir+"/photo.png", b.Bytes(), 0o644)
	run(t, d, "display", "-geometry", "+650+380", dir+"/photo.png")
	conn, err := x11.Dial(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	time.Sleep(1500 * time.Millisecond) // the clients draw
	return conn, d, func() { os.WriteFile(start, nil, 0o644) }
}

// matchWithin waits until frame() (the viewer's picture) matches the
// display's screen: exactly on at least minExact of the pixels and with a
// mean channel error under maxMean, ignoring the rectangle skip.
func matchWithin(t *testing.T, conn *x11.Conn, frame func() *image.RGBA, minExact, maxMean float64, skip image.Rectangle) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	var last string
	for time.Now().Before(deadline) {
		got := frame()
		if got == nil {
			continue
		}
		want, err := conn.CaptureInto(nil, image.Rectangle{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Rect.Dx() < want.Rect.Dx() || got.Rect.Dy() < want.Rect.Dy() {
			last = fmt.Sprintf("viewer picture %v, screen %v", got.Rect, want.Rect)
			continue
		}
		exact, sum, n := 0, 0, 0
		for y := range want.Rect.Dy() {
			for x := range want.Rect.Dx() {
				if image.Pt(x, y).In(skip) {
					continue
				}
				p, q := want.RGBAAt(x, y), got.RGBAAt(x, y)
				d := absInt(int(p.R)-int(q.R)) + absInt(int(p.G)-int(q.G)) + absInt(int(p.B)-int(q.B))
				if d == 0 {
					exact++
				}
				sum += d
				n++
			}
		}
		fe, mean := float64(exact)/float64(n), float64(sum)/float64(3*n)
		if fe >= minExact && mean <= maxMean {
			t.Logf("viewer matches the screen: %.4f of pixels exact, mean error %.2f", fe, mean)
			return
		}
		last = fmt.Sprintf("%.4f of pixels exact (want %.4f), mean error %.2f (want %.2f)", fe, minExact, mean, maxMean)
	}
	t.Fatalf("the viewer never showed the screen: %s", last)
}

func absInt(n int) int { return max(n, -n) }

// counter tallies what a session sent, per encoding.
type counter struct {
	mu    sync.Mutex
	bytes map[int32]int
	copy  int
}

func (c *counter) observe(s rfb.Sent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes == nil {
		c.bytes = map[int32]int{}
	}
	c.bytes[s.Encoding] += s.Bytes
	if s.CopyRect {
		c.copy++
	}
}

func (c *counter) get() (map[int32]int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := map[int32]int{}
	for k, v := range c.bytes {
		m[k] = v
	}
	return m, c.copy
}

// TestNoVNC connects noVNC (in headless Chromium) to a display over a
// WebSocket: it negotiates Tight with JPEG at its default quality, and
// its canvas shows the screen, before and after the screen changes and
// the xterm scrolls.
func TestNoVNC(t *testing.T) {
	conn, d, scroll := desktop(t)
	if _, err := os.Stat(noVNCDir + "/core/rfb.js"); err != nil {
		t.Fatal("noVNC is not installed (scripts/install-deps.sh installs novnc)")
	}
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is not installed")
	}
	var cnt counter
	frames := make(chan *image.RGBA, 1)
	mux := http.NewServeMux()
	mux.Handle("/novnc/", http.StripPrefix("/novnc/", http.FileServer(http.Dir(noVNCDir))))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, noVNCPage)
	})
	mux.HandleFunc("/frame", func(w http.ResponseWriter, r *http.Request) {
		img, err := png.Decode(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		rgba := image.NewRGBA(img.Bounds())
		for y := range img.Bounds().Dy() {
			for x := range img.Bounds().Dx() {
				rgba.Set(x, y, img.At(x, y))
			}
		}
		select {
		case <-frames:
		default:
		}
		frames <- rgba
	})
	mux.HandleFunc("/log", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		t.Logf("page: %s", b)
	})
	mux.HandleFunc("/websockify", func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"binary"}})
		if err != nil {
			return
		}
		nc := websocket.NetConn(r.Context(), ws, websocket.MessageBinary)
		err = rfb.Serve(r.Context(), nc, conn, rfb.Options{Observe: cnt.observe})
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("rfb: %v", err)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	run(t, d, browser, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+t.TempDir(), "http://"+ln.Addr().String()+"/")
	// A liveness bound, not a speed one: on a loaded 2-core machine
	// headless Chromium takes tens of seconds to start and run noVNC.
	frame := func() *image.RGBA {
		select {
		case f := <-frames:
			return f
		case <-time.After(2 * time.Minute):
			t.Fatal("noVNC sent no picture in 2 min")
			return nil
		}
	}
	// JPEG on the tiles of the picture, close; fill and palette on the
	// root and the xterm's text, exact.
	matchWithin(t, conn, frame, 0.8, 2, image.Rectangle{})
	// A change and a scroll arrive through the persistent streams.
	exec.Command("xsetroot", "-display", d, "-solid", "#cc6633").Run()
	scroll()
	time.Sleep(4 * time.Second)
	matchWithin(t, conn, frame, 0.8, 2, image.Rectangle{})
	bytes, copies := cnt.get()
	if len(bytes) != 1 || bytes[rfb.EncTight] == 0 {
		t.Fatalf("bytes per encoding %v, want Tight only", bytes)
	}
	if copies == 0 {
		t.Fatal("the xterm scrolled and no update used CopyRect")
	}
	t.Logf("noVNC: %d bytes of Tight, %d updates with a CopyRect", bytes[rfb.EncTight], copies)
}

// noVNCPage runs noVNC's RFB class on a canvas and posts the canvas as
// PNG every 300 ms once connected.
const noVNCPage = `<!doctype html><html><body style="margin:0"><div id="screen"></div>
<script type="module">
import RFB from "/novnc/core/rfb.js";
const log = (m) => fetch("/log", {method: "POST", body: String(m)});
const url = "ws://" + location.host + "/websockify";
const rfb = new RFB(document.getElementById("screen"), url);
rfb.addEventListener("disconnect", (e) => log("disconnected " + JSON.stringify(e.detail)));
rfb.addEventListener("connect", () => {
  log("connected, quality " + rfb.qualityLevel + ", compression " + rfb.compressionLevel);
  setInterval(() => rfb._canvas.toBlob((b) => fetch("/frame", {method: "POST", body: b}), "image/png"), 300);
});
window.onerror = (m) => log(m);
</script></body></html>`

// TestTigerVNC connects TigerVNC's vncviewer, full screen on a second X
// display, over TCP: first with ZRLE (lossless: the viewer's screen is
// the served one), then with Tight and JPEG quality 6.
func TestTigerVNC(t *testing.T) {
	conn, d, _ := desktop(t)
	viewer, err := exec.LookPath("vncviewer")
	if err != nil {
		t.Fatal("vncviewer is not installed (scripts/install-deps.sh installs tigervnc-viewer)")
	}
	for _, tt := range []struct {
		name     string
		args     []string
		enc      int32
		minExact float64
		maxMean  float64
	}{
		{"zrle", []string{"-AutoSelect=0", "-PreferredEncoding=ZRLE", "-FullColor"}, rfb.EncZRLE, 0.995, 0.5},
		{"tight-jpeg", []string{"-AutoSelect=0", "-PreferredEncoding=Tight", "-QualityLevel=6", "-CompressLevel=2"}, rfb.EncTight, 0.8, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var cnt counter
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					go rfb.Serve(t.Context(), c, conn, rfb.Options{Observe: cnt.observe})
				}
			}()
			vd := startXvfb(t, "1024x700x24")
			port := ln.Addr().(*net.TCPAddr).Port
			args := append([]string{"-FullScreen", "-Shared", "-ViewOnly", fmt.Sprintf("127.0.0.1::%d", port)}, tt.args...)
			run(t, vd, viewer, args...)
			vconn, err := x11.Dial(vd)
			if err != nil {
				t.Fatal(err)
			}
			defer vconn.Close()
			shot := func() *image.RGBA {
				time.Sleep(300 * time.Millisecond)
				img, err := vconn.CaptureInto(nil, image.Rectangle{})
				if err != nil {
					t.Fatal(err)
				}
				return img
			}
			// The viewer's own pointer (with the remote cursor drawn at
			// it) sits in the middle of its screen.
			skip := image.Rect(512-40, 350-40, 512+40, 350+40)
			matchWithin(t, conn, shot, tt.minExact, tt.maxMean, skip)
			exec.Command("xsetroot", "-display", d, "-solid", "#22aa55").Run()
			matchWithin(t, conn, shot, tt.minExact, tt.maxMean, skip)
			bytes, _ := cnt.get()
			if bytes[tt.enc] == 0 {
				t.Fatalf("bytes per encoding %v, want %d", bytes, tt.enc)
			}
			t.Logf("vncviewer: bytes per encoding %v", bytes)
		})
	}
}
