package wire

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/x11/internal/xvfbtest"
)

func TestParseDisplay(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Display
	}{
		{":0", Display{Network: "unix", Address: "/tmp/.X11-unix/X0", Number: "0"}},
		{":12.0", Display{Network: "unix", Address: "/tmp/.X11-unix/X12", Number: "12"}},
		{"unix:3", Display{Network: "unix", Address: "/tmp/.X11-unix/X3", Number: "3"}},
		{"localhost:10.0", Display{Network: "tcp", Address: "localhost:6010", Host: "localhost", Number: "10"}},
		{"tcp/10.0.0.2:1", Display{Network: "tcp", Address: "10.0.0.2:6001", Host: "10.0.0.2", Number: "1"}},
		{"[::1]:2", Display{Network: "tcp", Address: "[::1]:6002", Host: "::1", Number: "2"}},
		{"/tmp/.X11-unix/X7", Display{Network: "unix", Address: "/tmp/.X11-unix/X7", Number: "7"}},
		{"/private/tmp/launch-x/org.xquartz:0", Display{Network: "unix", Address: "/private/tmp/launch-x/org.xquartz", Number: "0"}},
	} {
		got, err := ParseDisplay(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseDisplay(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "0", "host", ":x", ":-1", ":99999"} {
		if _, err := ParseDisplay(bad); err == nil || !strings.Contains(err.Error(), "want [host]:number[.screen]") {
			t.Errorf("ParseDisplay(%q): err %v, want one saying the form", bad, err)
		}
	}
}

// authEntryBytes encodes one Xauthority entry.
func authEntryBytes(family uint16, addr, num, name string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, family)
	for _, f := range [][]byte{[]byte(addr), []byte(num), []byte(name), data} {
		binary.Write(&b, binary.BigEndian, uint16(len(f)))
		b.Write(f)
	}
	return b.Bytes()
}

func TestFindCookie(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "Xauthority")
	var b bytes.Buffer
	b.Write(authEntryBytes(familyLocal, host, "1", "XDM-AUTHORIZATION-1", []byte("xdm"))) // other scheme
	b.Write(authEntryBytes(familyLocal, "elsewhere", "1", cookieName, []byte("remote")))  // other machine
	b.Write(authEntryBytes(familyLocal, host, "2", cookieName, []byte("two")))
	b.Write(authEntryBytes(familyLocal, host, "1", cookieName, []byte("one")))
	b.Write(authEntryBytes(familyInternet, string([]byte{10, 0, 0, 2}), "1", cookieName, []byte("ten")))
	b.Write(authEntryBytes(familyWild, "", "5", cookieName, []byte("wild")))
	if err := os.WriteFile(file, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		display, want string
	}{
		{":1", "one"},
		{":2.0", "two"},
		{"localhost:1", "one"}, // loopback counts as this machine
		{"10.0.0.2:1", "ten"},
		{":5", "wild"},
		{":3", ""},
		{"10.0.0.3:1", ""},
	} {
		d, err := ParseDisplay(c.display)
		if err != nil {
			t.Fatal(err)
		}
		name, data := findCookie(file, d)
		if string(data) != c.want || (c.want != "" && name != cookieName) {
			t.Errorf("%s: cookie %q %q, want %q", c.display, name, data, c.want)
		}
	}
	if name, data := findCookie(filepath.Join(t.TempDir(), "missing"), Display{Network: "unix", Number: "1"}); name != "" || data != nil {
		t.Errorf("missing file: %q %q", name, data)
	}
	// A truncated file yields the entries before the cut and nothing else.
	if err := os.WriteFile(file, b.Bytes()[:b.Len()-3], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, data := findCookie(file, Display{Network: "unix", Number: "5"}); data != nil {
		t.Errorf("truncated entry read as %q", data)
	}
}

func dialXTEST(t *testing.T, display string) *Conn {
	t.Helper()
	c, err := Dial(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.InitXTEST(); err != nil {
		t.Fatal(err)
	}
	return c
}

// pointer asks xdotool, a program of its own, where the pointer is.
func pointer(t *testing.T, display string) string {
	t.Helper()
	var x, y int
	out := xvfbtest.Run(t, display, "xdotool", "getmouselocation")
	if _, err := fmt.Sscanf(out, "x:%d y:%d", &x, &y); err != nil {
		t.Fatalf("xdotool getmouselocation said %q: %v", out, err)
	}
	return fmt.Sprintf("%d,%d", x, y)
}

func TestFakeInputAndCheck(t *testing.T) {
	d := xvfbtest.Start(t, "640x480x24")
	c := dialXTEST(t, d)
	if err := c.Check(); err != nil || c.Pending() != 0 {
		t.Fatalf("Check with nothing queued: %v, %d pending", err, c.Pending())
	}
	// Root None means the screen the pointer is on.
	c.FakeInput(MotionNotify, 0, 0, 10, 20)
	c.FakeInput(MotionNotify, 0, 0, 123, 45)
	if c.Pending() != 2 {
		t.Fatalf("Pending = %d, want 2", c.Pending())
	}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	if got := pointer(t, d); got != "123,45" {
		t.Errorf("pointer at %s after Check, want 123,45", got)
	}

	// Keycode 0 is below every server's minimum: the server refuses that
	// request alone and carries on with the next.
	c.FakeInput(MotionNotify, 0, 0, 1, 1)
	c.FakeInput(KeyPress, 0, 0, 0, 0)
	c.FakeInput(MotionNotify, 0, 0, 300, 200)
	err := c.Check()
	var xerr *Error
	if !errors.As(err, &xerr) || xerr.Code != 2 || xerr.Seq != c.seq-2 {
		t.Fatalf("Check = %v, want BadValue for the second request (seq %d)", err, c.seq-2)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "BadValue (value 0) for request ") {
		t.Errorf("error text %q", msg)
	}
	if got := pointer(t, d); got != "300,200" {
		t.Errorf("pointer at %s, want 300,200 (the request after the refused one)", got)
	}
	// The error is reported once; the next batch is clean.
	c.FakeInput(MotionNotify, 0, 0, 5, 6)
	if err := c.Check(); err != nil {
		t.Fatalf("next batch: %v", err)
	}
}

// TestSequenceNumbersWrap sends more requests than 16-bit sequence numbers
// count, then checks that a refusal is still matched to its batch.
func TestSequenceNumbersWrap(t *testing.T) {
	d := xvfbtest.Start(t, "640x480x24")
	c := dialXTEST(t, d)
	for i := range 70000 {
		c.FakeInput(MotionNotify, 0, 0, int16(i%600), int16(i%400))
		if c.Pending() == 500 {
			if err := c.Check(); err != nil {
				t.Fatalf("after %d requests: %v", i, err)
			}
		}
	}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	c.FakeInput(MotionNotify, 0, 0, 7, 8)
	c.FakeInput(ButtonPress, 0, 0, 0, 0) // button 0 does not exist
	var xerr *Error
	if err := c.Check(); !errors.As(err, &xerr) || xerr.Code != 2 {
		t.Fatalf("after the wrap: %v, want BadValue", err)
	}
	if got := pointer(t, d); got != "7,8" {
		t.Errorf("pointer at %s, want 7,8", got)
	}
}

// TestEventsAreDropped changes the keyboard map from another program, so
// the server sends this connection MappingNotify events, which reads
// must skip to find the answers.
func TestEventsAreDropped(t *testing.T) {
	d := xvfbtest.Start(t, "640x480x24")
	c := dialXTEST(t, d)
	for i := range 5 {
		xvfbtest.Run(t, d, "xmodmap", "-e", fmt.Sprintf("keycode 250 = F%d", i+1))
		c.FakeInput(MotionNotify, 0, 0, int16(10+i), 10)
		if err := c.Check(); err != nil {
			t.Fatal(err)
		}
	}
	if got := pointer(t, d); got != "14,10" {
		t.Errorf("pointer at %s, want 14,10", got)
	}
}

// TestAuthorization runs an X server that admits only holders of a
// cookie: without the cookie the connection is refused with the server's
// reason, with $XAUTHORITY naming a file that has it, it is admitted.
func TestAuthorization(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	cookie := make([]byte, 16)
	rand.Read(cookie)
	file := filepath.Join(t.TempDir(), "Xauthority")
	if err := os.WriteFile(file, authEntryBytes(familyLocal, host, "", cookieName, cookie), 0o600); err != nil {
		t.Fatal(err)
	}
	d := xvfbtest.Start(t, "640x480x24", "-auth", file)

	t.Setenv("XAUTHORITY", filepath.Join(t.TempDir(), "none"))
	if c, err := Dial(d); err == nil {
		c.Close()
		t.Fatal("connected without the cookie")
	} else if !strings.Contains(err.Error(), "server refused the connection") {
		t.Errorf("without the cookie: %v", err)
	}

	t.Setenv("XAUTHORITY", file) // for xdotool below too
	c := dialXTEST(t, d)
	c.FakeInput(MotionNotify, 0, 0, 33, 44)
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	if got := pointer(t, d); got != "33,44" {
		t.Errorf("pointer at %s, want 33,44", got)
	}
}
