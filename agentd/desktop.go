package agentd

import (
	"bufio"
	"context"
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
	"github.com/deskrun/deskrun/api/wire"
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
	wm      *exec.Cmd
	closed  bool
	exited  chan struct{} // closed when the current Xvfb exits

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
	if err := d.startX(ctx); err != nil {
		return nil, err
	}
	go d.supervise()
	return d, nil
}

// startX starts Xvfb (on cfg.Display, or a free display it picks), dials
// it and starts the window manager.
func (d *desktop) startX(ctx context.Context) error {
	s := d.cfg.Screen
	args := []string{"-screen", "0", fmt.Sprintf("%dx%dx24", s.Width, s.Height), "-nolisten", "tcp", "+extension", "MIT-SHM", "-noreset"}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	if d.display != "" {
		args = append([]string{d.display}, args...)
	} else {
		args = append(args, "-displayfd", "3")
	}
	cmd := exec.Command("Xvfb", args...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = &logWriter{log: d.log, name: "Xvfb"}
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("start Xvfb: %w", err)
	}
	w.Close()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	if d.display == "" {
		line := make(chan string, 1)
		go func() { s, _ := bufio.NewReader(r).ReadString('\n'); line <- strings.TrimSpace(s) }()
		select {
		case n := <-line:
			if _, err := strconv.Atoi(n); err != nil {
				killWait(cmd, exited)
				return fmt.Errorf("Xvfb did not report a display (got %q)", n)
			}
			d.display = ":" + n
		case <-exited:
			return fmt.Errorf("Xvfb exited at start")
		case <-time.After(30 * time.Second):
			killWait(cmd, exited)
			return fmt.Errorf("Xvfb did not start within 30s")
		}
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
			return fmt.Errorf("Xvfb on %s exited at start", d.display)
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
	var wm *exec.Cmd
	if d.cfg.WM != "" {
		wm = exec.Command(d.cfg.WM)
		wm.Env = append(os.Environ(), "DISPLAY="+d.display)
		wm.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		wm.Stderr = &logWriter{log: d.log, name: d.cfg.WM}
		if err := wm.Start(); err != nil {
			d.log.Warn("window manager did not start", "wm", d.cfg.WM, "err", err)
			wm = nil
		} else {
			go func() { _ = wm.Wait() }()
			// Report ready only once the window manager manages windows:
			// a window mapped before it is up may stay unmanaged, with no
			// focus and no place in the window list.
			wmDeadline := time.Now().Add(10 * time.Second)
			for !conn.WMRunning() && time.Now().Before(wmDeadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if !conn.WMRunning() {
				d.log.Warn("window manager did not announce itself within 10s", "wm", d.cfg.WM)
			}
		}
	}
	d.mu.Lock()
	d.conn, d.xvfb, d.wm, d.exited = conn, cmd, wm, exited
	d.mu.Unlock()
	d.log.Info("X server ready", "display", d.display, "shm", conn.SHM())
	return nil
}

// supervise restarts Xvfb (and the window manager) when it dies.
func (d *desktop) supervise() {
	defer close(d.stopped)
	for {
		d.mu.RLock()
		exited := d.exited
		d.mu.RUnlock()
		select {
		case <-d.stop:
			return
		case <-exited:
		}
		d.log.Warn("Xvfb exited; restarting it", "display", d.display)
		d.mu.Lock()
		if d.conn != nil {
			_ = d.conn.Close()
			d.conn = nil
		}
		if d.wm != nil {
			_ = syscall.Kill(-d.wm.Process.Pid, syscall.SIGKILL)
			d.wm = nil
		}
		d.mu.Unlock()
		for {
			select {
			case <-d.stop:
				return
			default:
			}
			if err := d.startX(context.Background()); err != nil {
				d.log.Error("restart Xvfb", "err", err)
				select {
				case <-d.stop:
					return
				case <-time.After(500 * time.Millisecond):
				}
				continue
			}
			break
		}
	}
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
	if err := c.Ping(); err != nil {
		d.lost(c)
		return errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("the X server on %s does not answer: %v", d.display, err))
	}
	return nil
}

// failed is the answer to err, returned by a call on c: when the X server
// no longer answers, an unavailable error (and c is dropped, see lost);
// otherwise err as it is.
func (d *desktop) failed(c *x11.Conn, err error) error {
	if c.Ping() == nil {
		return err
	}
	d.lost(c)
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

func (d *desktop) screen() wire.Screen {
	c, err := d.get()
	if err != nil {
		return d.cfg.Screen
	}
	w, h := c.Size()
	return wire.Screen{Width: w, Height: h}
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
	conn, xvfb, wm, exited := d.conn, d.xvfb, d.wm, d.exited
	d.conn = nil
	d.mu.Unlock()
	if conn != nil {
		_ = conn.Close()
	}
	if wm != nil {
		_ = syscall.Kill(-wm.Process.Pid, syscall.SIGTERM)
	}
	if xvfb != nil {
		_ = syscall.Kill(-xvfb.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			killWait(xvfb, exited)
		}
	}
	<-d.stopped
}

func killWait(cmd *exec.Cmd, exited chan struct{}) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-exited
}

// logWriter forwards a child's stderr to the log, a line at a time.
type logWriter struct {
	log  *slog.Logger
	name string
}

func (w *logWriter) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if l != "" {
			w.log.Debug(l, "proc", w.name)
		}
	}
	return len(p), nil
}
