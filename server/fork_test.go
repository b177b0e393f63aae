package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/client"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
)

// TestForkPauseRefused: on a provider that cannot snapshot (local), fork,
// pause and resume answer as the contract says, the session untouched: a
// count out of range is a 400 naming count, fork and pause a 501 naming
// the provider and runtime that can, resume of a session not paused a
// 409, an unknown session a 404. (Forks that work are e2e's
// TestSnapshot* on docker under runsc-snap.)
func TestForkPauseRefused(t *testing.T) {
	agentdtest.NeedX(t, "openbox")
	p, err := local.New(agentdtest.Agentd(t), "openbox")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(NewServer(Config{Manager: m, Token: testToken, Logger: log}))
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		m.Close(ctx)
		p.Close(ctx)
	})
	s, err := client.NewClient(ts.URL, testToken, testClient).CreateSession(t.Context(), api.CreateSessionRequest{Provider: "local"})
	if err != nil {
		t.Fatal(err)
	}
	base := "/v1/sessions/" + s.ID
	for _, body := range []string{`{"count":0}`, `{"count":17}`, `{}`} {
		checkError(t, call(t, ts.URL, http.MethodPost, base+"/fork", testToken, body), http.StatusBadRequest, api.CodeInvalidArgument, "count")
	}
	checkError(t, call(t, ts.URL, http.MethodPost, base+"/fork", testToken, `{"count":2}`), http.StatusNotImplemented, api.CodeNotImplemented, "runsc-snap")
	checkError(t, call(t, ts.URL, http.MethodPost, base+"/pause", testToken, ``), http.StatusNotImplemented, api.CodeNotImplemented, "docker provider")
	checkError(t, call(t, ts.URL, http.MethodPost, base+"/resume", testToken, ``), http.StatusConflict, api.CodeConflict, "not paused")
	checkError(t, call(t, ts.URL, http.MethodPost, "/v1/sessions/nope/fork", testToken, `{"count":1}`), http.StatusNotFound, api.CodeNotFound, "nope")
	if got := len(m.List()); got != 1 {
		t.Errorf("%d sessions after the refused calls, want 1", got)
	}
	if a := call(t, ts.URL, http.MethodGet, base+"/cursor", testToken, ""); a.status != http.StatusOK {
		t.Errorf("the session after the refused calls: %d %s", a.status, a.body)
	}
}
