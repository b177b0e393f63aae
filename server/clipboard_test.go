package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
)

// TestClipboardOverREST: the clipboard route and the anthropic dialect's
// read_clipboard and write_clipboard work on a local sandbox, checked by
// xclip and xsel inside it.
func TestClipboardOverREST(t *testing.T) {
	agentdtest.NeedX(t, "xclip", "xsel")
	c, base := localServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	s, err := c.CreateSession(ctx, api.CreateSessionRequest{Provider: "local", Screen: api.Screen{Width: 640, Height: 480}, Dialect: "anthropic"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.DeleteSession(context.Background(), s.ID) })
	out := func(script string) string {
		t.Helper()
		r, err := c.Exec(ctx, s.ID, api.ExecRequest{Cmd: []string{"sh", "-c", script}})
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%s: %+v %v", script, r, err)
		}
		return r.Stdout
	}

	if a := call(t, base, "PUT", "/v1/sessions/"+s.ID+"/clipboard?selection=primary", testToken, "über REST"); a.status != 204 {
		t.Fatalf("PUT clipboard: %d %s", a.status, a.body)
	}
	if got := out("xsel -o --primary"); got != "über REST" {
		t.Errorf("xsel read the primary selection as %q", got)
	}
	res, err := c.CallTool(ctx, s.ID, "", "write_clipboard", map[string]string{"text": "from the tool ✓"})
	if err != nil || res.IsError {
		t.Fatalf("write_clipboard: %+v %v", res, err)
	}
	if got := out("xclip -o -selection clipboard"); got != "from the tool ✓" {
		t.Errorf("xclip read %q after write_clipboard", got)
	}
	out("printf 'copied in the sandbox: 日本' | xclip -i -selection clipboard")
	deadline := time.Now().Add(5 * time.Second)
	for {
		res, err = c.CallTool(ctx, s.ID, "", "read_clipboard", nil)
		if err == nil && !res.IsError && len(res.Content) == 1 && res.Content[0].Text == "copied in the sandbox: 日本" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("read_clipboard: %+v %v", res, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if b, err := c.ReadClipboard(ctx, s.ID, "", ""); err != nil || string(b) != "copied in the sandbox: 日本" {
		t.Errorf("GET clipboard: %q %v", b, err)
	}
	if _, err := c.ReadClipboard(ctx, s.ID, "", api.ClipboardPNG); !errdefs.IsNotFound(err) {
		t.Errorf("an image of text: %v, want not found", err)
	}
	if a := call(t, base, "GET", "/v1/sessions/"+s.ID+"/clipboard?selection=secondary", testToken, ""); a.status != 400 || !strings.Contains(a.err.Error.Message, "selection") {
		t.Errorf("bad selection: %d %s", a.status, a.body)
	}
}
