package agentd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/x11"
)

// desktop owns the X server connection and, when agentd started it, the
// Xvfb and window manager processes, which it restarts if they die.
type desktop struct {
	cfg Config
	log *slog.Logger

	mu      sync.RWMutex
	conn    *x11.Conn
	display string
	xvfb    *exec.Cmd
	xauth   *xAuthority // the access control of the Xvfb agentd starts
	wm      *exec.Cmd
	closed  bool
	exited  chan struct{} // closed when the current Xvfb exits

	wmExited  chan struct{} // closed when the current window manager exits
	wmStarted time.Time
	wmDelay   time.Duration // current restart backoff

	// Redialling an attached display (see get).
	dialMu   sync.Mutex
	lastDial time.Time
	dialErr  error

	stop    chan struct{}
	stopped chan struct{}
}

func startDesktop(ctx context.Context, cfg Config, log *slog.Logger) (*desktop, error) {
	d := &desktop{cfg: cfg, log: log, display: cfg.Display, stop: make(chan struct{}), stopped: make(chan struct{})}
	if !cfg.Xvfb {
		if d.display == "" {
			d.display = os.Getenv("DISPLAY")
		}
		c, err := x11.Dial(d.display)
		if err != nil {
			return nil, err
		}
		d.conn = c
		close(d.stopped)
		return d, nil
	}
	xa, err := newXAuthority()
	if err != nil {
		return nil, err
	}
	d.xauth = xa
	if err := d.startX(ctx); err != nil {
		xa.remove()
		return nil, err
	}
	go d.supervise()
	return d, nil
}

// startX starts Xvfb (on cfg.Display, or a free display it picks), dials
// it and starts the window manager.
func (d *desktop) startX(ctx context.Context) error {
	s := d.cfg.Screen
	args := []string{"-screen", "0", fmt.Sprintf("%dx%dx24", s.Width, s.Height), "-nolisten", "tcp", "+extension", "MIT-SHM", "-noreset", "-auth", d.xauth.server}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	// Xvfb writes its display number to -displayfd once it accepts
	// connections, also for a display named on the command line: until
	// then a client of that display may reach another server holding it.
	args = append(args, "-displayfd", "3")
	if d.display != "" {
		args = append([]string{d.display}, args...)
	}
	cmd := exec.Command("Xvfb", args...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderr := &logWriter{log: d.log, name: "Xvfb"}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("start Xvfb: %w", err)
	}
	w.Close()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	line := make(chan string, 1)
	go func() { s, _ := bufio.NewReader(r).ReadString('\n'); line <- strings.TrimSpace(s) }()
	select {
	case n := <-line:
		if n == "" { // Xvfb closed the descriptor: it is exiting
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				killWait(cmd, exited)
			}
			return fmt.Errorf("Xvfb exited at start%s", stderr.lastLines())
		}
		if _, err := strconv.Atoi(n); err != nil {
			killWait(cmd, exited)
			return fmt.Errorf("Xvfb did not report a display (got %q)%s", n, stderr.lastLines())
		}
		if d.display != "" && d.display != ":"+n {
			killWait(cmd, exited)
			return fmt.Errorf("Xvfb started on :%s, not on %s", n, d.display)
		}
		d.display = ":" + n
		if err := d.xauth.admit(d.display); err != nil {
			killWait(cmd, exited)
			return err
		}
	case <-exited:
		return fmt.Errorf("Xvfb exited at start%s", stderr.lastLines())
	case <-ctx.Done():
		killWait(cmd, exited)
		return ctx.Err()
	case <-time.After(30 * time.Second):
		killWait(cmd, exited)
		return fmt.Errorf("Xvfb did not start within 30s")
	}
	var conn *x11.Conn
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err = x11.Dial(d.display)
		if err == nil {
			break
		}
		select {
		case <-exited:
			return fmt.Errorf("Xvfb on %s exited at start%s", d.display, stderr.lastLines())
		case <-ctx.Done():
			killWait(cmd, exited)
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			killWait(cmd, exited)
			return fmt.Errorf("Xvfb on %s does not answer: %w", d.display, err)
		}
	}
	wm, wmExited := d.startWM(conn)
	d.mu.Lock()
	if d.closed {
		// close ran meanwhile and did not see these processes.
		d.mu.Unlock()
		_ = conn.Close()
		stopWM(wm, wmExited)
		killWait(cmd, exited)
		return errStopping
	}
	d.conn, d.xvfb, d.exited, d.wm, d.wmExited = conn, cmd, exited, wm, wmExited
	d.wmStarted = time.Now()
	d.mu.Unlock()
	d.log.Info("X server ready", "display", d.display, "shm", conn.SHM())
	return nil
}

var errStopping = errdefs.ErrUnavailable.WithMessage("agentd is stopping")

// startWM starts the configured window manager on conn's display and
// waits until it manages windows. It returns nil when none is configured
// or it does not start.
func (d *desktop) startWM(conn *x11.Conn) (*exec.Cmd, chan struct{}) {
	if d.cfg.WM == "" {
		return nil, nil
	}
	if d.cfg.WMReady != "" {
		if err := os.Remove(d.cfg.WMReady); err != nil && !errors.Is(err, os.ErrNotExist) {
			d.log.Warn("remove the window manager's ready file", "file", d.cfg.WMReady, "err", err)
		}
	}
	wm := exec.Command(d.cfg.WM)
	wm.Env = append(os.Environ(), "DISPLAY="+d.display)
	wm.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	wm.Stderr = &logWriter{log: d.log, name: d.cfg.WM}
	if err := wm.Start(); err != nil {
		d.log.Warn("window manager did not start", "wm", d.cfg.WM, "err", err)
		return nil, nil
	}
	exited := make(chan struct{})
	go func() { _ = wm.Wait(); close(exited) }()
	// Report ready only once the window manager manages windows: a window
	// mapped before it is up may stay unmanaged, with no focus and no
	// place in the window list.
	deadline := time.Now().Add(10 * time.Second)
	for !conn.WMRunning() && time.Now().Before(deadline) {
		select {
		case <-exited:
			d.log.Warn("window manager exited at start", "wm", d.cfg.WM)
			return wm, exited
		case <-time.After(10 * time.Millisecond):
		}
	}
	if !conn.WMRunning() {
		d.log.Warn("window manager did not announce itself within 10s", "wm", d.cfg.WM)
	}
	if d.cfg.WMReady != "" {
		deadline := time.Now().Add(wmReadyWait)
		for {
			if _, err := os.Stat(d.cfg.WMReady); err == nil {
				break
			}
			if time.Now().After(deadline) {
				d.log.Warn("window manager did not say it is ready", "wm", d.cfg.WM, "file", d.cfg.WMReady, "after", wmReadyWait)
				break
			}
			select {
			case <-exited:
				d.log.Warn("window manager exited at start", "wm", d.cfg.WM)
				return wm, exited
			case <-time.After(20 * time.Millisecond):
			}
		}
		took, quiet := waitQuiet(exited, notSelf, startQuietWait)
		d.log.Info("desktop settled after start", "wm", d.cfg.WM, "after", took.Round(time.Millisecond), "quiet", quiet)
	}
	return wm, exited
}

// wmReadyWait bounds the wait for Config.WMReady.
const wmReadyWait = 30 * time.Second

// stopWM ends a window manager started by startWM and waits for it.
func stopWM(wm *exec.Cmd, exited chan struct{}) {
	if wm == nil {
		return
	}
	_ = syscall.Kill(-wm.Process.Pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-wm.Process.Pid, syscall.SIGKILL)
		<-exited
	}
}

// supervise restarts Xvfb (and the window manager) when it dies, and the
// window manager alone when only it dies.
func (d *desktop) supervise() {
	defer close(d.stopped)
	for {
		d.mu.RLock()
		exited, wmExited := d.exited, d.wmExited
		d.mu.RUnlock()
		select {
		case <-d.stop:
			return
		case <-exited:
			if !d.restartX() {
				return
			}
		case <-wmExited:
			d.restartWM(exited)
		}
	}
}

// restartX replaces a dead Xvfb, trying until it succeeds or agentd
// stops (then it reports false).
func (d *desktop) restartX() bool {
	d.log.Warn("Xvfb exited; restarting it", "display", d.display)
	d.mu.Lock()
	conn, wm, wmExited := d.conn, d.wm, d.wmExited
	d.conn, d.wm, d.wmExited = nil, nil, nil
	d.mu.Unlock()
	if conn != nil {
		_ = conn.Close()
	}
	stopWM(wm, wmExited)
	for {
		select {
		case <-d.stop:
			return false
		default:
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-d.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		err := d.startX(ctx)
		cancel()
		if err == nil {
			return true
		}
		d.log.Error("restart Xvfb", "err", err)
		select {
		case <-d.stop:
			return false
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// wmBackoff is the pause before restarting a window manager that ran for
// less than wmStable; it doubles up to wmMaxBackoff while it keeps
// crashing.
const (
	wmStable     = 10 * time.Second
	wmBackoff    = 500 * time.Millisecond
	wmMaxBackoff = 30 * time.Second
)

// restartWM restarts the window manager after it exited while Xvfb
// (whose exit channel is xExited) runs on.
func (d *desktop) restartWM(xExited chan struct{}) {
	d.mu.Lock()
	ran := time.Since(d.wmStarted)
	if ran >= wmStable {
		d.wmDelay = 0
	} else {
		d.wmDelay = min(max(2*d.wmDelay, wmBackoff), wmMaxBackoff)
	}
	delay, conn := d.wmDelay, d.conn
	d.wm, d.wmExited = nil, nil
	d.mu.Unlock()
	d.log.Warn("window manager exited; restarting it", "wm", d.cfg.WM, "ran", ran.Round(time.Millisecond), "after", delay)
	select {
	case <-d.stop:
		return
	case <-xExited:
		return // restarting Xvfb starts the window manager too
	case <-time.After(delay):
	}
	if conn == nil {
		return
	}
	wm, wmExited := d.startWM(conn)
	d.mu.Lock()
	if d.closed || d.conn != conn {
		d.mu.Unlock()
		stopWM(wm, wmExited)
		return
	}
	d.wm, d.wmExited, d.wmStarted = wm, wmExited, time.Now()
	d.mu.Unlock()
}

// get returns the X connection, or an unavailable error while the X
// server is down. Attached to a display agentd did not start, it dials
// again (at most every redialEvery) after the connection was lost.
func (d *desktop) get() (*x11.Conn, error) {
	d.mu.RLock()
	c, closed := d.conn, d.closed
	d.mu.RUnlock()
	switch {
	case c != nil:
		return c, nil
	case closed:
		return nil, errdefs.ErrUnavailable.WithMessage("agentd is stopping")
	case d.cfg.Xvfb:
		return nil, errdefs.ErrUnavailable.WithMessage("the X server is not running (restarting)")
	}
	return d.redial()
}

// redialEvery spaces the attempts to reach an attached display again.
const redialEvery = 100 * time.Millisecond

func (d *desktop) redial() (*x11.Conn, error) {
	d.dialMu.Lock()
	defer d.dialMu.Unlock()
	d.mu.RLock()
	c := d.conn
	d.mu.RUnlock()
	if c != nil {
		return c, nil
	}
	if time.Since(d.lastDial) < redialEvery && d.dialErr != nil {
		return nil, d.dialErr
	}
	d.lastDial = time.Now()
	c, err := x11.Dial(d.display)
	if err != nil {
		d.dialErr = errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("the X server on %s does not answer: %v", d.display, err))
		return nil, d.dialErr
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		_ = c.Close()
		return nil, errdefs.ErrUnavailable.WithMessage("agentd is stopping")
	}
	d.conn, d.dialErr = c, nil
	d.mu.Unlock()
	d.log.Info("X server reached again", "display", d.display)
	return c, nil
}

// ping checks that the X server answers.
func (d *desktop) ping() error {
	c, err := d.get()
	if err != nil {
		return err
	}
	if err := ping(c); err != nil {
		if !errors.Is(err, errPingTimeout) {
			d.lost(c)
		}
		return errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("the X server on %s does not answer: %v", d.display, err))
	}
	return nil
}

// pingTimeout bounds a health check's round trip: a stopped or stuck X
// server makes health red instead of hanging the call.
const pingTimeout = 2 * time.Second

var errPingTimeout = fmt.Errorf("no answer within %v", pingTimeout)

// ping is c.Ping bounded by pingTimeout. On timeout the round trip goes on
// in the background until the server answers or the connection closes.
func ping(c *x11.Conn) error {
	ch := make(chan error, 1)
	go func() { ch <- c.Ping() }()
	t := time.NewTimer(pingTimeout)
	defer t.Stop()
	select {
	case err := <-ch:
		return err
	case <-t.C:
		return errPingTimeout
	}
}

// failed is the answer to err, returned by a call on c: when the X server
// no longer answers, an unavailable error (and c is dropped, see lost);
// otherwise err as it is.
func (d *desktop) failed(c *x11.Conn, err error) error {
	perr := ping(c)
	if perr == nil {
		return err
	}
	if !errors.Is(perr, errPingTimeout) {
		d.lost(c)
	}
	if errdefs.IsUnavailable(err) {
		return err
	}
	return errdefs.ErrUnavailable.WithMessage(err.Error())
}

// lost drops a connection that no longer reaches the X server, when
// agentd is attached to a display it did not start: the next call dials
// again. With Xvfb the supervisor replaces the connection when it
// restarts the server.
func (d *desktop) lost(c *x11.Conn) {
	if d.cfg.Xvfb {
		return
	}
	d.mu.Lock()
	if d.conn != c {
		d.mu.Unlock()
		return
	}
	d.conn = nil
	d.mu.Unlock()
	_ = c.Close()
	d.log.Warn("lost the X server", "display", d.display)
}

func (d *desktop) screen() api.Screen {
	c, err := d.get()
	if err != nil {
		return d.cfg.Screen
	}
	w, h := c.Size()
	return api.Screen{Width: w, Height: h}
}

// close stops the window manager and Xvfb and waits for them.
func (d *desktop) close() {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.closed = true
	close(d.stop)
	conn, xvfb, wm, exited, wmExited := d.conn, d.xvfb, d.wm, d.exited, d.wmExited
	d.conn = nil
	d.mu.Unlock()
	if conn != nil {
		_ = conn.Close()
	}
	stopWM(wm, wmExited)
	if xvfb != nil {
		_ = syscall.Kill(-xvfb.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			killWait(xvfb, exited)
		}
	}
	<-d.stopped
	if d.xauth != nil {
		d.xauth.remove()
	}
}

func killWait(cmd *exec.Cmd, exited chan struct{}) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-exited
}

// logWriter forwards a child's stderr to the log, a line at a time, and
// keeps the last lines for error messages.
type logWriter struct {
	log  *slog.Logger
	name string

	mu   sync.Mutex
	last []string
}

// keptLines is how many of the last stderr lines an error quotes.
const keptLines = 3

func (w *logWriter) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		w.log.Debug(l, "proc", w.name)
		// X servers mark error lines with "(EE)", some with nothing else.
		if l = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "(EE)"), "(EE)")); l != "" {
			w.mu.Lock()
			w.last = append(w.last, l)
			if len(w.last) > keptLines {
				w.last = w.last[1:]
			}
			w.mu.Unlock()
		}
	}
	return len(p), nil
}

// lastLines returns the last lines written, prefixed with ": ", or "".
func (w *logWriter) lastLines() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.last) == 0 {
		return ""
	}
	return ": " + strings.Join(w.last, " ")
}
