package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg"
	"image/png"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func manager(t *testing.T) *runner.Manager {
	t.Helper()
	p, err := local.New(agentdtest.Agentd(t), "")
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

// TestOverMCP drives a desktop with the SDK's own client over in-memory
// transports; TestStreamableHTTP and cmd/deskrun's TestMCPStdio use the
// real transports.
func TestOverMCP(t *testing.T) {
	m := manager(t)
	ctx := context.Background()
	srv, err := NewServer(m, Options{Dialect: "anthropic", Screen: api.Screen{Width: 1024, Height: 768}})
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
	if err != nil || cfg.Width == 0 {
		t.Errorf("screenshot image: %v %dx%d %d bytes", err, cfg.Width, cfg.Height, len(img.Data))
	}
	if raw, _ := json.Marshal(res); len(raw) > MaxResultBytes {
		t.Errorf("screenshot result is %d bytes on the wire, over %d", len(raw), MaxResultBytes)
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
	out, _ := sess.Exec(ctx, api.ExecRequest{Cmd: []string{"xdotool", "getmouselocation", "--shell"}})
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
	// The window tools of seeds/003 reach the session's windows.
	if _, err := sess.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", "setsid xmessage -title 'deskrun mcp' hello >/dev/null 2>&1 </dev/null &"}}); err != nil {
		t.Fatal(err)
	}
	call := func(name string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	deadline := time.Now().Add(20 * time.Second)
	for res = call("bind_window", map[string]any{"action": "bind", "title": "deskrun mcp"}); res.IsError; res = call("bind_window", map[string]any{"action": "bind", "title": "deskrun mcp"}) {
		if time.Now().After(deadline) {
			t.Fatalf("bind_window: %s", text(res))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if res = call("window_management", map[string]any{"action": "move_resize", "x": 50, "y": 60}); res.IsError {
		t.Errorf("window_management: %s", text(res))
	}
	ws, _ := sess.Windows(ctx)
	for _, w := range ws {
		if w.Title == "deskrun mcp" {
			if got, err := sess.Window(ctx, w.ID); err != nil || got.Bounds.X != 50 || got.Bounds.Y != 60 {
				t.Errorf("after move_resize the window is at %+v, %v", got.Bounds, err)
			}
		}
	}
	if res = call("teach_batch", map[string]any{"steps": []any{map[string]any{"explanation": "x", "next_preview": "y", "actions": []any{}}}}); !res.IsError || !strings.Contains(text(res), "teach mode is not available") {
		t.Errorf("teach_batch: %v %s", res.IsError, text(res))
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(20 * time.Second)
	for len(m.List()) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(m.List()); n != 0 {
		t.Errorf("%d sessions left after the client disconnected", n)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// connect opens an MCP connection to url with the SDK's streamable HTTP
// client.
func connect(t *testing.T, url string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() }) // before the server's Close, which waits for the streams
	return cs
}

// waitSessions waits until the manager has n sessions.
func waitSessions(t *testing.T, m *runner.Manager, n int, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(m.List()) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d sessions, want %d", what, len(m.List()), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pointer asks xdotool in the session's sandbox where the pointer is.
func pointer(t *testing.T, s *runner.Session) string {
	t.Helper()
	r, err := s.Exec(t.Context(), api.ExecRequest{Cmd: []string{"xdotool", "getmouselocation", "--shell"}})
	if err != nil {
		t.Fatal(err)
	}
	var x, y string
	for _, l := range strings.Split(r.Stdout, "\n") {
		if v, ok := strings.CutPrefix(l, "X="); ok {
			x = v
		}
		if v, ok := strings.CutPrefix(l, "Y="); ok {
			y = v
		}
	}
	return x + "," + y
}

// TestStreamableHTTP serves Handler over HTTP to two clients of the SDK
// at once: each connection gets a session of its own with the options of
// its URL, and closing a connection deletes its session only.
func TestStreamableHTTP(t *testing.T) {
	m := manager(t)
	ts := httptest.NewServer(Handler(m, Options{Screen: api.Screen{Width: 800, Height: 600}}))
	t.Cleanup(ts.Close)

	osw := connect(t, ts.URL+"/mcp?dialect=osworld&screen=640x480")
	ant := connect(t, ts.URL+"/mcp")
	tools, err := osw.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if len(names) != 13 || !slices.Contains(names, "desktop_mouse_move") || !slices.Contains(names, "get_tool_info") {
		t.Fatalf("osworld tools/list: %v", names)
	}
	res, err := osw.CallTool(t.Context(), &sdk.CallToolParams{Name: "desktop_mouse_move", Arguments: map[string]any{"x": 123, "y": 45}})
	if err != nil || res.IsError {
		t.Fatalf("desktop_mouse_move: %v %s", err, text(res))
	}
	// The OSWorld step envelope travels as structured content, the new
	// observation as an image.
	var step map[string]any
	if b, _ := json.Marshal(res.StructuredContent); json.Unmarshal(b, &step) != nil || step["done"] != false {
		t.Errorf("structured content %s", b)
	}
	if n := len(res.Content); n != 2 || res.Content[1].(*sdk.ImageContent).MIMEType == "" {
		t.Errorf("content %+v, want the envelope and the screenshot", res.Content)
	}
	res, err = osw.CallTool(t.Context(), &sdk.CallToolParams{Name: "desktop_mouse_click", Arguments: map[string]any{"x": 100}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "If 'x' is provided, 'y' must also be provided, and vice versa.") {
		t.Errorf("refused click: %v %s", err, text(res))
	}
	res, err = ant.CallTool(t.Context(), &sdk.CallToolParams{Name: "mouse_move", Arguments: map[string]any{"coordinate": []int{7, 8}}})
	if err != nil || res.IsError {
		t.Fatalf("anthropic mouse_move: %v %s", err, text(res))
	}
	waitSessions(t, m, 2, "two connections")
	byScreen := map[int]*runner.Session{}
	for _, s := range m.List() {
		byScreen[s.Info().Screen.Width] = s
	}
	if byScreen[640] == nil || byScreen[800] == nil || byScreen[640].Info().Dialect != "osworld" {
		t.Fatalf("sessions %v, want a 640x480 osworld one and an 800x600 one", m.List())
	}
	if got := pointer(t, byScreen[640]); got != "123,45" {
		t.Errorf("pointer of the osworld desktop %s, want 123,45", got)
	}
	if got := pointer(t, byScreen[800]); got != "7,8" {
		t.Errorf("pointer of the anthropic desktop %s, want 7,8", got)
	}

	if err := osw.Close(); err != nil {
		t.Fatal(err)
	}
	waitSessions(t, m, 1, "after the osworld client closed")
	if m.List()[0] != byScreen[800] {
		t.Errorf("the wrong session was deleted")
	}
	// Attaching to an existing session leaves it alone when closing.
	att := connect(t, ts.URL+"/mcp?session="+byScreen[800].ID())
	if res, err := att.CallTool(t.Context(), &sdk.CallToolParams{Name: "cursor_position"}); err != nil || res.IsError || !strings.Contains(text(res), "7") {
		t.Errorf("cursor_position on the attached session: %v %s", err, text(res))
	}
	att.Close()
	ant.Close()
	waitSessions(t, m, 0, "after the anthropic client closed")
}

// TestIdleTimeout: a client that vanishes without closing its connection
// loses its session after the idle timeout.
func TestIdleTimeout(t *testing.T) {
	m := manager(t)
	ts := httptest.NewServer(Handler(m, Options{IdleTimeout: time.Second}))
	t.Cleanup(ts.Close)
	cs := connect(t, ts.URL)
	if res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "cursor_position"}); err != nil || res.IsError {
		t.Fatalf("cursor_position: %v %s", err, text(res))
	}
	waitSessions(t, m, 1, "after the first call")
	waitSessions(t, m, 0, "once the connection idled")
}

// TestHandlerRefuses: options a connection cannot take are refused with
// an error naming the parameter, before any sandbox starts.
func TestHandlerRefuses(t *testing.T) {
	m := manager(t)
	ts := httptest.NewServer(Handler(m, Options{}))
	t.Cleanup(ts.Close)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	for _, tc := range []struct {
		query  string
		status int
		msg    string
	}{
		{"dialect=klingon", 400, `dialect: unknown dialect "klingon"`},
		{"screen=big", 400, `screen: want WxH in pixels, e.g. 1280x800, got "big"`},
		{"screen=0x600", 400, "screen: want WxH"},
		{"provider=kube", 400, `provider: "kube" is not configured (want one of local)`},
		{"session=nope", 404, `session: no session "nope"`},
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp?"+tc.query, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body api.ErrorBody
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || err != nil || !strings.Contains(body.Error.Message, tc.msg) {
			t.Errorf("%s: %d %+v %v, want %d with %q", tc.query, resp.StatusCode, body, err, tc.status, tc.msg)
		}
	}
	// The SDK's own refusals (an unknown Mcp-Session-Id, a body that is
	// not JSON) answer in the contract's shape too.
	for _, tc := range []struct {
		session, body string
		status        int
	}{
		{"no-such-session", initialize, 404},
		{"", "not json", 400},
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.session != "" {
			req.Header.Set("Mcp-Session-Id", tc.session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body api.ErrorBody
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || err != nil || body.Error.Code == "" || body.Error.Message == "" || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("session %q body %q: %d %+v %v, want %d in the contract's shape", tc.session, tc.body, resp.StatusCode, body, err, tc.status)
		}
	}
	// The SDK's client reports the refusal.
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	if _, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: ts.URL + "?dialect=klingon", MaxRetries: -1}, nil); err == nil || !strings.Contains(err.Error(), "Bad Request") {
		t.Errorf("connect with an unknown dialect: %v", err)
	}
	if n := len(m.List()); n != 0 {
		t.Errorf("%d sessions after refused connections", n)
	}
}

// TestFitImage: images over their share of MaxResultBytes are re-encoded
// as JPEG, then scaled down with a note, and never sent over the limit.
func TestFitImage(t *testing.T) {
	noise := func(w, h int) []byte {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range img.Pix {
			img.Pix[i] = byte(rng.Uint32())
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	small := noise(20, 10)
	if f, err := fitImage(small, "image/png", MaxResultBytes); err != nil || !bytes.Equal(f.data, small) || f.mime != "image/png" || f.note != "" {
		t.Errorf("a small image was changed: %v %s %q", err, f.mime, f.note)
	}
	big := noise(800, 500) // incompressible: JPEG alone cannot fit it
	const limit = 80 << 10
	f, err := fitImage(big, "image/png", limit)
	if err != nil {
		t.Fatal(err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(f.data))
	if err != nil || format != "jpeg" || f.mime != "image/jpeg" || len(f.data) > limit || cfg.Width >= 800 || cfg.Width < minScaledSide {
		t.Fatalf("fitted: %v %s %s %d bytes %dx%d", err, format, f.mime, len(f.data), cfg.Width, cfg.Height)
	}
	want := fmt.Sprintf("scaled down from 800x500 to %dx%d", cfg.Width, cfg.Height)
	if !strings.Contains(f.note, want) || !strings.Contains(f.note, "multiply positions read from it by") {
		t.Errorf("note %q, want it to say %q and the factor", f.note, want)
	}
	if _, err := fitImage(bytes.Repeat([]byte("x"), 2000), "image/svg+xml", 1000); err == nil || !strings.Contains(err.Error(), "cannot be re-encoded") {
		t.Errorf("undecodable image: %v", err)
	}

	// A whole result stays under MaxResultBytes, text included.
	res := toMCP(dialect.Result{Content: []dialect.Part{
		{Type: "text", Text: strings.Repeat("é", 400<<10)},
		{Type: "image", MIMEType: "image/png", Data: big},
		{Type: "image", MIMEType: "image/png", Data: big},
	}})
	raw, _ := json.Marshal(res)
	if len(raw) > MaxResultBytes {
		t.Errorf("result of %d bytes, over %d", len(raw), MaxResultBytes)
	}
	var images, notes int
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.ImageContent:
			images++
		case *sdk.TextContent:
			if strings.Contains(c.Text, "scaled down") {
				notes++
			}
		}
	}
	if images != 2 || notes != 2 {
		t.Errorf("%d images and %d notes, want 2 and 2", images, notes)
	}
}
