package agentd

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/httpserve"
	"github.com/deskrun/deskrun/x11"
	"github.com/deskrun/deskrun/x11/keysym"
	"github.com/labstack/echo/v4"
)

func (s *Server) screenshot(c echo.Context) error {
	conn, err := s.desk.get()
	if err != nil {
		return err
	}
	w, h := conn.Size()
	o, err := api.ParseScreenshotQuery(c.QueryParams(), api.Screen{Width: w, Height: h})
	if err != nil {
		return err
	}
	hd := c.Response().Header()
	if o.SettleMS > 0 {
		timeout := o.TimeoutMS
		if timeout == 0 {
			timeout = api.DefaultSettleTimeoutMS
		}
		st, err := conn.WaitIdle(time.Duration(o.SettleMS)*time.Millisecond, time.Duration(timeout)*time.Millisecond)
		if err != nil {
			return s.desk.failed(conn, unavailable(err))
		}
		hd.Set(api.HeaderSettled, strconv.FormatBool(st.Settled))
		hd.Set(api.HeaderSettleMS, strconv.FormatInt(st.Took.Milliseconds(), 10))
	}
	shot, err := Shoot(conn, o)
	if err != nil {
		return s.desk.failed(conn, err)
	}
	hd.Set(api.HeaderScale, strconv.FormatFloat(shot.Scale, 'f', -1, 64))
	hd.Set(api.HeaderScreen, fmt.Sprintf("%dx%d", w, h))
	hd.Set(echo.HeaderContentLength, strconv.Itoa(len(shot.Data)))
	return c.Blob(http.StatusOK, "image/"+shot.Format, shot.Data)
}

// captures holds the pixel memory of earlier captures for the next ones.
var captures sync.Pool

// Shoot captures the screen (or o.Region), scales it down to o.MaxWidth
// and encodes it as o.Format.
func Shoot(conn *x11.Conn, o api.ScreenshotOptions) (api.Screenshot, error) {
	w, h := conn.Size()
	r := image.Rectangle{}
	if o.Region != nil {
		r = image.Rect(o.Region.X0, o.Region.Y0, o.Region.X1, o.Region.Y1)
	}
	reuse, _ := captures.Get().(*image.RGBA)
	img, err := conn.CaptureInto(reuse, r)
	if err != nil {
		return api.Screenshot{}, unavailable(err)
	}
	defer captures.Put(img)
	out := img
	scale := 1.0
	if b := img.Bounds(); o.MaxWidth > 0 && b.Dx() > o.MaxWidth {
		scale = float64(o.MaxWidth) / float64(b.Dx())
		nh := max(1, int(float64(b.Dy())*scale+0.5))
		out = downscale(img, o.MaxWidth, nh)
	}
	var buf bytes.Buffer
	format := o.Format
	if format == "" {
		format = api.FormatPNG
	}
	if format == api.FormatJPEG {
		q := o.Quality
		if q == 0 {
			q = 80
		}
		err = jpeg.Encode(&buf, out, &jpeg.Options{Quality: q})
	} else {
		err = encodePNG(&buf, out)
	}
	if err != nil {
		return api.Screenshot{}, fmt.Errorf("encode %s: %w", format, err)
	}
	b := out.Bounds()
	return api.Screenshot{Data: buf.Bytes(), Format: format, Width: b.Dx(), Height: b.Dy(), Scale: scale, Screen: api.Screen{Width: w, Height: h}}, nil
}

func (s *Server) input(c echo.Context) error {
	body, err := httpserve.ReadBody(c, MaxBody)
	if err != nil {
		return err
	}
	req, err := api.DecodeInput(bytes.NewReader(body))
	if err != nil {
		return err
	}
	conn, err := s.desk.get()
	if err != nil {
		return err
	}
	w, h := conn.Size()
	if err := req.Validate(api.Screen{Width: w, Height: h}, keysym.Known); err != nil {
		return err
	}
	res, err := run(c.Request().Context(), conn, s.desk.display, req.Actions)
	s.lastInput.Store(time.Now().UnixNano())
	if errdefs.IsUnavailable(err) {
		s.desk.lost(conn)
	}
	if err != nil {
		status, body := api.ErrorOf(err, "input failed")
		res.Error = &body.Error
		return c.JSON(status, res)
	}
	return c.JSON(http.StatusOK, res)
}

// Run executes validated core actions in order on conn and stops at the
// first failure, which it returns beside the per-action results.
func Run(ctx context.Context, conn *x11.Conn, actions []api.Action) (api.InputResult, error) {
	return run(ctx, conn, "", actions)
}

// run is Run for the desktop on display, whose terminals a wait_idle
// with commands watches.
func run(ctx context.Context, conn *x11.Conn, display string, actions []api.Action) (api.InputResult, error) {
	res := api.InputResult{Results: make([]api.ActionResult, 0, len(actions))}
	for i, a := range actions {
		start := time.Now()
		settle := focusTarget(conn, a)
		// runOne queues pointer and button requests; Sync sends them
		// with the request that checks them, also after a failure, so
		// nothing stays queued (a drag's release, say).
		var settled *bool
		var err error
		if a.Type == api.ActionWaitIdle {
			settled, err = waitIdle(ctx, conn, display, a)
		} else if err = beforeKeys(conn, a); err == nil {
			err = runOne(ctx, conn, a)
		}
		if serr := conn.Sync(); err == nil {
			err = serr
		}
		if err == nil && settle != 0 {
			// the window manager has handled the click once it answers;
			// the focus then is where it put it, or comes shortly after
			_ = awaitWM(conn)
			_, _ = conn.AwaitFocus(settle, focusSettle)
		}
		r := api.ActionResult{Index: i, Type: a.Type, OK: err == nil, Micros: time.Since(start).Microseconds(), Settled: settled}
		if err != nil {
			err = classify(conn, fmt.Errorf("actions[%d] (%s): %w", i, a.Type, err))
			_, body := api.ErrorOf(err, "input failed")
			r.Error = &body.Error
			res.Results = append(res.Results, r)
			return res, err
		}
		res.Results = append(res.Results, r)
	}
	return res, nil
}

// focusSettle bounds the wait for the window manager to focus a clicked
// window once it has handled the click.
const focusSettle = 300 * time.Millisecond

// The wait for the window manager to catch up with the events queued for
// it (x11.Conn.WMSync) lasts as long as it works: a window manager takes
// in a keyboard map change by re-reading the map and grabbing its key
// bindings anew, one round trip each; typing text outside the keymap
// changes the map once per new character, and on a loaded machine the
// window manager then runs seconds behind. The wait ends with an error
// once, after a first wmStall without an answer, another passes in which
// its process neither ran nor waited to run (it is hung, or sleeps on
// something else), or after wmLimit in all.
const (
	wmStall = 10 * time.Second
	wmLimit = 2 * time.Minute
)

// awaitWM waits until the window manager has handled the events queued
// for it, as long as it makes progress (see wmStall). Its process is
// looked at only once an answer is late.
func awaitWM(conn *x11.Conn) error {
	began := time.Now()
	_, err := conn.WMSync(wmStall)
	if err == nil {
		return nil
	}
	pid := conn.WMPID()
	if pid == 0 {
		return err
	}
	work := func() time.Duration {
		var d time.Duration
		for _, v := range cpuDemand(func(p int) bool { return p == pid }) {
			d += v
		}
		return d
	}
	for last := work(); time.Since(began) < wmLimit; {
		if _, err = conn.WMSync(wmStall); err == nil {
			return nil
		}
		now := work()
		if now == last {
			return err
		}
		last = now
	}
	return err
}

// beforeKeys makes sure the keys of a key or type action reach a window:
// the window manager has handled every event before them (a click it
// turns into a focus change, a new window it maps and focuses, the
// keyboard map's changes for the text about to be typed), and the
// keyboard focus is not None, where the server drops key events. Keys
// sent while the window manager runs behind go to the window that had
// the focus before: the whole text lost, with nothing to show for it.
func beforeKeys(conn *x11.Conn, a api.Action) error {
	switch a.Type {
	case api.ActionType, api.ActionKey, api.ActionKeyDown:
	default:
		return nil
	}
	if a.Type == api.ActionType {
		if err := conn.Bind(a.Text); err != nil {
			return err
		}
	}
	if err := awaitWM(conn); err != nil {
		return errdefs.ErrFailedPrecondition.WithMessage("keys not sent: " + err.Error())
	}
	ok, err := conn.KeyboardFocused()
	if err != nil {
		return err
	}
	if !ok {
		return errdefs.ErrFailedPrecondition.WithMessage("keys not sent: no window has the keyboard focus (it is None), where the X server drops key events")
	}
	return nil
}

// focusTarget returns the top-level window a click or press is about to
// land on when a window manager runs and that window does not have the
// focus yet: Run then waits for the focus to move there, as it would
// before a person typed. Otherwise 0.
func focusTarget(conn *x11.Conn, a api.Action) uint32 {
	if a.Type != api.ActionClick && a.Type != api.ActionButtonDown {
		return 0
	}
	if !conn.WMRunning() {
		return 0
	}
	var x, y int
	if a.X != nil && a.Y != nil {
		x, y = *a.X, *a.Y
	} else {
		var err error
		if x, y, err = conn.Cursor(); err != nil {
			return 0
		}
	}
	top, err := conn.TopLevelAt(x, y)
	if err != nil || top == 0 {
		return 0
	}
	if f, err := conn.FocusTopLevel(); err != nil || f == top {
		return 0
	}
	return top
}

// classify tells a lost X server (unavailable) from a refused action.
func classify(conn *x11.Conn, err error) error {
	if errdefs.IsCanceled(err) || errdefs.IsDeadlineExceeded(err) || errdefs.IsInvalidArgument(err) {
		return err
	}
	if conn.Ping() != nil {
		return errdefs.ErrUnavailable.WithMessage(err.Error())
	}
	return errdefs.ErrFailedPrecondition.WithMessage(err.Error())
}

func buttonOf(name string) int {
	switch name {
	case api.ButtonMiddle:
		return x11.ButtonMiddle
	case api.ButtonRight:
		return x11.ButtonRight
	}
	return x11.ButtonLeft
}

func sym(name string) (keysym.Sym, error) {
	s, ok := keysym.ByName(name)
	if !ok {
		return 0, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("unknown key name %q", name))
	}
	return s, nil
}

// dragStep is the pause between the points of a drag, so that
// applications see motion with the button held rather than a jump.
const dragStep = 10 * time.Millisecond

func runOne(ctx context.Context, conn *x11.Conn, a api.Action) error {
	moveIfGiven := func() error {
		if a.X != nil && a.Y != nil {
			return conn.Move(*a.X, *a.Y)
		}
		return nil
	}
	switch a.Type {
	case api.ActionMove:
		return conn.Move(*a.X, *a.Y)
	case api.ActionButtonDown:
		return conn.ButtonDown(buttonOf(a.Button))
	case api.ActionButtonUp:
		return conn.ButtonUp(buttonOf(a.Button))
	case api.ActionClick:
		if err := moveIfGiven(); err != nil {
			return err
		}
		return conn.Click(buttonOf(a.Button), max(1, a.Count))
	case api.ActionKeyDown, api.ActionKeyUp:
		s, err := sym(a.Key)
		if err != nil {
			return err
		}
		if a.Type == api.ActionKeyDown {
			return conn.KeyDown(s)
		}
		return conn.KeyUp(s)
	case api.ActionKey:
		syms := make([]keysym.Sym, len(a.Keys))
		for i, k := range a.Keys {
			s, err := sym(k)
			if err != nil {
				return err
			}
			syms[i] = s
		}
		for range max(1, a.Repeat) {
			if err := conn.Chord(syms); err != nil {
				return err
			}
		}
		return nil
	case api.ActionType:
		return conn.Type(a.Text)
	case api.ActionScroll:
		if err := moveIfGiven(); err != nil {
			return err
		}
		return conn.Scroll(a.DX, a.DY)
	case api.ActionDrag:
		// Each point is sent before the pause that follows it, so
		// applications see motion with the button held rather than a jump.
		b := buttonOf(a.Button)
		release := func(err error) error {
			_ = conn.ButtonUp(b) // sent by Run's Sync
			return err
		}
		if err := conn.Move(a.Path[0][0], a.Path[0][1]); err != nil {
			return err
		}
		if err := conn.ButtonDown(b); err != nil {
			return err
		}
		if err := conn.Sync(); err != nil {
			return release(err)
		}
		for _, p := range a.Path[1:] {
			if err := sleep(ctx, dragStep); err != nil {
				return release(err)
			}
			if err := conn.Move(p[0], p[1]); err != nil {
				return release(err)
			}
			if err := conn.Sync(); err != nil {
				return release(err)
			}
		}
		if err := sleep(ctx, dragStep); err != nil {
			return release(err)
		}
		return conn.ButtonUp(b)
	case api.ActionWait:
		return sleep(ctx, time.Duration(a.MS)*time.Millisecond)
	}
	return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("type: unknown action type %q", a.Type))
}

// waitIdle waits until the screen has been quiet for a.MS (and, with
// a.Commands, no command runs in a terminal of display) or a.TimeoutMS
// (zero: api.DefaultSettleTimeoutMS) has passed, and says which.
func waitIdle(ctx context.Context, conn *x11.Conn, display string, a api.Action) (*bool, error) {
	timeoutMS := a.TimeoutMS
	if timeoutMS == 0 {
		timeoutMS = api.DefaultSettleTimeoutMS
	}
	quiet, timeout := time.Duration(a.MS)*time.Millisecond, time.Duration(timeoutMS)*time.Millisecond
	if a.Processes {
		started := time.Now()
		_, ok := waitQuiet(ctx.Done(), func(pid int) bool { return notSelf(pid) && shownOn(pid, display) }, timeout)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !ok {
			no := false
			return &no, nil
		}
		timeout = max(0, timeout-time.Since(started))
	}
	if a.Commands {
		ok, err := waitCommands(ctx, conn, display, quiet, time.Now().Add(max(timeout, quiet)))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, unavailable(err)
		}
		return &ok, nil
	}
	st, err := conn.WaitIdle(quiet, timeout)
	if err != nil {
		return nil, unavailable(err)
	}
	return &st.Settled, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
