package agentd

import (
	"net/http"
	"unicode/utf8"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/internal/httpserve"
	"github.com/deskrun/deskrun/x11"
	"github.com/labstack/echo/v4"
)

// MaxClipboard bounds the text PUT /v1/clipboard accepts.
const MaxClipboard = 1 << 20

// clipboardOwner is what the X connection offers for the CLIPBOARD
// selection when it can read and own it. agentd relies on no external
// program (xclip, xsel) for the clipboard: without this, the clipboard
// calls answer 501 not_implemented.
type clipboardOwner interface {
	Clipboard() (string, error)
	SetClipboard(text string) error
}

// errNoClipboard is the answer of the clipboard calls when the X client
// offers no selection support.
var errNoClipboard = errdefs.ErrNotImplemented.WithMessage("clipboard: not available in this agentd (its X client has no selection support)")

func (s *Server) clipboardConn() (*x11.Conn, clipboardOwner, error) {
	conn, err := s.desk.get()
	if err != nil {
		return nil, nil, err
	}
	cb, ok := any(conn).(clipboardOwner)
	if !ok {
		return nil, nil, errNoClipboard
	}
	return conn, cb, nil
}

// clipboard answers the CLIPBOARD selection as UTF-8 text.
func (s *Server) clipboard(c echo.Context) error {
	conn, cb, err := s.clipboardConn()
	if err != nil {
		return err
	}
	text, err := cb.Clipboard()
	if err != nil {
		return s.desk.failed(conn, err)
	}
	return c.Blob(http.StatusOK, "text/plain; charset=utf-8", []byte(text))
}

// setClipboard makes agentd own the CLIPBOARD selection with the body's
// text.
func (s *Server) setClipboard(c echo.Context) error {
	b, err := httpserve.ReadBody(c, MaxClipboard)
	if err != nil {
		return err
	}
	if !utf8.Valid(b) {
		return errdefs.ErrInvalidArgument.WithMessage("body: not UTF-8 text")
	}
	conn, cb, err := s.clipboardConn()
	if err != nil {
		return err
	}
	if err := cb.SetClipboard(string(b)); err != nil {
		return s.desk.failed(conn, err)
	}
	return c.NoContent(http.StatusNoContent)
}
