package x11

import (
	"testing"
	"time"

	"github.com/deskrun/deskrun/x11/internal/xvfbtest"
)

func startXvfb(t testing.TB, size string) string { return xvfbtest.Start(t, size) }

func run(t testing.TB, display string, name string, args ...string) string {
	t.Helper()
	return xvfbtest.Run(t, display, name, args...)
}

func dial(t testing.TB, display string) *Conn {
	t.Helper()
	c, err := Dial(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitFor polls cond until it holds or the deadline passes. It bounds how
// long a test waits for another program; it asserts nothing about speed.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
