package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func manager(t *testing.T) *runner.Manager {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if testing.Short() {
			t.Skip("Xvfb is not installed")
		}
		t.Fatal("Xvfb is not installed (scripts/install-deps.sh installs it)")
	}
	bin := filepath.Join(t.TempDir(), "agentd")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/agentd").CombinedOutput(); err != nil {
		t.Fatalf("build agentd: %v\n%s", err, out)
	}
	p, err := local.New(bin, "")
	if err != nil {
		t.Fatal(err)
	}
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()); p.Close(context.Background()) })
	return m
}

func text(r *sdk.CallToolResult) string {
	var s []string
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			s = append(s, tc.Text)
		}
	}
	return strings.Join(s, "\n")
}

// TestOverMCP drives a desktop with the SDK's own client.
func TestOverMCP(t *testing.T) {
	m := manager(t)
	ctx := context.Background()
	srv, err := NewServer(m, Options{Dialect: "anthropic", Screen: wire.Screen{Width: 1024, Height: 768}})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := sdk.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	defs, _ := dialect.Definitions("anthropic")
	for _, d := range defs {
		if !slices.Contains(names, d.Name) {
			t.Errorf("tool %s missing from tools/list %v", d.Name, names)
		}
	}

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "screenshot", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("screenshot: %v %s", err, text(res))
	}
	var img *sdk.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*sdk.ImageContent); ok {
			img = ic
		}
	}
	if img == nil {
		t.Fatalf("screenshot result has no image: %s", text(res))
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || cfg.Width == 0 || len(img.Data) > MaxImageBytes {
		t.Errorf("screenshot image: %v %dx%d %d bytes", err, cfg.Width, cfg.Height, len(img.Data))
	}
	sessions := m.List()
	if len(sessions) != 1 {
		t.Fatalf("%d sessions, want 1", len(sessions))
	}
	sess := sessions[0]
	// Coordinates are pixels of the screenshot just returned.
	scale := float64(1024) / float64(cfg.Width)
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "left_click", Arguments: map[string]any{"coordinate": []int{100, 50}}})
	if err != nil || res.IsError {
		t.Fatalf("left_click: %v %s", err, text(res))
	}
	out, _ := sess.Exec(ctx, wire.ExecRequest{Cmd: []string{"xdotool", "getmouselocation", "--shell"}})
	wantX, wantY := int(100*scale+0.5), int(50*scale+0.5)
	if !strings.Contains(out.Stdout, "X="+itoa(wantX)+"\n") || !strings.Contains(out.Stdout, "Y="+itoa(wantY)+"\n") {
		t.Errorf("after left_click [100,50] (scale %.3f) xdotool says %q", scale, out.Stdout)
	}
	// A batch stops at the first error and says which.
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "computer_batch", Arguments: map[string]any{"actions": []any{
		map[string]any{"action": "mouse_move", "coordinate": []int{10, 10}},
		map[string]any{"action": "mouse_move", "coordinate": []int{99999, 10}},
		map[string]any{"action": "mouse_move", "coordinate": []int{20, 20}},
	}}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "action 2 of 3") {
		t.Errorf("batch: %v %+v %s", err, res, text(res))
	}
	if p, _ := sess.Cursor(ctx); p.X != int(10*scale+0.5) {
		t.Errorf("the batch's first action did not run, or the third did: cursor %v", p)
	}
	raw, _ := json.Marshal(res)
	if !bytes.Contains(raw, []byte(`"isError":true`)) {
		t.Errorf("tool error not flagged on the wire: %s", raw)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(m.List()) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(m.List()); n != 0 {
		t.Errorf("%d sessions left after the client disconnected", n)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
