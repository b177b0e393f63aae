//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	envdapi "github.com/deskrun/deskrun/api/e2b/envd"
	pb "github.com/deskrun/deskrun/api/e2b/envd/process"
	"github.com/deskrun/deskrun/api/e2b/envd/process/processconnect"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
)

// e2bScreen is the screen e2b_desktop asks for when its caller names none.
var e2bScreen = api.Screen{Width: 1024, Height: 768}

// TestE2BDesktopPrograms: the desktop image's programs do what E2B's
// desktop SDK (e2b_desktop) asks of them. The commands are the SDK's own,
// word for word, sent as the SDK sends them to envd in agentd (Process
// Start of /bin/bash -l -c CMD with the JSON codec and DISPLAY=:0 among
// its envs; background commands left running once started; files read
// over GET /files): its Xvfb finds :0 served and leaves, xdpyinfo sees the display, startxfce4
// starts, scrot --pointer writes a PNG of the screen's size, xdotool moves
// and clicks (getmouselocation and agentd read the same point back, also
// after a client came and went), xdotool type reaches a program, xrandr
// shows the screen's size as the SDK parses it, and the SDK's stream
// (x11vnc, then noVNC's novnc_proxy, found listening by netstat) answers
// a VNC handshake, serves the viewer and relays RFB over its WebSocket.
func TestE2BDesktopPrograms(t *testing.T) {
	cli := engine(t, desktopImage)
	p, _ := newProvider(t, cli, docker.Config{})
	inst := startSandbox(t, p, sandbox.Spec{Image: desktopImage, Screen: e2bScreen})
	s := agentSession(inst)
	ac := agentdclient.NewClient(inst.AgentURL, inst.Token, nil)
	// The SDK's calls go to envd in agentd (package agentd/envd) as
	// deskrun serve forwards them: agentd's bearer token, the JSON codec.
	hc := &http.Client{Transport: bearer(inst.Token)}
	proc := processconnect.NewProcessClient(hc, inst.AgentURL, connect.WithProtoJSON())
	start := func(ctx context.Context, cmd string) (*connect.ServerStreamForClient[pb.StartResponse], error) {
		return proc.Start(ctx, connect.NewRequest(&pb.StartRequest{Process: &pb.ProcessConfig{
			Cmd: "/bin/bash", Args: []string{"-l", "-c", cmd}, Envs: map[string]string{"DISPLAY": ":0"},
		}}))
	}
	// sdk runs cmd as commands.run does and reads its stream to the end.
	sdk := func(t *testing.T, cmd string) api.ExecResult {
		t.Helper()
		stream, err := start(t.Context(), cmd)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		defer stream.Close()
		var r api.ExecResult
		ended := false
		for stream.Receive() {
			ev := stream.Msg().GetEvent()
			r.Stdout += string(ev.GetData().GetStdout())
			r.Stderr += string(ev.GetData().GetStderr())
			if end := ev.GetEnd(); end != nil {
				r.ExitCode, ended = int(end.GetExitCode()), true
			}
		}
		if err := stream.Err(); err != nil || !ended {
			t.Fatalf("%s: the stream ended without an end event: %v", cmd, err)
		}
		return r
	}
	// background starts cmd as commands.run(background=True) and
	// disconnect() do: the stream goes once the process started, the
	// process stays.
	background := func(t *testing.T, cmd string) {
		t.Helper()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		stream, err := start(ctx, cmd)
		if err != nil {
			t.Fatalf("start %s: %v", cmd, err)
		}
		defer stream.Close()
		if !stream.Receive() || stream.Msg().GetEvent().GetStart() == nil {
			t.Fatalf("start %s: no start event: %v", cmd, stream.Err())
		}
	}
	// readFile reads a file as files.read does: envd's GET /files.
	readFile := func(t *testing.T, path string) []byte {
		t.Helper()
		resp, err := hc.Get(inst.AgentURL + envdapi.FilesPath + "?path=" + url.QueryEscape(path))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /files %s: %s %v %.200q", path, resp.Status, err, b)
		}
		return b
	}

	t.Run("create", func(t *testing.T) {
		// Sandbox.create: Xvfb on the SDK's display, then xdpyinfo until it
		// answers, then startxfce4.
		r := sdk(t, "timeout 30 Xvfb :0 -ac -screen 0 1024x768x24 -retro -dpi 96 -nolisten tcp -nolisten unix; echo exit=$?")
		if !strings.Contains(r.Stdout, "exit=1") || !strings.Contains(r.Stderr, "server already running") {
			t.Errorf("the SDK's Xvfb: stdout %q stderr %q, want exit 1, a server already running", r.Stdout, r.Stderr)
		}
		if r := sdk(t, "xdpyinfo -display :0"); r.ExitCode != 0 || !strings.Contains(r.Stdout, fmt.Sprintf("dimensions:    %dx%d pixels", e2bScreen.Width, e2bScreen.Height)) {
			t.Fatalf("xdpyinfo -display :0: %+v", r)
		}
		background(t, "startxfce4")
		eventually(t, 30*time.Second, "xfce4-panel's window", func() error {
			if r := sdk(t, "xdotool search --onlyvisible --class xfce4-panel"); r.ExitCode != 0 || strings.TrimSpace(r.Stdout) == "" {
				return fmt.Errorf("no panel window: %+v", r)
			}
			return nil
		})
		if _, err := ac.Health(t.Context()); err != nil {
			t.Errorf("agentd after startxfce4: %v", err)
		}
	})

	t.Run("screenshot", func(t *testing.T) {
		path := "/tmp/screenshot-" + randomHex(t, 8) + ".png"
		if r := sdk(t, "scrot --pointer "+path); r.ExitCode != 0 {
			t.Fatalf("scrot: %+v", r)
		}
		img, err := png.Decode(bytes.NewReader(readFile(t, path)))
		if err != nil {
			t.Fatalf("scrot's file is no PNG: %v", err)
		}
		if got := img.Bounds().Size(); got.X != e2bScreen.Width || got.Y != e2bScreen.Height {
			t.Errorf("scrot's PNG is %v, want %dx%d", got, e2bScreen.Width, e2bScreen.Height)
		}
	})

	t.Run("mouse", func(t *testing.T) {
		for _, pt := range []api.Point{{X: 100, Y: 200}, {X: 1000, Y: 700}} {
			if r := sdk(t, fmt.Sprintf("xdotool mousemove --sync %d %d", pt.X, pt.Y)); r.ExitCode != 0 {
				t.Fatalf("mousemove: %+v", r)
			}
			if r := sdk(t, "xdotool click 1"); r.ExitCode != 0 {
				t.Fatalf("click: %+v", r)
			}
			// A client that comes and goes does not reset the server (the
			// SDK's own Xvfb has no -noreset: a server without clients
			// would put the pointer back in the middle).
			sdk(t, "xdpyinfo -display :0 >/dev/null")
			r := sdk(t, "xdotool getmouselocation")
			m := regexp.MustCompile(`x:(\d+)\s+y:(\d+)`).FindStringSubmatch(r.Stdout)
			if m == nil || m[1] != fmt.Sprint(pt.X) || m[2] != fmt.Sprint(pt.Y) {
				t.Errorf("getmouselocation = %q, want x:%d y:%d", r.Stdout, pt.X, pt.Y)
			}
			if c, err := s.cursor(t.Context()); err != nil || c != pt {
				t.Errorf("agentd's cursor = %v, %v; want %v", c, err, pt)
			}
		}
	})

	t.Run("typing", func(t *testing.T) {
		const title = "e2b-typing"
		out := "/tmp/e2b-typed.txt"
		background(t, "xterm -T "+title+" -geometry 60x8+200+200 -e sh -c 'cat > "+out+"'")
		var geom map[string]string
		eventually(t, 20*time.Second, "xterm window", func() error {
			r := sdk(t, "xdotool getwindowgeometry --shell $(xdotool search --onlyvisible --name "+title+" | head -1)")
			if r.ExitCode != 0 {
				return errors.New(r.Stderr)
			}
			geom = shellVars(r.Stdout)
			return nil
		})
		// left_click(x, y): move, then click.
		sdk(t, fmt.Sprintf("xdotool mousemove --sync %s %s", addStr(geom["X"], 20), addStr(geom["Y"], 20)))
		sdk(t, "xdotool click 1")
		// write(): chunks of 25 characters, each quoted as shlex.quote does.
		text := "Hello from e2b_desktop's write(), it's typed!"
		for i := 0; i < len(text); i += 25 {
			chunk := text[i:min(i+25, len(text))]
			if r := sdk(t, "xdotool type --delay 75 -- "+shellQuote(chunk)); r.ExitCode != 0 {
				t.Fatalf("type: %+v", r)
			}
		}
		// press("enter")
		if r := sdk(t, "xdotool key Return"); r.ExitCode != 0 {
			t.Fatalf("key: %+v", r)
		}
		eventually(t, 20*time.Second, "typed text in the program", func() error {
			r := sdk(t, "cat "+out)
			if r.Stdout != text+"\n" {
				return fmt.Errorf("the program received %q, want %q", r.Stdout, text+"\n")
			}
			return nil
		})
	})

	t.Run("screen size", func(t *testing.T) {
		// get_screen_size: the first WxH in xrandr's output.
		r := sdk(t, "xrandr")
		m := regexp.MustCompile(`(\d+x\d+)`).FindString(r.Stdout)
		if want := fmt.Sprintf("%dx%d", e2bScreen.Width, e2bScreen.Height); m != want {
			t.Errorf("xrandr's first size is %q, want %s; output %q", m, want, r.Stdout)
		}
	})

	t.Run("stream", func(t *testing.T) {
		// stream.start(): x11vnc in the background, novnc_proxy, netstat
		// until the port listens.
		if r := sdk(t, "pgrep -x x11vnc"); r.ExitCode == 0 {
			t.Fatalf("x11vnc runs before the stream started: %+v", r)
		}
		if r := sdk(t, "x11vnc -bg -display :0 -forever -wait 50 -shared -rfbport 5900 -nopw 2>/tmp/x11vnc_stderr.log"); r.ExitCode != 0 {
			t.Fatalf("x11vnc: %+v", r)
		}
		background(t, "cd /opt/noVNC/utils && ./novnc_proxy --vnc localhost:5900 --listen 6080 --web /opt/noVNC > /tmp/novnc.log 2>&1")
		eventually(t, 30*time.Second, "noVNC listening", func() error {
			if r := sdk(t, `netstat -tuln | grep ":6080 "`); strings.TrimSpace(r.Stdout) == "" {
				return fmt.Errorf("netstat shows nothing on 6080: %+v, log %q", r, sdk(t, "cat /tmp/novnc.log").Stdout)
			}
			return nil
		})
		if r := sdk(t, "pgrep -x x11vnc"); r.ExitCode != 0 {
			t.Errorf("pgrep -x x11vnc: %+v", r)
		}

		t.Run("vnc handshake", func(t *testing.T) {
			c, err := ac.DialPort(t.Context(), 5900)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			w, h, err := rfbHandshake(bufio.NewReader(c), c)
			if err != nil {
				t.Fatal(err)
			}
			if w != e2bScreen.Width || h != e2bScreen.Height {
				t.Errorf("x11vnc's framebuffer is %dx%d, want %dx%d", w, h, e2bScreen.Width, e2bScreen.Height)
			}
		})

		t.Run("viewer", func(t *testing.T) {
			// The page get_url() names: /vnc.html on the stream's port.
			c, err := ac.DialPort(t.Context(), 6080)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, "GET /vnc.html?autoconnect=true&resize=scale HTTP/1.0\r\nHost: 6080-sandbox\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("noVNC")) {
				t.Errorf("GET /vnc.html: %s, %.200q", resp.Status, body)
			}
		})

		t.Run("websocket", func(t *testing.T) {
			// What the viewer opens next: a WebSocket on /websockify,
			// carrying the server's RFB version first.
			c, err := ac.DialPort(t.Context(), 6080)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			key := make([]byte, 16)
			rand.Read(key)
			fmt.Fprintf(c, "GET /websockify HTTP/1.1\r\nHost: 6080-sandbox\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
				"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: binary\r\n\r\n", base64.StdEncoding.EncodeToString(key))
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusSwitchingProtocols {
				t.Fatalf("WebSocket upgrade: %s", resp.Status)
			}
			msg, err := wsReadMessage(br)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(msg, []byte("RFB 003.")) {
				t.Errorf("first WebSocket message %q, want the RFB version", msg)
			}
		})
	})
}

// shellQuote quotes s for a POSIX shell as Python's shlex.quote does.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// addStr adds d to the decimal number s.
func addStr(s string, d int) string {
	var n int
	fmt.Sscan(s, &n)
	return fmt.Sprint(n + d)
}

// rfbHandshake speaks an RFB 3.8 client's side up to the server's init
// (security type None) and answers the framebuffer's size.
func rfbHandshake(r *bufio.Reader, w io.Writer) (width, height int, err error) {
	ver := make([]byte, 12)
	if _, err := io.ReadFull(r, ver); err != nil {
		return 0, 0, fmt.Errorf("read version: %w", err)
	}
	if !bytes.HasPrefix(ver, []byte("RFB 003.")) {
		return 0, 0, fmt.Errorf("server version %q", ver)
	}
	io.WriteString(w, "RFB 003.008\n")
	n, err := r.ReadByte()
	if err != nil || n == 0 {
		return 0, 0, fmt.Errorf("security types: %d, %v", n, err)
	}
	types := make([]byte, n)
	if _, err := io.ReadFull(r, types); err != nil {
		return 0, 0, err
	}
	if !bytes.Contains(types, []byte{1}) {
		return 0, 0, fmt.Errorf("security types %v lack None", types)
	}
	w.Write([]byte{1})
	var result uint32
	if err := binary.Read(r, binary.BigEndian, &result); err != nil || result != 0 {
		return 0, 0, fmt.Errorf("security result %d, %v", result, err)
	}
	w.Write([]byte{1}) // ClientInit: shared
	var init struct{ W, H uint16 }
	if err := binary.Read(r, binary.BigEndian, &init); err != nil {
		return 0, 0, fmt.Errorf("server init: %w", err)
	}
	return int(init.W), int(init.H), nil
}

// wsReadMessage reads one unfragmented, unmasked WebSocket frame (as a
// server sends) and answers its payload.
func wsReadMessage(r *bufio.Reader) ([]byte, error) {
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("frame header: %w", err)
	}
	n := uint64(hdr[1] & 0x7f)
	switch n {
	case 126:
		var l uint16
		if err := binary.Read(r, binary.BigEndian, &l); err != nil {
			return nil, err
		}
		n = uint64(l)
	case 127:
		if err := binary.Read(r, binary.BigEndian, &n); err != nil {
			return nil, err
		}
	}
	if n > 1<<20 {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return b, err
}

// bearer adds agentd's token to each request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
