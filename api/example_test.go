package api_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
)

// Serving the API, as deskrun serve does: a runner.Manager over sandbox
// providers, and the handler over the manager.
func ExampleNewServer() {
	p, err := local.New("bin/agentd", "openbox")
	if err != nil {
		log.Fatal(err)
	}
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close(context.Background())
	h := api.NewServer(api.Config{Manager: m, Token: os.Getenv("DESKRUN_TOKEN")})
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", h))
}

// Driving a desktop: start a session, open a terminal, type into it and
// look at the result.
func ExampleClient() {
	c := api.NewClient("http://127.0.0.1:8080", os.Getenv("DESKRUN_TOKEN"), nil)
	ctx := context.Background()
	s, err := c.CreateSession(ctx, wire.CreateSessionRequest{Screen: wire.Screen{Width: 1024, Height: 768}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.DeleteSession(ctx, s.ID)
	if _, err := c.Exec(ctx, s.ID, wire.ExecRequest{Cmd: []string{"sh", "-c", "xterm -geometry 80x20+100+100 & sleep 1"}}); err != nil {
		log.Fatal(err)
	}
	if _, err := c.Input(ctx, s.ID, []wire.Action{
		{Type: wire.ActionClick, X: wire.Int(300), Y: wire.Int(200)},
		{Type: wire.ActionType, Text: "echo hello > /tmp/hello"},
		{Type: wire.ActionKey, Keys: []string{"Return"}},
	}); err != nil {
		log.Fatal(err)
	}
	shot, err := c.Screenshot(ctx, s.ID, wire.ScreenshotOptions{MaxWidth: 800})
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("shot.png", shot.Data, 0o644); err != nil {
		log.Fatal(err)
	}
}

// noSandboxes is a provider that starts none: tool definitions need no
// sandbox.
type noSandboxes struct{}

func (noSandboxes) Start(context.Context, sandbox.Spec) (sandbox.Instance, error) {
	return sandbox.Instance{}, errors.New("no sandboxes here")
}
func (noSandboxes) Stop(context.Context, string) error { return nil }

// Listing the tools of a dialect (level 1) and reading one tool's whole
// definition (level 2).
func ExampleClient_Tools() {
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": noSandboxes{}}})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(api.NewServer(api.Config{Manager: m}))
	defer srv.Close()
	c := api.NewClient(srv.URL, "", nil)
	ctx := context.Background()

	l, err := c.Tools(ctx, "osworld")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(l.Dialect, l.Tools[0].Name, l.Tools[0].InputSchema.Type)
	def, err := c.ToolInfo(ctx, "osworld", l.Tools[0].Name)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(def.Name, len(def.Examples) > 0)
	// Output:
	// osworld desktop_mouse_move object
	// desktop_mouse_move true
}
