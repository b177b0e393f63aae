package agentd

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/browser"
	"github.com/deskrun/deskrun/api"
	"github.com/labstack/echo/v4"
)

// browsers are the browsers agentd drives: its own (started on demand on
// the desktop's display, DevTools on a pipe) and the ones it attached to
// on a loopback DevTools port.
type browsers struct {
	s      *Server
	mu     sync.Mutex
	own    *browser.Browser
	remote map[int]*browser.Browser
}

func newBrowsers(s *Server) *browsers { return &browsers{s: s, remote: map[int]*browser.Browser{}} }

// debugPort matches the DevTools port on a browser's command line.
var debugPort = regexp.MustCompile(`--remote-debugging-port=(\d+)`)

// pick returns the browser a request names by its port.
func (bs *browsers) pick(port int) (*browser.Browser, error) {
	if port == -1 {
		port = runningDebugPort(bs.s.desk.display, bs.s.cfg.SoleDesktop)
	}
	if port < 0 || port > 65535 {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("port: %d out of range (0 for agentd's browser, -1 for the desktop's)", port))
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if port == 0 {
		if bs.own == nil {
			scr := bs.s.desk.screen()
			bs.own = browser.New(browser.Config{Display: bs.s.desk.display, Width: scr.Width, Height: scr.Height})
		}
		return bs.own, nil
	}
	b := bs.remote[port]
	if b == nil {
		b = browser.New(browser.Config{Remote: "http://127.0.0.1:" + strconv.Itoa(port)})
		bs.remote[port] = b
	}
	return b, nil
}

// runningDebugPort finds a browser running on this desktop's display
// (processes of other desktops on the same host, as the local provider
// runs them, are not considered) started with --remote-debugging-port=N
// and returns N, or 0. A browser whose display cannot be told (see
// processDisplay; the launcher of a detached browser has exited) is taken
// only when sole says every process of the host is on this desktop.
func runningDebugPort(display string, sole bool) int {
	untold := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), "--remote-debugging-port=") || strings.Contains(string(b), "--type=") {
			continue
		}
		m := debugPort.FindSubmatch(b)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(string(m[1]))
		if n <= 0 {
			continue
		}
		d, ok := processDisplay(pid, display)
		if ok && d == display {
			return n
		}
		if !ok && untold == 0 {
			untold = n
		}
	}
	if sole {
		return untold
	}
	return 0
}

// processDisplay returns the X display a process was started on: the
// DISPLAY of its environment, else of its nearest ancestor that has one.
// Chromium writes its process title over its environment when its
// command line is long (the flags of the images' wrapper), so its own
// holds no DISPLAY; the process that launched it tells. A process
// agentd started is on agentd's display, own. ok is false when no
// ancestor tells.
func processDisplay(pid int, own string) (string, bool) {
	for range 8 {
		if pid <= 1 {
			return "", false
		}
		if pid == os.Getpid() {
			return own, true
		}
		env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
		if err == nil {
			for _, kv := range bytes.Split(env, []byte{0}) {
				if v, ok := bytes.CutPrefix(kv, []byte("DISPLAY=")); ok {
					return string(v), true
				}
			}
		}
		st, ok := readStat(pid)
		if !ok {
			return "", false
		}
		pid = st.ppid
	}
	return "", false
}

func (bs *browsers) closeAll() {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if bs.own != nil {
		bs.own.Close()
	}
	for _, b := range bs.remote {
		b.Close()
	}
}

func (s *Server) browserCall(c echo.Context) error {
	action := c.Param("action")
	if !slices.Contains(api.BrowserActions, action) {
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("action: unknown browser action %q (want one of %s)", action, strings.Join(api.BrowserActions, ", ")))
	}
	var r api.BrowserRequest
	if c.Request().ContentLength != 0 {
		if err := decode(c, &r); err != nil {
			return err
		}
	}
	b, err := s.browsers.pick(r.Port)
	if err != nil {
		return err
	}
	res, err := runBrowser(c, b, action, r)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func runBrowser(c echo.Context, b *browser.Browser, action string, r api.BrowserRequest) (api.BrowserResult, error) {
	ctx := c.Request().Context()
	var out api.BrowserResult
	target := browser.Target{Index: r.Index, X: r.X, Y: r.Y}
	point := func() (float64, float64, error) {
		if r.X == nil || r.Y == nil {
			return 0, 0, errdefs.ErrInvalidArgument.WithMessage("x: both x and y are required")
		}
		return *r.X, *r.Y, nil
	}
	var err error
	switch action {
	case "view":
		var v browser.View
		v, err = b.View(ctx, r.Screenshot)
		out = api.BrowserResult{URL: v.URL, Title: v.Title, Text: v.Text, Elements: v.Elements, Scroll: v.Scroll, Screenshot: v.Screenshot}
	case "navigate":
		err = b.Navigate(ctx, r.URL)
	case "click":
		err = b.Click(ctx, target)
	case "input":
		err = b.Input(ctx, target, r.Text, r.PressEnter)
	case "move_mouse":
		var x, y float64
		if x, y, err = point(); err == nil {
			err = b.MoveMouse(ctx, x, y)
		}
	case "press_key":
		err = b.PressKey(ctx, r.Key)
	case "select_option":
		if r.Index == nil || r.Option == nil {
			return out, errdefs.ErrInvalidArgument.WithMessage("index: both index and option are required")
		}
		err = b.SelectOption(ctx, *r.Index, *r.Option)
	case "scroll_up":
		err = b.Scroll(ctx, -1, r.Edge)
	case "scroll_down":
		err = b.Scroll(ctx, 1, r.Edge)
	case "console_exec":
		if r.Tab != "" {
			out.Value, err = b.EvalIn(ctx, r.Tab, r.JavaScript)
		} else {
			out.Value, err = b.ConsoleExec(ctx, r.JavaScript)
		}
	case "page":
		var p browser.Page
		p, err = b.Page(ctx, r.Tab, r.URL)
		out.URL, out.Title, out.Content = p.URL, p.Title, p.Content
	case "console_view":
		out.Lines, err = b.ConsoleLines(ctx, r.MaxLines)
	case "save_image":
		var x, y float64
		if x, y, err = point(); err == nil {
			out.Path, err = b.SaveImage(ctx, x, y, r.SaveDir, r.BaseName)
		}
	case "restart":
		err = b.Restart(ctx)
	case "tabs":
		var tabs []browser.Tab
		tabs, err = b.Tabs(ctx)
		for _, t := range tabs {
			out.Tabs = append(out.Tabs, api.BrowserTab{ID: t.ID, URL: t.URL, Title: t.Title, Active: t.Active})
		}
	case "open_tabs":
		err = b.OpenTabs(ctx, r.URLs)
	case "close_tabs":
		out.Closed, err = b.CloseTabs(ctx, r.IDs)
	}
	return out, err
}
