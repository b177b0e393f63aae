package agentd

import (
	"fmt"
	"image"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/x11"
	"github.com/labstack/echo/v4"
)

func (s *Server) windows(c echo.Context) error {
	conn, err := s.desk.get()
	if err != nil {
		return err
	}
	ws, err := conn.Windows()
	if err != nil {
		return s.desk.failed(conn, unavailable(err))
	}
	out := api.WindowList{Windows: make([]api.Window, 0, len(ws))}
	for _, w := range ws {
		out.Windows = append(out.Windows, api.Window{ID: w.ID, Title: w.Title, Class: w.Class, Instance: w.Instance, PID: w.PID, Active: w.Active})
	}
	return c.JSON(http.StatusOK, out)
}

func windowID(c echo.Context) (uint32, error) {
	id, err := strconv.ParseUint(c.Param("id"), 0, 32)
	if err != nil {
		return 0, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("id: want a window id, got %q", c.Param("id")))
	}
	return uint32(id), nil
}

// window answers one window with its client area and state.
func (s *Server) window(c echo.Context) error {
	id, err := windowID(c)
	if err != nil {
		return err
	}
	conn, err := s.desk.get()
	if err != nil {
		return err
	}
	w, err := windowInfo(conn, id)
	if err != nil {
		if conn.Ping() != nil {
			return s.desk.failed(conn, err)
		}
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("window %d: %v", id, err))
	}
	return c.JSON(http.StatusOK, w)
}

func windowInfo(conn *x11.Conn, id uint32) (api.Window, error) {
	g, err := conn.WindowGeometry(id)
	if err != nil {
		return api.Window{}, err
	}
	st, err := conn.WindowState(id)
	if err != nil {
		return api.Window{}, err
	}
	w := api.Window{ID: id, Bounds: &api.Box{X: g.Min.X, Y: g.Min.Y, W: g.Dx(), H: g.Dy()}, Minimized: st.Minimized, Maximized: st.Maximized}
	ws, err := conn.Windows()
	if err != nil {
		return api.Window{}, err
	}
	for _, l := range ws {
		if l.ID == id {
			w.Title, w.Class, w.Instance, w.PID, w.Active = l.Title, l.Class, l.Instance, l.PID, l.Active
			return w, nil
		}
	}
	// Not in the window manager's list (an unmanaged or minimized window
	// without a window manager): the title is still known.
	w.Title, _ = conn.WindowTitle(id)
	act, _ := conn.ActiveWindow()
	w.Active = act == id
	return w, nil
}

// windowAction runs one of api.WindowActions on a window; move_resize
// takes an api.WindowPlacement body.
func (s *Server) windowAction(c echo.Context) error {
	id, err := windowID(c)
	if err != nil {
		return err
	}
	action := c.Param("action")
	if !slices.Contains(api.WindowActions, action) {
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("action: no window action %q (want one of %s)", action, strings.Join(api.WindowActions, ", ")))
	}
	var place api.WindowPlacement
	if action == api.WindowMoveResize {
		if err := decode(c, &place); err != nil {
			return err
		}
		if err := place.Validate(); err != nil {
			return err
		}
	}
	conn, err := s.desk.get()
	if err != nil {
		return err
	}
	switch action {
	case api.WindowActivate:
		err = conn.ActivateWindow(id)
	case api.WindowClose:
		err = conn.CloseWindow(id)
	case api.WindowMinimize:
		err = conn.MinimizeWindow(id)
	case api.WindowMaximize:
		err = conn.MaximizeWindow(id)
	case api.WindowRestore:
		err = conn.RestoreWindow(id)
	case api.WindowMoveResize:
		var g image.Rectangle
		if g, err = conn.WindowGeometry(id); err == nil {
			x, y, w, h := g.Min.X, g.Min.Y, g.Dx(), g.Dy()
			for _, f := range []struct{ dst, src *int }{{&x, place.X}, {&y, place.Y}, {&w, place.Width}, {&h, place.Height}} {
				if f.src != nil {
					*f.dst = *f.src
				}
			}
			err = conn.MoveResizeWindow(id, image.Rect(x, y, x+w, y+h))
		}
	}
	if err != nil {
		if conn.Ping() != nil {
			return s.desk.failed(conn, err)
		}
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("window %d: %v", id, err))
	}
	return c.NoContent(http.StatusNoContent)
}
