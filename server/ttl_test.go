package server

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
)

// TestSessionTTL: a session created with ttl_s reports its end time,
// POST .../ttl moves it, and the server deletes the session once it has
// passed.
func TestSessionTTL(t *testing.T) {
	_, base := localServer(t)
	a := call(t, base, "POST", "/v1/sessions", testToken, `{"provider":"local","ttl_s":600}`)
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	conform(t, "Session", a.body)
	var s api.Session
	if err := json.Unmarshal(a.body, &s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { call(t, base, "DELETE", "/v1/sessions/"+s.ID, testToken, "") })
	if want := s.CreatedAt.Add(600 * time.Second); !s.ExpiresAt.Equal(want) {
		t.Errorf("expires_at %v, want created_at + 600 s = %v", s.ExpiresAt, want)
	}

	for body, msg := range map[string]string{`{"ttl_s":0}`: "ttl_s", `{"ttl_s":86401}`: "ttl_s", `{}`: "ttl_s", `{"ttl":5}`: "ttl"} {
		checkError(t, call(t, base, "POST", "/v1/sessions/"+s.ID+"/ttl", testToken, body), 400, api.CodeInvalidArgument, msg)
	}
	checkError(t, call(t, base, "POST", "/v1/sessions/nope/ttl", testToken, `{"ttl_s":5}`), 404, api.CodeNotFound, "nope")
	checkError(t, call(t, base, "POST", "/v1/sessions", testToken, `{"provider":"local","ttl_s":-1}`), 400, api.CodeInvalidArgument, "ttl_s")

	before := time.Now()
	a = call(t, base, "POST", "/v1/sessions/"+s.ID+"/ttl", testToken, `{"ttl_s":1}`)
	if a.status != http.StatusOK {
		t.Fatalf("ttl: %d %s", a.status, a.body)
	}
	conform(t, "Session", a.body)
	var moved api.Session
	if err := json.Unmarshal(a.body, &moved); err != nil {
		t.Fatal(err)
	}
	if moved.ExpiresAt.Before(before.Add(time.Second)) || moved.ExpiresAt.After(time.Now().Add(time.Second)) {
		t.Errorf("expires_at %v, want a second after the call (%v)", moved.ExpiresAt, before)
	}
	// The reaper stops the sandbox once the second has passed; the
	// session then answers 404.
	for {
		a = call(t, base, "GET", "/v1/sessions/"+s.ID, testToken, "")
		if a.status == http.StatusNotFound {
			break
		}
		if time.Since(before) > time.Minute {
			t.Fatalf("session still answers %d a minute after its deadline", a.status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
