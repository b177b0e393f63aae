package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
)

// freePort returns a loopback port nothing listens on (the local
// provider's sandboxes share the host's loopback).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// echoUpgrade serves one kind of request: an HTTP/1.1 upgrade to
// "websocket", answered 101, after which it echoes every byte back.
func echoUpgrade(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil || !strings.EqualFold(req.Header.Get("Upgrade"), "websocket") {
					io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
					return
				}
				io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
				io.Copy(c, br)
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestExposedPorts reaches an HTTP server and an upgraded (WebSocket)
// stream inside a sandbox through /v1/sessions/{id}/ports/{port}/, and
// checks the answers to bad input.
func TestExposedPorts(t *testing.T) {
	c, base := localServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	s, err := c.CreateSession(ctx, api.CreateSessionRequest{Provider: "local", Dialect: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello from the sandbox\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	if _, err := c.Exec(ctx, s.ID, api.ExecRequest{Cmd: []string{"sh", "-c", fmt.Sprintf("cd %s && python3 -m http.server %d --bind 127.0.0.1 >/dev/null 2>&1 &", dir, port)}}); err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/v1/sessions/%s/ports/%d/hello.txt", s.ID, port)
	var a answer
	deadline := time.Now().Add(20 * time.Second)
	for {
		a = call(t, base, "GET", path, testToken, "")
		if a.status == http.StatusOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if a.status != http.StatusOK || string(a.body) != "hello from the sandbox\n" {
		t.Fatalf("GET %s: %d %q", path, a.status, a.body)
	}
	// The directory listing links relative to the port's root.
	a = call(t, base, "GET", fmt.Sprintf("/v1/sessions/%s/ports/%d", s.ID, port), testToken, "")
	if a.status != http.StatusOK || !strings.Contains(string(a.body), `href="hello.txt"`) {
		t.Errorf("the port's root: %d %.200s", a.status, a.body)
	}

	// The sandbox dialect's expose_port answers a URL that works.
	res, err := c.CallTool(ctx, s.ID, "sandbox", "expose_port", map[string]any{"port": port})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("expose_port: %+v %v", res, err)
	}
	u := res.Content[0].Text
	if !strings.HasPrefix(u, base+"/") {
		t.Fatalf("expose_port answered %q, want a URL under %s", u, base)
	}
	a = call(t, base, "GET", strings.TrimPrefix(u, base)+"hello.txt", testToken, "")
	if a.status != http.StatusOK || string(a.body) != "hello from the sandbox\n" {
		t.Errorf("GET %shello.txt: %d %q", u, a.status, a.body)
	}
	res, err = c.CallTool(ctx, s.ID, "sandbox", "expose_port", map[string]any{"port": freePort(t)})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "nothing listens") {
		t.Errorf("expose_port of a closed port: %+v %v", res, err)
	}
	res, err = c.CallTool(ctx, s.ID, "sandbox", "expose_port", map[string]any{"port": 0})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "port") {
		t.Errorf("expose_port of port 0: %+v %v", res, err)
	}

	// Bad input.
	checkError(t, call(t, base, "GET", path, "", ""), 401, api.CodeUnauthorized, "")
	checkError(t, call(t, base, "GET", fmt.Sprintf("/v1/sessions/nope/ports/%d/", port), testToken, ""), 404, api.CodeNotFound, "nope")
	checkError(t, call(t, base, "GET", fmt.Sprintf("/v1/sessions/%s/ports/70000/", s.ID), testToken, ""), 400, api.CodeInvalidArgument, "port:")
	checkError(t, call(t, base, "GET", fmt.Sprintf("/v1/sessions/%s/ports/http/", s.ID), testToken, ""), 400, api.CodeInvalidArgument, "port:")
	closed := freePort(t)
	checkError(t, call(t, base, "GET", fmt.Sprintf("/v1/sessions/%s/ports/%d/", s.ID, closed), testToken, ""), 502, api.CodeUnavailable, fmt.Sprintf("port %d", closed))

	// An upgrade passes through both ways.
	ws := echoUpgrade(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(conn, "GET /v1/sessions/%s/ports/%d/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", s.ID, ws, testToken)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %s", resp.Status)
	}
	io.WriteString(conn, "ping over the tunnel")
	buf := make([]byte, len("ping over the tunnel"))
	if _, err := io.ReadFull(br, buf); err != nil || string(buf) != "ping over the tunnel" {
		t.Fatalf("echo: %q %v", buf, err)
	}

	// A settled screenshot passes its headers through.
	a = call(t, base, "GET", fmt.Sprintf("/v1/sessions/%s/screenshot?settle_ms=50&timeout_ms=2000", s.ID), testToken, "")
	if a.status != http.StatusOK || a.header.Get(api.HeaderSettled) == "" || a.header.Get(api.HeaderSettleMS) == "" {
		t.Errorf("settled screenshot: %d settled=%q settle_ms=%q", a.status, a.header.Get(api.HeaderSettled), a.header.Get(api.HeaderSettleMS))
	}
}
