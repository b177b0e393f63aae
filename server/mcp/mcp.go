// Package mcp serves deskrun's tools over the Model Context Protocol with
// the official Go SDK: streamable HTTP ([Handler], mounted at /mcp by
// deskrun serve) and stdio ([ServeStdio], deskrun mcp). Each MCP
// connection drives one deskrun session, created on its first tool call
// with the connection's options and deleted when the connection ends
// (unless it attached to a session that already existed); a streamable
// HTTP connection that stays idle for [Options.IdleTimeout] is ended. The
// tools are those of one dialect. Images go out as MCP image content
// sized so that a whole tool result stays under [MaxResultBytes].
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif" // decode images to re-encode oversized ones
	"image/jpeg"
	_ "image/png"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/dialect"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxResultBytes bounds the size of a tool result as it travels, in
// JSON: Claude Desktop refuses a tool result over 1 MiB ("result exceeds
// maximum length of 1048576"), the tightest limit among the common MCP
// clients. Images travel base64-encoded inside that JSON, at 4/3 of their
// size, so a result's images share 3/4 of what its text leaves free.
// An image too large for its share is re-encoded as JPEG at the same
// size in pixels, and, when that is not enough, scaled down with a note
// giving the factor to apply to positions read from it.
const MaxResultBytes = 1 << 20

// resultMargin is the part of MaxResultBytes kept for the JSON-RPC
// envelope and the result's own fields.
const resultMargin = 8 << 10

// DefaultIdleTimeout is the [Options.IdleTimeout] of a zero Options.
const DefaultIdleTimeout = 30 * time.Minute

// Options choose a connection's session.
type Options struct {
	// Dialect names the tools served (default "anthropic").
	Dialect string
	// Provider, Image and Screen are those of the session created.
	Provider string
	Image    string
	Screen   api.Screen
	// Session attaches to an existing deskrun session instead; it is not
	// deleted when the connection ends.
	Session string
	// IdleTimeout ends a streamable HTTP connection that has made no
	// request for that long (a client gone without closing it), deleting
	// its session. Zero means DefaultIdleTimeout, a negative value never.
	// Stdio connections end with their stream.
	IdleTimeout time.Duration
	// Logger receives a line per session created and deleted and per
	// refused connection; nil discards them.
	Logger *slog.Logger
}

// NewServer returns an MCP server for one connection.
func NewServer(m *runner.Manager, o Options) (*sdk.Server, error) {
	srv, _, err := newServer(m, o)
	return srv, err
}

func newServer(m *runner.Manager, o Options) (*sdk.Server, *binding, error) {
	if o.Dialect == "" {
		o.Dialect = "anthropic"
	}
	defs, ok := dialect.Definitions(o.Dialect)
	if !ok {
		return nil, nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("dialect: unknown dialect %q (want one of %s)", o.Dialect, strings.Join(dialect.Names(), ", ")))
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
	return srv, b, nil
}

// binding is the deskrun session of one connection.
type binding struct {
	m *runner.Manager
	o Options

	mu     sync.Mutex
	sess   *runner.Session
	closed bool // the connection ended: no session is made any more
}

func (b *binding) session(ctx context.Context, req *sdk.CallToolRequest) (*runner.Session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sess != nil {
		return b.sess, nil
	}
	if b.closed {
		return nil, errors.New("the MCP connection has ended")
	}
	if b.o.Session != "" {
		s, err := b.m.Get(b.o.Session)
		if err != nil {
			return nil, err
		}
		b.sess = s
		return s, nil
	}
	s, err := b.m.Create(ctx, api.CreateSessionRequest{Provider: b.o.Provider, Image: b.o.Image, Screen: b.o.Screen, Dialect: b.o.Dialect})
	if err != nil {
		return nil, err
	}
	b.sess = s
	b.o.Logger.InfoContext(ctx, "mcp: session created", "session", s.ID())
	if req.Session != nil {
		ss := req.Session
		go func() {
			_ = ss.Wait()
			b.close()
		}()
	}
	return s, nil
}

// deleteTimeout bounds deleting a connection's session.
const deleteTimeout = time.Minute

// close ends the binding and deletes the session the connection created.
func (b *binding) close() {
	b.mu.Lock()
	s := b.sess
	b.sess, b.closed = nil, true
	b.mu.Unlock()
	if s != nil && b.o.Session == "" {
		ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
		defer cancel()
		if err := b.m.Delete(ctx, s.ID()); err != nil && !errdefs.IsNotFound(err) {
			b.o.Logger.Warn("mcp: delete session", "session", s.ID(), "err", err)
			return
		}
		b.o.Logger.Info("mcp: session deleted", "session", s.ID())
	}
}

func (b *binding) call(ctx context.Context, req *sdk.CallToolRequest, name string) (*sdk.CallToolResult, error) {
	s, err := b.session(ctx, req)
	if err != nil {
		return b.failed(ctx, name, "no desktop: ", err), nil
	}
	// MCP's arguments are optional: absent or null is no arguments.
	args := json.RawMessage("{}")
	if req.Params != nil {
		if a := bytes.TrimSpace(req.Params.Arguments); len(a) > 0 && string(a) != "null" {
			args = req.Params.Arguments
		}
	}
	res, err := s.CallTool(ctx, b.o.Dialect, name, args)
	if err != nil {
		return b.failed(ctx, name, "", err), nil
	}
	return toMCP(res), nil
}

// failed answers a tool call that failed as REST answers the error (see
// [api.Answer]): an internal error's text goes to the log under an id,
// and the result carries only the id.
func (b *binding) failed(ctx context.Context, name, prefix string, err error) *sdk.CallToolResult {
	a := api.AnswerOf(err)
	a.Log(ctx, b.o.Logger, err, "tool", name)
	return errorResult(prefix + a.Body.Error.Message)
}

// toMCP converts a dialect's result, fitting its images into what its
// text leaves of MaxResultBytes.
func toMCP(res dialect.Result) *sdk.CallToolResult {
	out := &sdk.CallToolResult{IsError: res.IsError, Content: []sdk.Content{}}
	used := resultMargin
	if res.Structured != nil {
		out.StructuredContent = res.Structured
		js, _ := json.Marshal(res.Structured)
		used += len(js)
	}
	images := 0
	for _, p := range res.Content {
		if p.Type == "image" {
			images++
			continue
		}
		js, _ := json.Marshal(p.Text)
		used += len(js) + 32
	}
	limit := 0
	if images > 0 {
		limit = max(0, MaxResultBytes-used) * 3 / 4 / images
	}
	for _, p := range res.Content {
		if p.Type != "image" {
			out.Content = append(out.Content, &sdk.TextContent{Text: p.Text})
			continue
		}
		f, err := fitImage(p.Data, p.MIMEType, limit)
		if err != nil {
			out.Content = append(out.Content, &sdk.TextContent{Text: fmt.Sprintf(
				"(image left out: %v; MCP clients refuse tool results over %d bytes)", err, MaxResultBytes)})
			continue
		}
		if f.note != "" {
			out.Content = append(out.Content, &sdk.TextContent{Text: f.note})
		}
		out.Content = append(out.Content, &sdk.ImageContent{Data: f.data, MIMEType: f.mime})
	}
	return out
}

func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// fitted is an image made to fit a size limit.
type fitted struct {
	data []byte
	mime string
	// note tells the model about a scaled-down image; empty otherwise.
	note string
}

// minScaledSide is the smallest width or height fitImage scales to.
const minScaledSide = 64

// fitImage returns data as it is when it has at most limit bytes, else a
// re-encoding that does: JPEG at falling quality (the same size in
// pixels, so positions read off it stay right), then, when that is not
// enough, JPEG scaled down, with a note giving the factor to multiply
// positions by. An image it cannot decode or shrink enough is an error.
func fitImage(data []byte, mime string, limit int) (fitted, error) {
	if len(data) <= limit {
		return fitted{data: data, mime: mime}, nil
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return fitted{}, fmt.Errorf("a %d-byte %s image over the %d bytes left for it, which cannot be re-encoded", len(data), mime, limit)
	}
	encode := func(m image.Image, q int) []byte {
		var buf bytes.Buffer
		if jpeg.Encode(&buf, m, &jpeg.Options{Quality: q}) != nil {
			return nil
		}
		return buf.Bytes()
	}
	var last []byte
	for _, q := range []int{85, 70, 50} {
		if last = encode(img, q); last != nil && len(last) <= limit {
			return fitted{data: last, mime: "image/jpeg"}, nil
		}
	}
	w0, h0 := img.Bounds().Dx(), img.Bounds().Dy()
	rgba := image.NewRGBA(image.Rect(0, 0, w0, h0))
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	w, h := w0, h0
	for range 8 {
		if len(last) == 0 {
			break
		}
		// JPEG size goes roughly with the area: aim 10% under.
		f := math.Sqrt(float64(limit)/float64(len(last))) * 0.9
		w, h = max(1, int(float64(w)*f)), max(1, int(float64(h)*f))
		if w < minScaledSide || h < minScaledSide {
			break
		}
		last = encode(shrink(rgba, w, h), 70)
		if last != nil && len(last) <= limit {
			return fitted{data: last, mime: "image/jpeg", note: fmt.Sprintf(
				"The image below was scaled down from %dx%d to %dx%d to keep the result under the %d bytes MCP clients accept: multiply positions read from it by %.4g.",
				w0, h0, w, h, MaxResultBytes, float64(w0)/float64(w))}, nil
		}
	}
	return fitted{}, fmt.Errorf("a %dx%d image that does not fit in the %d bytes left for it", w0, h0, limit)
}

// shrink scales src down to w x h by averaging the pixels each
// destination pixel covers.
func shrink(src *image.RGBA, w, h int) *image.RGBA {
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		for x := range w {
			x0, x1 := x*sw/w, max((x+1)*sw/w, x*sw/w+1)
			var sum [4]int
			for sy := y0; sy < y1; sy++ {
				row := src.Pix[sy*src.Stride:]
				for sx := x0; sx < x1; sx++ {
					for c := range 4 {
						sum[c] += int(row[sx*4+c])
					}
				}
			}
			n := (y1 - y0) * (x1 - x0)
			d := dst.Pix[y*dst.Stride+x*4:]
			for c := range 4 {
				d[c] = uint8((sum[c] + n/2) / n)
			}
		}
	}
	return dst
}

// Handler serves MCP over streamable HTTP. A connection's options come
// from the query of its first request (the one without an Mcp-Session-Id
// header), e.g. /mcp?dialect=osworld&screen=1024x768&provider=local, or
// /mcp?session=ID to attach to an existing session; options it cannot
// take are refused with 400 (404 for an unknown session) and an error
// body naming the parameter. Connections idle for base.IdleTimeout are
// ended. Every JSON-RPC error carries JSON-RPC's code for its cause
// (-32600, -32601, -32602, -32603), never 0, and a call refused ends
// that call alone, not the connection (see contractErrors).
func Handler(m *runner.Manager, base Options) http.Handler {
	if base.Logger == nil {
		base.Logger = slog.New(slog.DiscardHandler)
	}
	idle := base.IdleTimeout
	switch {
	case idle == 0:
		idle = DefaultIdleTimeout
	case idle < 0:
		idle = 0
	}
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		o, err := connOptions(m, base, r.URL.Query())
		if err == nil {
			var srv *sdk.Server
			if srv, err = NewServer(m, o); err == nil {
				return srv
			}
		}
		base.Logger.WarnContext(r.Context(), "mcp: refused connection", "err", err)
		return nil
	}, &sdk.StreamableHTTPOptions{SessionTimeout: idle})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			if _, err := connOptions(m, base, r.URL.Query()); err != nil {
				base.Logger.InfoContext(r.Context(), "mcp: refused connection", "err", err)
				a := api.AnswerOf(err)
				a.Log(r.Context(), base.Logger, err)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(a.Status)
				_ = json.NewEncoder(w).Encode(a.Body)
				return
			}
		}
		cw := &contractErrors{ResponseWriter: w}
		if r.Method == http.MethodPost && r.Body != nil {
			cw.call, r.Body = callID(r.Body)
		}
		h.ServeHTTP(cw, r)
	})
}

// maxPeek bounds the part of a POST body read to find the JSON-RPC call's
// id; a longer body passes to the SDK unread.
const maxPeek = 1 << 20

// callID reads the body of a POST and returns the id of the JSON-RPC call
// it carries (nil for a notification, a response, a batch or anything
// else) and a body that reads the same bytes again.
func callID(body io.ReadCloser) (json.RawMessage, io.ReadCloser) {
	head, err := io.ReadAll(io.LimitReader(body, maxPeek+1))
	rest := struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), body), body}
	if err != nil || len(head) > maxPeek {
		return nil, rest
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(head, &m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil, rest
	}
	return m.ID, rest
}

// contractErrors answers the HTTP errors the SDK writes as plain text
// (an unknown Mcp-Session-Id, a bad Accept header, a body that is not
// JSON-RPC) in the contract's shape, {"error":{"code","message"}}, with the
// SDK's text as the message; every other answer passes untouched. When the
// request was a JSON-RPC call (an unknown method, a call without the
// params its method requires), the answer is instead a JSON-RPC error
// response to that call with JSON-RPC's code for the cause (-32601 for a
// method the server does not have, -32600 otherwise), under the same HTTP
// status: MCP clients then fail that call alone and keep the connection,
// where a body that is not JSON-RPC ends it.
type contractErrors struct {
	http.ResponseWriter
	call   json.RawMessage // the id of the JSON-RPC call the request carried, if any
	status int             // an error being rewritten; 0 otherwise
}

func (w *contractErrors) WriteHeader(status int) {
	if status >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status = status
		w.Header().Set("Content-Type", "application/json")
		w.Header().Del("Content-Length")
		w.Header().Del("X-Content-Type-Options")
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *contractErrors) Write(b []byte) (int, error) {
	if w.status == 0 {
		return w.ResponseWriter.Write(b)
	}
	msg := strings.TrimSpace(string(b))
	w.ResponseWriter.WriteHeader(w.status)
	var err error
	if w.call != nil && w.status == http.StatusBadRequest {
		code := -32600 // invalid request
		if strings.Contains(msg, "unsupported") {
			code = -32601 // method not found
		}
		err = json.NewEncoder(w.ResponseWriter).Encode(map[string]any{
			"jsonrpc": "2.0", "id": w.call, "error": map[string]any{"code": code, "message": msg}})
	} else {
		_, code := api.Classify(httpClass(w.status))
		err = json.NewEncoder(w.ResponseWriter).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
	}
	w.status = 0
	return len(b), err
}

// Flush lets the SDK's event streams through.
func (w *contractErrors) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// httpClass is the errdefs class of an HTTP error status.
func httpClass(status int) error {
	switch status {
	case http.StatusBadRequest:
		return errdefs.ErrInvalidArgument
	case http.StatusNotFound:
		return errdefs.ErrNotFound
	case http.StatusUnauthorized:
		return errdefs.ErrUnauthenticated
	case http.StatusForbidden:
		return errdefs.ErrPermissionDenied
	case http.StatusConflict:
		return errdefs.ErrConflict
	case http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusUnsupportedMediaType:
		return errdefs.ErrInvalidArgument
	case http.StatusServiceUnavailable:
		return errdefs.ErrUnavailable
	case http.StatusRequestEntityTooLarge:
		return errdefs.ErrOutOfRange // too_large, as REST answers
	}
	return errdefs.ErrInternal
}

// connOptions applies the query parameters of a connection's first
// request to base. Errors are errdefs.ErrInvalidArgument naming the
// parameter, or errdefs.ErrNotFound for an unknown session.
func connOptions(m *runner.Manager, base Options, q url.Values) (Options, error) {
	o := base
	invalid := func(format string, args ...any) error {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf(format, args...))
	}
	if v := q.Get("dialect"); v != "" {
		o.Dialect = v
	}
	if o.Dialect != "" {
		if _, ok := dialect.ByName(o.Dialect); !ok {
			return o, invalid("dialect: unknown dialect %q (want one of %s)", o.Dialect, strings.Join(dialect.Names(), ", "))
		}
	}
	if v := q.Get("provider"); v != "" {
		if !slices.Contains(m.Providers(), v) {
			return o, invalid("provider: %q is not configured (want one of %s)", v, strings.Join(m.Providers(), ", "))
		}
		o.Provider = v
	}
	if v := q.Get("image"); v != "" {
		o.Image = v
	}
	if v := q.Get("screen"); v != "" {
		w, h, ok := strings.Cut(v, "x")
		wi, werr := strconv.Atoi(w)
		hi, herr := strconv.Atoi(h)
		if !ok || werr != nil || herr != nil || wi <= 0 || hi <= 0 {
			return o, invalid("screen: want WxH in pixels, e.g. 1280x800, got %q", v)
		}
		o.Screen = api.Screen{Width: wi, Height: hi}
	}
	if v := q.Get("session"); v != "" {
		if _, err := m.Get(v); err != nil {
			if errdefs.IsNotFound(err) {
				return o, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("session: no session %q", v))
			}
			return o, fmt.Errorf("session: %w", err)
		}
		o.Session = v
	}
	return o, nil
}

// ServeStdio serves one MCP connection, reading the client's messages
// from in and writing the answers to out (deskrun mcp passes its standard
// input and output), until the client closes in or ctx ends; then it
// deletes the connection's session. A client gone is not an error.
func ServeStdio(ctx context.Context, m *runner.Manager, o Options, in io.Reader, out io.Writer) error {
	srv, b, err := newServer(m, o)
	if err != nil {
		return err
	}
	err = srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	b.close()
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
