// Package mcp serves deskrun's tools over the Model Context Protocol with
// the official Go SDK: streamable HTTP (mounted at /mcp by deskrun serve)
// and stdio (deskrun mcp). Each MCP connection drives one deskrun session,
// created on its first tool call with the connection's options and
// deleted when the connection ends (unless it attached to a session that
// already existed). The tools are those of one dialect.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	_ "image/png" // decode screenshots to re-encode oversized ones
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/dialect"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxImageBytes bounds an image sent to a client. Larger screenshots are
// re-encoded as JPEG: common MCP clients refuse results of a few MiB.
const MaxImageBytes = 1 << 20

// Options choose a connection's session.
type Options struct {
	// Dialect names the tools served (default "anthropic").
	Dialect string
	// Provider, Image and Screen are those of the session created.
	Provider string
	Image    string
	Screen   wire.Screen
	// Session attaches to an existing deskrun session instead; it is not
	// deleted when the connection ends.
	Session string
	Logger  *slog.Logger
}

// NewServer returns an MCP server for one connection.
func NewServer(m *runner.Manager, o Options) (*sdk.Server, error) {
	if o.Dialect == "" {
		o.Dialect = "anthropic"
	}
	defs, ok := dialect.Definitions(o.Dialect)
	if !ok {
		return nil, fmt.Errorf("dialect: unknown dialect %q (want one of %s)", o.Dialect, strings.Join(dialect.Names(), ", "))
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	b := &binding{m: m, o: o}
	srv := sdk.NewServer(&sdk.Implementation{Name: "deskrun", Version: "v1"}, &sdk.ServerOptions{
		Instructions: "Tools of deskrun's " + o.Dialect + " dialect, driving one Linux desktop.",
		Capabilities: &sdk.ServerCapabilities{},
	})
	for _, d := range defs {
		var schema any = map[string]any{"type": "object"}
		if d.InputSchema != nil {
			schema = d.InputSchema
		}
		name := d.Name
		srv.AddTool(&sdk.Tool{Name: name, Description: d.Description, InputSchema: schema},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return b.call(ctx, req, name)
			})
	}
	return srv, nil
}

// binding is the deskrun session of one connection.
type binding struct {
	m *runner.Manager
	o Options

	mu   sync.Mutex
	sess *runner.Session
}

func (b *binding) session(ctx context.Context, req *sdk.CallToolRequest) (*runner.Session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sess != nil {
		return b.sess, nil
	}
	if b.o.Session != "" {
		s, err := b.m.Get(b.o.Session)
		if err != nil {
			return nil, err
		}
		b.sess = s
		return s, nil
	}
	s, err := b.m.Create(ctx, wire.CreateSessionRequest{Provider: b.o.Provider, Image: b.o.Image, Screen: b.o.Screen, Dialect: b.o.Dialect})
	if err != nil {
		return nil, err
	}
	b.sess = s
	b.o.Logger.Info("mcp: session created", "session", s.ID())
	if req.Session != nil {
		ss := req.Session
		go func() {
			_ = ss.Wait()
			b.close()
		}()
	}
	return s, nil
}

// close deletes the session the connection created.
func (b *binding) close() {
	b.mu.Lock()
	s := b.sess
	b.sess = nil
	b.mu.Unlock()
	if s != nil && b.o.Session == "" {
		_ = b.m.Delete(context.Background(), s.ID())
		b.o.Logger.Info("mcp: session deleted", "session", s.ID())
	}
}

func (b *binding) call(ctx context.Context, req *sdk.CallToolRequest, name string) (*sdk.CallToolResult, error) {
	s, err := b.session(ctx, req)
	if err != nil {
		return errorResult("no desktop: " + err.Error()), nil
	}
	args := json.RawMessage("{}")
	if req.Params != nil && len(req.Params.Arguments) > 0 {
		args = req.Params.Arguments
	}
	res, err := s.CallTool(ctx, b.o.Dialect, name, args)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	out := &sdk.CallToolResult{IsError: res.IsError, Content: []sdk.Content{}}
	if res.Structured != nil {
		out.StructuredContent = res.Structured
	}
	for _, p := range res.Content {
		switch p.Type {
		case "image":
			data, mime := fitImage(p.Data, p.MIMEType)
			out.Content = append(out.Content, &sdk.ImageContent{Data: data, MIMEType: mime})
		default:
			out.Content = append(out.Content, &sdk.TextContent{Text: p.Text})
		}
	}
	return out, nil
}

func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// fitImage re-encodes an image over MaxImageBytes as JPEG, lowering the
// quality until it fits.
func fitImage(data []byte, mime string) ([]byte, string) {
	if len(data) <= MaxImageBytes {
		return data, mime
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return data, mime
	}
	for _, q := range []int{85, 70, 50, 30} {
		var buf bytes.Buffer
		if jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}) == nil && buf.Len() <= MaxImageBytes {
			return buf.Bytes(), "image/jpeg"
		}
	}
	return data, mime
}

// Handler serves MCP over streamable HTTP. A connection's options come
// from the query of its first request, e.g.
// /mcp?dialect=osworld&screen=1024x768&provider=local, or
// /mcp?session=ID to attach to an existing session.
func Handler(m *runner.Manager, base Options) http.Handler {
	return sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		o := base
		q := r.URL.Query()
		if v := q.Get("dialect"); v != "" {
			o.Dialect = v
		}
		if v := q.Get("provider"); v != "" {
			o.Provider = v
		}
		if v := q.Get("image"); v != "" {
			o.Image = v
		}
		if v := q.Get("session"); v != "" {
			o.Session = v
		}
		if v := q.Get("screen"); v != "" {
			w, h, ok := strings.Cut(v, "x")
			o.Screen.Width, _ = strconv.Atoi(w)
			o.Screen.Height, _ = strconv.Atoi(h)
			if !ok {
				o.Screen = wire.Screen{}
			}
		}
		srv, err := NewServer(m, o)
		if err != nil {
			base.Logger.Warn("mcp: refused connection", "err", err)
			return nil
		}
		return srv
	}, nil)
}

// ServeStdio serves one MCP connection on standard input and output until
// the client disconnects or ctx ends, then deletes the session.
func ServeStdio(ctx context.Context, m *runner.Manager, o Options) error {
	srv, err := NewServer(m, o)
	if err != nil {
		return err
	}
	return srv.Run(ctx, &sdk.StdioTransport{})
}
