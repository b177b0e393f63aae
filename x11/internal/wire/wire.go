// Package wire speaks the X11 protocol directly on a socket, for the one
// path whose latency matters most: injecting input through XTEST and
// learning in the same round trip whether the server took it.
//
// xgb hands every request to a sending goroutine and every reply to the
// caller through a reading goroutine, several goroutine switches per round
// trip, each a thread wake-up when the runtime has idle processors. A Conn
// here writes a whole batch of requests and the request that answers for
// them in one write, and reads the answer on the caller's goroutine. It
// implements connection setup with MIT-MAGIC-COOKIE-1 authorization,
// QueryExtension, XTEST FakeInput and GetInputFocus, nothing else; events
// the server sends every client (MappingNotify) are read and dropped.
package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Timeout bounds one round trip: a server that does not answer within it
// is treated as gone.
const Timeout = 10 * time.Second

// Conn is one connection to an X server. It is not safe for concurrent
// use: its owner serializes calls.
type Conn struct {
	nc  net.Conn
	r   *bufio.Reader
	buf []byte // requests not yet written

	seq      uint16 // sequence number of the last request queued
	firstSeq uint16 // sequence number of the first request not yet checked
	pending  int    // requests queued since the last Check

	xtest byte // XTEST's major opcode, 0 until InitXTEST
}

// Dial connects to display (":0", ":0.0", "unix:1", "host:2", or a socket
// path such as "/tmp/.X11-unix/X0") and completes the connection setup,
// authorizing with the display's MIT-MAGIC-COOKIE-1 from $XAUTHORITY (or
// ~/.Xauthority) when the file has one.
func Dial(display string) (*Conn, error) {
	d, err := ParseDisplay(display)
	if err != nil {
		return nil, err
	}
	nc, err := net.DialTimeout(d.Network, d.Address, Timeout)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", display, err)
	}
	c := &Conn{nc: nc, r: bufio.NewReaderSize(nc, 4096)}
	name, data := findCookie(authFile(), d)
	if err := c.setup(name, data); err != nil {
		nc.Close()
		return nil, fmt.Errorf("connect to %s: %w", display, err)
	}
	return c, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// Display is where a display name leads.
type Display struct {
	Network, Address string // for net.Dial
	Host             string // "" for a local socket
	Number           string // the display number, as Xauthority files record it
}

// ParseDisplay reads a display name as Xlib does: [host]:number[.screen],
// "unix" or no host meaning the local socket /tmp/.X11-unix/X<number>, any
// other host TCP port 6000+number; a name starting with "/" is a socket
// path, optionally followed by ":number" or ".screen".
func ParseDisplay(name string) (Display, error) {
	bad := func() (Display, error) {
		return Display{}, fmt.Errorf("display %q: want [host]:number[.screen]", name)
	}
	if strings.HasPrefix(name, "/") {
		path, num := name, ""
		if i := strings.LastIndexByte(name, ':'); i > 0 {
			path, num = name[:i], name[i+1:]
			if j := strings.IndexByte(num, '.'); j >= 0 {
				num = num[:j]
			}
		} else if i := strings.LastIndexByte(name, 'X'); i >= 0 {
			num = name[i+1:] // /tmp/.X11-unix/X0
		}
		return Display{Network: "unix", Address: path, Number: num}, nil
	}
	i := strings.LastIndexByte(name, ':')
	if i < 0 {
		return bad()
	}
	host, rest := name[:i], name[i+1:]
	host = strings.TrimPrefix(host, "tcp/")
	host = strings.TrimPrefix(strings.TrimSuffix(host, "]"), "[")
	num := rest
	if j := strings.IndexByte(rest, '.'); j >= 0 {
		num = rest[:j]
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || n > 65535-6000 {
		return bad()
	}
	if host == "" || host == "unix" {
		return Display{Network: "unix", Address: "/tmp/.X11-unix/X" + num, Number: num}, nil
	}
	return Display{Network: "tcp", Address: net.JoinHostPort(host, strconv.Itoa(6000+n)), Host: host, Number: num}, nil
}

// setup sends the connection setup with the given authorization and
// reads the server's answer, keeping nothing of it: the caller knows the
// screen from its other connection.
func (c *Conn) setup(authName string, authData []byte) error {
	req := make([]byte, 12, 12+pad(len(authName))+pad(len(authData)))
	req[0] = 'l' // little endian
	binary.LittleEndian.PutUint16(req[2:], 11)
	binary.LittleEndian.PutUint16(req[6:], uint16(len(authName)))
	binary.LittleEndian.PutUint16(req[8:], uint16(len(authData)))
	req = appendPadded(req, []byte(authName))
	req = appendPadded(req, authData)
	c.nc.SetDeadline(time.Now().Add(Timeout))
	defer c.nc.SetDeadline(time.Time{})
	if _, err := c.nc.Write(req); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	var hdr [8]byte
	if _, err := io.ReadFull(c.r, hdr[:]); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	rest := make([]byte, int(binary.LittleEndian.Uint16(hdr[6:]))*4)
	if _, err := io.ReadFull(c.r, rest); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	switch hdr[0] {
	case 1:
		return nil
	case 0: // failed: reason of hdr[1] bytes
		return fmt.Errorf("server refused the connection: %s", strings.TrimSpace(string(rest[:min(int(hdr[1]), len(rest))])))
	default: // 2, authenticate: the reason fills the additional data
		return fmt.Errorf("server asks for further authentication: %s", strings.TrimRight(string(rest), "\x00 \n"))
	}
}

// InitXTEST looks up the XTEST extension; FakeInput needs it.
func (c *Conn) InitXTEST() error {
	const name = "XTEST"
	req := make([]byte, 8, 8+pad(len(name)))
	req[0] = 98 // QueryExtension
	binary.LittleEndian.PutUint16(req[4:], uint16(len(name)))
	req = appendPadded(req, []byte(name))
	binary.LittleEndian.PutUint16(req[2:], uint16(len(req)/4))
	reply, err := c.roundTrip(req)
	if err != nil {
		return fmt.Errorf("query extension XTEST: %w", err)
	}
	if reply[8] == 0 {
		return errors.New("the X server has no XTEST extension")
	}
	c.xtest = reply[9]
	return nil
}

// Event types of the core protocol that FakeInput takes.
const (
	KeyPress      = 2
	KeyRelease    = 3
	ButtonPress   = 4
	ButtonRelease = 5
	MotionNotify  = 6
)

// FakeInput queues an XTEST FakeInput request: typ is one of the event
// types above, detail the keycode or button, (x, y) the position on root
// for MotionNotify. Nothing is written until Check.
func (c *Conn) FakeInput(typ, detail byte, root uint32, x, y int16) {
	var r [36]byte
	r[0] = c.xtest
	r[1] = 2 // FakeInput
	binary.LittleEndian.PutUint16(r[2:], 9)
	r[4] = typ
	r[5] = detail
	binary.LittleEndian.PutUint32(r[12:], root)
	binary.LittleEndian.PutUint16(r[24:], uint16(x))
	binary.LittleEndian.PutUint16(r[26:], uint16(y))
	c.queue(r[:])
}

// Pending reports how many requests are queued and not yet checked.
func (c *Conn) Pending() int { return c.pending }

// Check writes the queued requests and a GetInputFocus in one write and
// reads until GetInputFocus is answered: by then the server has processed
// every queued request. It returns the error the server reported for the
// first of them that failed. With nothing queued it returns at once.
func (c *Conn) Check() error {
	if c.pending == 0 {
		return nil
	}
	_, err := c.roundTrip([]byte{43, 0, 1, 0}) // GetInputFocus
	return err
}

func (c *Conn) queue(req []byte) {
	c.seq++
	if c.pending == 0 {
		c.firstSeq = c.seq
	}
	c.pending++
	c.buf = append(c.buf, req...)
}

// roundTrip writes the queued requests and req, whose answer is a reply,
// in one write, and reads until that answer arrives: the reply's first 32
// bytes, or the error the server reported for the first of the requests
// that failed. Events, and errors and replies of earlier requests, are
// dropped.
func (c *Conn) roundTrip(req []byte) ([]byte, error) {
	first, n := c.firstSeq, c.pending
	c.pending = 0
	c.buf = append(c.buf, req...)
	c.seq++
	last := c.seq
	buf := c.buf
	c.buf = c.buf[:0]
	c.nc.SetDeadline(time.Now().Add(Timeout))
	if _, err := c.nc.Write(buf); err != nil {
		return nil, err
	}
	var failed error
	var p [32]byte
	for {
		if _, err := io.ReadFull(c.r, p[:]); err != nil {
			return nil, err
		}
		seq := binary.LittleEndian.Uint16(p[2:])
		switch {
		case p[0] == 0: // error
			if failed == nil && (seq == last || seq-first < uint16(n)) {
				failed = newError(p[:])
			}
			if seq == last {
				return nil, failed
			}
		case p[0] == 1: // reply
			if err := c.discard(binary.LittleEndian.Uint32(p[4:])); err != nil {
				return nil, err
			}
			if seq == last {
				if failed != nil {
					return nil, failed
				}
				return p[:], nil
			}
		case p[0]&0x7f == 35: // GenericEvent, longer than 32 bytes
			if err := c.discard(binary.LittleEndian.Uint32(p[4:])); err != nil {
				return nil, err
			}
		}
	}
}

// discard skips n 4-byte units following a 32-byte packet.
func (c *Conn) discard(n uint32) error {
	_, err := c.r.Discard(int(n) * 4)
	return err
}

// Error is an error the X server reported for a request.
type Error struct {
	Code  byte
	Seq   uint16
	Value uint32 // the bad value, resource id or atom, where the code has one
	Major byte
	Minor uint16
}

var errorNames = [...]string{
	1: "BadRequest", 2: "BadValue", 3: "BadWindow", 4: "BadPixmap", 5: "BadAtom",
	6: "BadCursor", 7: "BadFont", 8: "BadMatch", 9: "BadDrawable", 10: "BadAccess",
	11: "BadAlloc", 12: "BadColormap", 13: "BadGContext", 14: "BadIDChoice",
	15: "BadName", 16: "BadLength", 17: "BadImplementation",
}

func newError(p []byte) *Error {
	return &Error{
		Code:  p[1],
		Seq:   binary.LittleEndian.Uint16(p[2:]),
		Value: binary.LittleEndian.Uint32(p[4:]),
		Minor: binary.LittleEndian.Uint16(p[8:]),
		Major: p[10],
	}
}

func (e *Error) Error() string {
	name := fmt.Sprintf("error %d", e.Code)
	if int(e.Code) < len(errorNames) && errorNames[e.Code] != "" {
		name = errorNames[e.Code]
	}
	return fmt.Sprintf("%s (value %d) for request %d.%d", name, e.Value, e.Major, e.Minor)
}

func pad(n int) int { return (n + 3) &^ 3 }

func appendPadded(b, data []byte) []byte {
	b = append(b, data...)
	return append(b, make([]byte, pad(len(data))-len(data))...)
}

// authFile is the Xauthority file Xlib would read.
func authFile() string {
	if f := os.Getenv("XAUTHORITY"); f != "" {
		return f
	}
	if home, err := os.UserHomeDir(); err == nil {
		return home + "/.Xauthority"
	}
	return ""
}
