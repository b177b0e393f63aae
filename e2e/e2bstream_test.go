//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/server/e2b/e2btest"
)

// TestE2BStreamInBrowser: the URL e2b_desktop's stream.get_url() gives,
// https://6080-ID.DOMAIN/vnc.html?autoconnect=true&resize=scale, opens
// in Chromium through deskrun serve over HTTPS (--tls-self-signed) with
// the sandbox's ports public (--e2b-public-ports), as a user clicks it:
// noVNC's page loads from the sandbox's port 6080 through the E2B front,
// its WebSocket reaches websockify there, and x11vnc, started as the SDK
// starts it, hears the browser's RFB handshake.
func TestE2BStreamInBrowser(t *testing.T) {
	engine(t, desktopImage)
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is not installed (scripts/install-deps.sh installs it)")
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	d := serveDeskrun(t, 30*time.Second, 2*time.Minute, "--provider", "docker", "--image", desktopImage,
		"--tls-self-signed", ca, "--e2b-public-ports")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	c := &e2btest.Client{Base: d.url + "/e2b", Key: d.token, HTTP: d.hc}
	sb, err := c.Create(ctx, map[string]any{"templateID": "desktop", "timeout": 600})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Kill(context.WithoutCancel(ctx), sb.SandboxID) })
	if sb.Domain == nil || *sb.Domain == "" {
		t.Fatalf("create answered no domain: %+v", sb)
	}
	env := e2btest.NewEnvd(d.url+"/e2b", sb, "user", d.hc)
	sh := func(cmd string) string {
		t.Helper()
		r, err := env.Run(ctx, cmd, map[string]string{"DISPLAY": ":0"}, "", nil)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		return r.Stdout + r.Stderr
	}
	// stream.start(), as the SDK runs it, x11vnc with a log of its own.
	sh("x11vnc -bg -display :0 -forever -wait 50 -shared -rfbport 5900 -nopw -o /tmp/x11vnc.log 2>/dev/null")
	sh("cd /opt/noVNC/utils && setsid ./novnc_proxy --vnc localhost:5900 --listen 6080 --web /opt/noVNC >/tmp/novnc.log 2>&1 </dev/null &")
	eventually(t, time.Minute, "noVNC listening on 6080", func() error {
		if out := sh(`netstat -tuln | grep ":6080 " || true`); strings.TrimSpace(out) == "" {
			return fmt.Errorf("netstat shows nothing on 6080; noVNC's log: %q", sh("cat /tmp/novnc.log"))
		}
		return nil
	})

	// get_url(): the sandbox's host for port 6080 under the create's
	// domain. Chromium resolves every *.localhost to loopback itself; the
	// certificate is the server's own authority's, which this browser
	// was not told to trust (the Go client's test of it is
	// TestServeTLSSelfSigned).
	u := fmt.Sprintf("https://6080-%s.%s/vnc.html?autoconnect=true&resize=scale", sb.SandboxID, *sb.Domain)
	bctx, bcancel := context.WithCancel(ctx)
	defer bcancel()
	cmd := exec.CommandContext(bctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--ignore-certificate-errors",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-port=0", u)
	cmd.Stdout, cmd.Stderr = t.Output(), t.Output()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bcancel(); _ = cmd.Wait() })
	// A liveness bound: headless Chromium on a loaded 2-core machine
	// takes tens of seconds to start and run noVNC.
	eventually(t, 3*time.Minute, "the browser's viewer connected to x11vnc", func() error {
		log := sh("cat /tmp/x11vnc.log")
		if !strings.Contains(log, "Client Protocol Version") {
			return fmt.Errorf("x11vnc heard no RFB client yet; noVNC's log: %q", sh("tail -5 /tmp/novnc.log"))
		}
		return nil
	})
	t.Logf("x11vnc: %s", sh(`grep -E "Got connection|Client Protocol Version" /tmp/x11vnc.log | head -4`))
}
