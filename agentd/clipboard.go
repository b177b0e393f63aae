package agentd

import (
	"bytes"
	"errors"
	"image/png"
	"mime"
	"net/http"
	"unicode/utf8"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/httpserve"
	"github.com/deskrun/deskrun/x11"
	"github.com/labstack/echo/v4"
)

// MaxClipboard bounds the text PUT /v1/clipboard accepts.
const MaxClipboard = api.MaxClipboardText

// clipboardParams reads and checks the selection and type of a clipboard
// call; a PUT's Content-Type image/png stands for type=image/png.
func clipboardParams(c echo.Context) (x11.Selection, x11.Target, error) {
	typ := c.QueryParam("type")
	if c.Request().Method == http.MethodPut && typ == "" {
		if mt, _, _ := mime.ParseMediaType(c.Request().Header.Get("Content-Type")); mt == api.ClipboardPNG {
			typ = api.ClipboardPNG
		}
	}
	sel, typ, err := api.CheckClipboard(c.QueryParam("selection"), typ)
	if err != nil {
		return "", "", errdefs.ErrInvalidArgument.WithMessage(err.Error())
	}
	xs, xt := x11.Clipboard, x11.TargetText
	if sel == api.SelectionPrimary {
		xs = x11.Primary
	}
	if typ == api.ClipboardPNG {
		xt = x11.TargetPNG
	}
	return xs, xt, nil
}

// clipboard answers a selection's content: text as UTF-8 (empty when
// nobody owns the selection), an image as PNG (404 when the selection
// holds none).
func (s *Server) clipboard(c echo.Context) error {
	sel, target, err := clipboardParams(c)
	if err != nil {
		return err
	}
	conn, err := s.desk.get()
	if err != nil {
		return err
	}
	b, err := conn.ReadSelection(sel, target)
	switch {
	case errors.Is(err, x11.ErrNoTarget):
		return errdefs.ErrNotFound.WithMessage(err.Error())
	case err != nil:
		// The X server answers (else failed says so), the owner did not.
		return s.desk.failed(conn, errdefs.ErrFailedPrecondition.WithMessage(err.Error()))
	}
	if target == x11.TargetPNG {
		if b == nil {
			return errdefs.ErrNotFound.WithMessage("clipboard: the " + string(sel) + " selection is empty")
		}
		return c.Blob(http.StatusOK, "image/png", b)
	}
	return c.Blob(http.StatusOK, "text/plain; charset=utf-8", b)
}

// setClipboard makes agentd own a selection with the body: UTF-8 text,
// or a PNG image.
func (s *Server) setClipboard(c echo.Context) error {
	sel, target, err := clipboardParams(c)
	if err != nil {
		return err
	}
	limit := int64(api.MaxClipboardText)
	if target == x11.TargetPNG {
		limit = api.MaxClipboardImage
	}
	b, err := httpserve.ReadBody(c, limit)
	if err != nil {
		return err
	}
	if target == x11.TargetPNG {
		if _, err := png.DecodeConfig(bytes.NewReader(b)); err != nil {
			return errdefs.ErrInvalidArgument.WithMessage("body: not a PNG image: " + err.Error())
		}
	} else if !utf8.Valid(b) {
		return errdefs.ErrInvalidArgument.WithMessage("body: not UTF-8 text")
	}
	conn, err := s.desk.get()
	if err != nil {
		return err
	}
	if err := conn.SetSelection(sel, target, b); err != nil {
		return s.desk.failed(conn, errdefs.ErrUnavailable.WithMessage(err.Error()))
	}
	return c.NoContent(http.StatusNoContent)
}
