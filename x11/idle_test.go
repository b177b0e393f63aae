package x11

import (
	"testing"
	"time"
)

// SinceInput counts from the last input of any client: xdotool's keys,
// sent through its own connection, reset it.
func TestSinceInputSeesOtherClients(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Xvfb")
	}
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	time.Sleep(400 * time.Millisecond)
	idle, err := c.SinceInput()
	if err != nil {
		t.Fatal(err)
	}
	if idle < 300*time.Millisecond {
		t.Fatalf("no input yet, but SinceInput = %v", idle)
	}
	run(t, d, "xdotool", "key", "a")
	idle, err = c.SinceInput()
	if err != nil {
		t.Fatal(err)
	}
	if idle > 200*time.Millisecond {
		t.Errorf("xdotool just pressed a key, but SinceInput = %v", idle)
	}
}
