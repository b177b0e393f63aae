package agentd

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api/wire"
	"github.com/labstack/echo/v4"
)

// Shell sessions: each command runs in its own bash process, started in
// the session's directory with the session's exported variables; when it
// ends, its final directory and environment become the session's. So
// `cd` and `export` carry over between calls, and a running command's
// standard input stays open for write calls.

// maxShellOutput is how much of a command's output a session keeps (the
// most recent part).
const maxShellOutput = 1 << 20

// shellScript runs the command and reports the directory and environment
// it ended with on fd 3.
const shellScript = `eval "$DESKRUN_SHELL_COMMAND" 3>&-
__deskrun_rc=$?
{ printf '%s\0' "$PWD"; env -0; } >&3
exit $__deskrun_rc`

var shellID = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

type shells struct {
	s  *Server
	mu sync.Mutex
	m  map[string]*shell
}

type shell struct {
	mu      sync.Mutex
	id      string
	dir     string
	env     []string // nil: agentd's environment
	command string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	out     *tail
	exit    *int
	done    chan struct{}
}

// tail keeps the last n bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	n   int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.n {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.n:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func newShells(s *Server) *shells { return &shells{s: s, m: map[string]*shell{}} }

func (ss *shells) get(id string, create bool) (*shell, error) {
	if !shellID.MatchString(id) {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("id: %q is not a shell id (1-64 of A-Z a-z 0-9 _ . -)", id))
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	sh, ok := ss.m[id]
	if !ok {
		if !create {
			return nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("no shell session %q", id))
		}
		sh = &shell{id: id, dir: home()}
		ss.m[id] = sh
	}
	return sh, nil
}

func (ss *shells) closeAll() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, sh := range ss.m {
		sh.kill()
	}
}

func (sh *shell) state() wire.Shell {
	st := wire.Shell{ID: sh.id, Dir: sh.dir, Command: sh.command, ExitCode: sh.exit}
	if sh.out != nil {
		st.Output = sh.out.String()
	}
	if sh.done != nil {
		select {
		case <-sh.done:
		default:
			st.Running = true
		}
	}
	return st
}

func waitDuration(ms int) (time.Duration, error) {
	if ms < 0 || ms > MaxExecMS {
		return 0, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("wait_ms: %d out of range 0..%d", ms, MaxExecMS))
	}
	if ms == 0 {
		return DefaultExecMS * time.Millisecond, nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

func (s *Server) shellExec(c echo.Context) error {
	var req wire.ShellExecRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.Command) == "" {
		return errdefs.ErrInvalidArgument.WithMessage("command: required")
	}
	wait, err := waitDuration(req.WaitMS)
	if err != nil {
		return err
	}
	sh, err := s.shells.get(c.Param("id"), true)
	if err != nil {
		return err
	}
	sh.mu.Lock()
	if st := sh.state(); st.Running {
		sh.mu.Unlock()
		return errdefs.ErrConflict.WithMessage(fmt.Sprintf("shell %q is still running %q; wait for it, write to it or kill it", sh.id, st.Command))
	}
	dir := sh.dir
	if req.Dir != "" {
		dir = req.Dir
	}
	r, w, err := os.Pipe()
	if err != nil {
		sh.mu.Unlock()
		return err
	}
	cmd := exec.Command("bash", "-c", shellScript)
	env := sh.env
	if env == nil {
		env = s.env(nil)
	}
	cmd.Env = append(append([]string(nil), env...), "DESKRUN_SHELL_COMMAND="+req.Command)
	cmd.Dir = dir
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out := &tail{n: maxShellOutput}
	cmd.Stdout, cmd.Stderr = out, out
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	w.Close()
	if err != nil {
		r.Close()
		sh.mu.Unlock()
		return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("start the command in %s: %v", dir, err))
	}
	sh.command, sh.cmd, sh.stdin, sh.out, sh.exit = req.Command, cmd, stdin, out, nil
	done := make(chan struct{})
	sh.done = done
	go func() {
		trailer, _ := io.ReadAll(r)
		r.Close()
		err := cmd.Wait()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
			if code < 0 {
				code = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
			}
		}
		sh.mu.Lock()
		sh.exit = &code
		if parts := bytes.Split(trailer, []byte{0}); len(parts) > 1 && len(parts[0]) > 0 {
			sh.dir = string(parts[0])
			var env []string
			for _, kv := range parts[1:] {
				if k, _, ok := strings.Cut(string(kv), "="); ok && k != "DESKRUN_SHELL_COMMAND" && k != "__deskrun_rc" && k != "_" && k != "SHLVL" && k != "PWD" && k != "OLDPWD" {
					env = append(env, string(kv))
				}
			}
			sh.env = env
		}
		sh.mu.Unlock()
		close(done)
	}()
	sh.mu.Unlock()
	return s.shellAnswer(c, sh, done, wait)
}

func (s *Server) shellAnswer(c echo.Context, sh *shell, done chan struct{}, wait time.Duration) error {
	if done != nil {
		t := time.NewTimer(wait)
		select {
		case <-done:
		case <-t.C:
		case <-c.Request().Context().Done():
		}
		t.Stop()
	}
	sh.mu.Lock()
	st := sh.state()
	sh.mu.Unlock()
	return c.JSON(http.StatusOK, st)
}

func (s *Server) shellView(c echo.Context) error {
	sh, err := s.shells.get(c.Param("id"), false)
	if err != nil {
		return err
	}
	return s.shellAnswer(c, sh, nil, 0)
}

func (s *Server) shellWait(c echo.Context) error {
	var req wire.ShellWaitRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	wait, err := waitDuration(req.WaitMS)
	if err != nil {
		return err
	}
	sh, err := s.shells.get(c.Param("id"), false)
	if err != nil {
		return err
	}
	sh.mu.Lock()
	done := sh.done
	sh.mu.Unlock()
	return s.shellAnswer(c, sh, done, wait)
}

func (s *Server) shellWrite(c echo.Context) error {
	var req wire.ShellWriteRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	sh, err := s.shells.get(c.Param("id"), false)
	if err != nil {
		return err
	}
	sh.mu.Lock()
	if !sh.state().Running {
		sh.mu.Unlock()
		return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("shell %q has no running command to write to", sh.id))
	}
	in := req.Input
	if req.PressEnter {
		in += "\n"
	}
	_, err = io.WriteString(sh.stdin, in)
	done := sh.done
	sh.mu.Unlock()
	if err != nil {
		return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("write to shell %q: %v", sh.id, err))
	}
	// Give the command a moment to answer what it was sent.
	return s.shellAnswer(c, sh, done, 300*time.Millisecond)
}

func (s *Server) shellKill(c echo.Context) error {
	sh, err := s.shells.get(c.Param("id"), false)
	if err != nil {
		return err
	}
	sh.kill()
	return s.shellAnswer(c, sh, nil, 0)
}

// kill ends the session's running command, if any, and waits for it.
func (sh *shell) kill() {
	sh.mu.Lock()
	cmd, done := sh.cmd, sh.done
	running := sh.state().Running
	sh.mu.Unlock()
	if !running || cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
}
