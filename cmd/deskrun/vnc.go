package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// vnc answers `deskrun sessions vnc ID`: a local TCP port whose every
// connection is a live view of the session (its RFB stream, relayed
// over the server's GET /v1/sessions/{id}/vnc WebSocket), so that native
// viewers connect to it. It runs until ctx ends (an interrupt).
func (sc *sessionsCmd) vnc(ctx context.Context, args []string) error {
	fs := sc.flags("vnc")
	listen := fs.String("listen", "127.0.0.1:5901", "local address to listen on")
	viewOnly := fs.Bool("view-only", false, "drop the viewers' keys and pointer")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("vnc", pos, 1, 1, "a session id"); err != nil {
		return err
	}
	id := pos[0]
	c := sc.client()
	if _, err := c.Session(ctx, id); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return usagef("--listen: %v", err)
	}
	defer ln.Close()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	fmt.Fprintf(sc.stderr, "session %s's live view on %s (vncviewer %s::%s); Ctrl-C ends it\n", id, ln.Addr(), host, port)
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("accept: %w", err)
		}
		wg.Go(func() {
			defer conn.Close()
			if err := forward(ctx, conn, func(ctx context.Context) (net.Conn, error) { return c.DialVNC(ctx, id, *viewOnly) }); err != nil {
				fmt.Fprintf(sc.stderr, "viewer %s: %v\n", conn.RemoteAddr(), err)
			}
		})
	}
}

// forward relays the bytes of local and of a stream dial opens until
// either side closes or ctx ends.
func forward(ctx context.Context, local net.Conn, dial func(context.Context) (net.Conn, error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	remote, err := dial(ctx)
	if err != nil {
		return err
	}
	defer remote.Close()
	stop := context.AfterFunc(ctx, func() { local.Close(); remote.Close() })
	defer stop()
	errc := make(chan error, 2)
	go func() { _, err := io.Copy(remote, local); errc <- err; cancel() }()
	go func() { _, err := io.Copy(local, remote); errc <- err; cancel() }()
	err = <-errc
	<-errc
	if err != nil && (errors.Is(err, net.ErrClosed) || errors.Is(err, context.Canceled) || ctx.Err() != nil) {
		return nil
	}
	return err
}
