package server

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
)

// TestOSWorldSession creates a session with "osworld": true over REST:
// the session object names loopback addresses that answer OSWorld's
// routes without a token, and they close when the session is deleted.
func TestOSWorldSession(t *testing.T) {
	c, base := localServer(t)
	a := call(t, base, "POST", "/v1/sessions", testToken, `{"provider":"local","osworld":true}`)
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	conform(t, "Session", a.body)
	var s api.Session
	if err := json.Unmarshal(a.body, &s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.DeleteSession(context.Background(), s.ID) })
	if s.OSWorld == nil {
		t.Fatalf("no osworld addresses in %s", a.body)
	}
	addrs := []string{s.OSWorld.Server, s.OSWorld.Chromium, s.OSWorld.VLC}
	for _, addr := range addrs {
		if !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Errorf("address %q is not on 127.0.0.1", addr)
		}
	}
	got := call(t, base, "GET", "/v1/sessions/"+s.ID, testToken, "")
	conform(t, "Session", got.body)
	if !strings.Contains(string(got.body), s.OSWorld.Server) {
		t.Errorf("GET does not name the osworld server: %s", got.body)
	}
	// No token: OSWorld's controllers send none.
	resp, err := http.Post("http://"+s.OSWorld.Server+"/execute", "application/json", strings.NewReader(`{"command":["echo","hi"]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"output":"hi\n"`) {
		t.Errorf("/execute: %d %s", resp.StatusCode, b)
	}
	// A session without the flag has none.
	plain := call(t, base, "POST", "/v1/sessions", testToken, `{"provider":"local"}`)
	if strings.Contains(string(plain.body), "osworld") {
		t.Errorf("plain session names osworld: %s", plain.body)
	}
	var ps api.Session
	_ = json.Unmarshal(plain.body, &ps)
	_ = c.DeleteSession(context.Background(), ps.ID)

	if err := c.DeleteSession(context.Background(), s.ID); err != nil {
		t.Fatal(err)
	}
	for _, addr := range addrs {
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			t.Errorf("%s still accepts after the session ended", addr)
		}
	}
}
