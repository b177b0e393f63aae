package agentd

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/containerd/errdefs"
)

// TestPortTunnel relays a TCP stream to a port of the sandbox's loopback
// and refuses what is not a tunnel request.
func TestPortTunnel(t *testing.T) {
	_, c := start(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer conn.Close(); io.Copy(conn, conn) }()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	rwc, err := c.DialPort(context.Background(), port)
	if err != nil {
		t.Fatal(err)
	}
	msg := bytes.Repeat([]byte("tunnel "), 20000)
	go rwc.Write(msg)
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(rwc, got); err != nil || !bytes.Equal(got, msg) {
		t.Errorf("echo: %d bytes, %v", len(got), err)
	}
	rwc.Close()

	// Nothing listens: unavailable.
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln2.Addr().(*net.TCPAddr).Port
	ln2.Close()
	if _, err := c.DialPort(context.Background(), closed); !errdefs.IsUnavailable(err) {
		t.Errorf("closed port: %v, want unavailable", err)
	}
	if _, err := c.DialPort(context.Background(), 70000); !errdefs.IsInvalidArgument(err) {
		t.Errorf("port 70000: %v, want invalid argument", err)
	}
	// A plain GET, without the upgrade headers, is refused.
	req, _ := http.NewRequest("GET", c.BaseURL()+"/v1/ports/"+strconv.Itoa(port), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	hc := &http.Client{Timeout: 5 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("plain GET: %d, want 400", resp.StatusCode)
	}
}
