package agentd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/internal/sandboxfs"
	"github.com/deskrun/deskrun/api"
	"github.com/labstack/echo/v4"
)

// env is the environment of commands: agentd's own (cmd/agentd removes
// AGENTD_TOKEN from it), the desktop's DISPLAY, the pyautogui module on
// PYTHONPATH and the local socket it reaches agentd by (no token), then
// extra.
func (s *Server) env(extra map[string]string) []string {
	// an application started before the accessibility bus is up would
	// never publish its tree
	s.waitA11y(5 * time.Second)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NO_AT_BRIDGE=") { // it would hide GTK applications' trees
			env = append(env, kv)
		}
	}
	env = append(env, s.appEnv()...)
	py := s.pyPath
	if old := os.Getenv("PYTHONPATH"); old != "" {
		py += ":" + old
	}
	env = append(env, "DISPLAY="+s.desk.display, "PYTHONPATH="+py, "AGENTD_URL="+s.selfURL, commandMarkEnv+"="+s.mark)
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

// track remembers the process group of a command, so that what it left
// running in the background ends with agentd.
func (s *Server) track(pgid int) {
	s.groupsMu.Lock()
	s.groups = append(s.groups, pgid)
	s.groupsMu.Unlock()
}

// killGroups ends every process group commands started.
func (s *Server) killGroups() {
	s.groupsMu.Lock()
	defer s.groupsMu.Unlock()
	for _, g := range s.groups {
		_ = syscall.Kill(-g, syscall.SIGKILL)
	}
	s.groups = nil
}

func home() string {
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return "/"
}

// capped keeps the first n bytes written to it and notes the rest. Once
// frozen it discards everything.
type capped struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	n         int
	truncated bool
	frozen    bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frozen {
		return len(p), nil
	}
	if room := c.n - c.buf.Len(); room < len(p) {
		c.truncated = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// freeze returns what was kept and whether more was written, and
// discards all later writes.
func (c *capped) freeze() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frozen = true
	return c.buf.String(), c.truncated
}

// outputGrace bounds how long, after the command exits, exec waits for
// the end of its output while programs it left in the background keep the
// output open.
const outputGrace = 200 * time.Millisecond

// drainTo copies r into w until every writer has closed r, then closes
// eof and r. Reading goes on after the command's answer (into a frozen
// capped), so that background programs never write to a closed pipe.
func drainTo(r *os.File, w io.Writer, eof chan struct{}) {
	_, _ = io.Copy(w, r)
	r.Close()
	close(eof)
}

func (s *Server) exec(c echo.Context) error {
	var req api.ExecRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	res, err := s.Exec(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// Exec runs a command to completion (or its timeout, when its process
// group is killed) with the desktop's environment.
func (s *Server) Exec(ctx context.Context, req api.ExecRequest) (api.ExecResult, error) {
	timeout := time.Duration(req.TimeoutMS) * time.Millisecond
	if timeout == 0 {
		timeout = DefaultExecMS * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command(req.Cmd[0], req.Cmd[1:]...)
	cmd.Env = s.env(req.Env)
	cmd.Dir = req.Dir
	if cmd.Dir == "" {
		cmd.Dir = home()
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A program the command starts in the background (`xterm &`) keeps
	// running and may hold the output pipes. So they are plain pipes,
	// read until every writer is gone, and the answer does not wait for
	// that beyond outputGrace. WaitDelay covers stdin, which os/exec
	// copies and which such a program may hold unread.
	cmd.WaitDelay = outputGrace
	outR, outW, err := os.Pipe()
	if err != nil {
		return api.ExecResult{}, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return api.ExecResult{}, err
	}
	stdout, stderr := &capped{n: MaxOutput}, &capped{n: MaxOutput}
	cmd.Stdout, cmd.Stderr = outW, errW
	if req.Stdin != "" {
		cmd.Stdin = strings.NewReader(req.Stdin)
	}
	start := time.Now()
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		// The command could not start: a fact about the request.
		return api.ExecResult{ExitCode: 127, Stderr: err.Error(), DurationMS: time.Since(start).Milliseconds()}, nil
	}
	outEOF, errEOF := make(chan struct{}), make(chan struct{})
	go drainTo(outR, stdout, outEOF)
	go drainTo(errR, stderr, errEOF)
	s.track(cmd.Process.Pid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timedOut := false
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
		timedOut = true
	}
	graceCtx, cancelGrace := context.WithTimeout(context.Background(), outputGrace)
	for _, eof := range []chan struct{}{outEOF, errEOF} {
		select {
		case <-eof:
		case <-graceCtx.Done():
		}
	}
	cancelGrace()
	out, outCut := stdout.freeze()
	errOut, errCut := stderr.freeze()
	res := api.ExecResult{
		Stdout: out, Stderr: errOut,
		Truncated: outCut || errCut, TimedOut: timedOut,
		DurationMS: time.Since(start).Milliseconds(),
	}
	var ee *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		err = nil
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
		if res.ExitCode < 0 {
			res.ExitCode = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
		}
	default:
		return res, err
	}
	if timedOut && ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) {
		return res, context.Canceled
	}
	return res, nil
}

func filePath(c echo.Context) (string, error) {
	p := c.QueryParam("path")
	if err := api.CheckPath(p); err != nil {
		return "", err
	}
	p = filepath.Clean(p)
	if err := sandboxfs.Guard(p); err != nil {
		return "", err
	}
	return p, nil
}

func (s *Server) readFile(c echo.Context) error {
	p, err := filePath(c)
	if err != nil {
		return err
	}
	// Stat before opening: opening a FIFO would wait for a writer.
	st, err := os.Stat(p)
	if err != nil {
		return sandboxfs.Classify(p, err)
	}
	if err := sandboxfs.Regular(p, st); err != nil {
		return err
	}
	f, err := os.Open(p)
	if err != nil {
		return sandboxfs.Classify(p, err)
	}
	defer f.Close()
	if st.Size() > MaxFileSize {
		return errdefs.ErrOutOfRange.WithMessage(fmt.Sprintf("path: %s is %d bytes, over the %d-byte limit", p, st.Size(), MaxFileSize))
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return sandboxfs.Classify(p, err)
	}
	if len(b) > MaxFileSize { // it grew since the check
		return errdefs.ErrOutOfRange.WithMessage(fmt.Sprintf("path: %s is over the %d-byte limit", p, MaxFileSize))
	}
	c.Response().Header().Set(echo.HeaderContentLength, strconv.Itoa(len(b)))
	return c.Blob(http.StatusOK, "application/octet-stream", b)
}

func (s *Server) writeFile(c echo.Context) error {
	p, err := filePath(c)
	if err != nil {
		return err
	}
	if n := c.Request().ContentLength; n > MaxFileSize {
		return errdefs.ErrOutOfRange.WithMessage(fmt.Sprintf("body: %d bytes, over the %d-byte file limit", n, MaxFileSize))
	}
	body := http.MaxBytesReader(c.Response(), c.Request().Body, MaxFileSize)
	_, err = sandboxfs.Replace(p, body)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errdefs.ErrOutOfRange.WithMessage(fmt.Sprintf("body: over the %d-byte file limit", MaxFileSize))
	}
	if err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
