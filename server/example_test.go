package server_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/client"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/fake"
	"github.com/deskrun/deskrun/sandbox/local"
	"github.com/deskrun/deskrun/server"
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
	h := server.NewServer(server.Config{Manager: m, Token: os.Getenv("DESKRUN_TOKEN")})
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", h))
}

// Driving a desktop: start a session, open a terminal, type into it and
// look at the result.
func ExampleClient() {
	c := client.NewClient("http://127.0.0.1:8080", os.Getenv("DESKRUN_TOKEN"), nil)
	ctx := context.Background()
	s, err := c.CreateSession(ctx, api.CreateSessionRequest{Screen: api.Screen{Width: 1024, Height: 768}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.DeleteSession(ctx, s.ID)
	if _, err := c.Exec(ctx, s.ID, api.ExecRequest{Cmd: []string{"sh", "-c", "xterm -geometry 80x20+100+100 & sleep 1"}}); err != nil {
		log.Fatal(err)
	}
	if _, err := c.Input(ctx, s.ID, []api.Action{
		{Type: api.ActionClick, X: api.Int(300), Y: api.Int(200)},
		{Type: api.ActionType, Text: "echo hello > /tmp/hello"},
		{Type: api.ActionKey, Keys: []string{"Return"}},
	}); err != nil {
		log.Fatal(err)
	}
	shot, err := c.Screenshot(ctx, s.ID, api.ScreenshotOptions{MaxWidth: 800})
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("shot.png", shot.Data, 0o644); err != nil {
		log.Fatal(err)
	}
}

// Listing the tools of a dialect (level 1) and reading one tool's whole
// definition (level 2).
func ExampleClient_Tools() {
	// Tool definitions need no sandbox: a fake provider will do.
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": fake.New(fake.Config{})}})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(server.NewServer(server.Config{Manager: m}))
	defer srv.Close()
	c := client.NewClient(srv.URL, "", nil)
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
