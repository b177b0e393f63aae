package agentd

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/labstack/echo/v4"
)

// Shell sessions: each command runs in its own bash process, started in
// the session's directory with the session's exported variables; when it
// ends, its final directory and environment become the session's. So
// `cd` and `export` carry over between calls, and a running command's
// standard input stays open for write calls.
//
// A command is finished when its bash exits, even if it left programs
// running in the background (`server &`): those keep running, their
// output joins the session's current output as in a terminal, and they
// end with the session's kill or with agentd. Completion is told by a
// marker bash writes to the output pipe after the command (on a
// descriptor the command cannot reach), so every byte the command wrote
// is in the output before it counts as finished.

// maxShellOutput is how much of a command's output a session keeps (the
// most recent part).
const maxShellOutput = 1 << 20

// shellScript runs the command; on exit (also through `exit` in the
// command) it reports the directory and environment it ended with on fd 3
// (NUL-separated, an empty entry last) and then writes the end marker
// (%s) to fd 4, a copy of the output pipe. Neither descriptor's end of
// file tells anything: subshells left in the background hold bash's
// saved copies of them.
const shellScript = `__deskrun_end() {
	__deskrun_rc=$?
	{ printf '%%s\0' "$PWD"; env -0; printf '\0'; } >&3
	printf '%s' >&4
	exit $__deskrun_rc
}
trap __deskrun_end EXIT
eval "$DESKRUN_SHELL_COMMAND" 3>&- 4>&-`

// markerGrace is how long after bash exits without writing the end
// marker (killed, or the command replaced the exit trap) its output is
// still collected.
const markerGrace = 200 * time.Millisecond

var shellID = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

type shells struct {
	s  *Server
	mu sync.Mutex
	m  map[string]*shell
}

type shell struct {
	id  string
	out atomic.Pointer[tail] // output of the current command

	mu      sync.Mutex
	dir     string
	env     []string // nil: agentd's environment
	command string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	exit    *int
	done    chan struct{}
	groups  []int // process groups of the session's commands
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
	// Trim only once twice the cap is reached, so that heavy output does
	// not copy the whole buffer on every write.
	if len(t.buf) > 2*t.n {
		t.buf = append(make([]byte, 0, 2*t.n), t.buf[len(t.buf)-t.n:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf[max(0, len(t.buf)-t.n):])
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

func (sh *shell) state() api.Shell {
	st := api.Shell{ID: sh.id, Dir: sh.dir, Command: sh.command, ExitCode: sh.exit}
	if out := sh.out.Load(); out != nil {
		st.Output = out.String()
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
	var req api.ShellExecRequest
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
	if req.Dir != "" && !filepath.IsAbs(req.Dir) {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("dir: %q is not an absolute path", req.Dir))
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
	done, err := s.startShellCommand(sh, req)
	sh.mu.Unlock()
	if err != nil {
		return err
	}
	return s.shellAnswer(c, sh, done, wait)
}

// startShellCommand starts req.Command in sh, whose lock the caller
// holds, and returns the channel closed when it has finished.
func (s *Server) startShellCommand(sh *shell, req api.ShellExecRequest) (chan struct{}, error) {
	dir := sh.dir
	if req.Dir != "" {
		dir = req.Dir
	}
	var nonce [12]byte
	_, _ = rand.Read(nonce[:])
	marker := []byte("\x00deskrun-end-" + hex.EncodeToString(nonce[:]) + "\x00")
	script := fmt.Sprintf(shellScript, `\0deskrun-end-`+hex.EncodeToString(nonce[:])+`\0`)
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	endR, endW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command("bash", "-c", script)
	env := sh.env
	if env == nil {
		env = s.env(nil)
	}
	cmd.Env = append(append([]string(nil), env...), "DESKRUN_SHELL_COMMAND="+req.Command)
	cmd.Dir = dir
	// Stdout and stderr are the pipe itself, not copied by os/exec: a
	// program left in the background may keep it open for as long as
	// it runs.
	cmd.Stdout, cmd.Stderr = outW, outW
	cmd.ExtraFiles = []*os.File{endW, outW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	outW.Close()
	endW.Close()
	if err != nil {
		outR.Close()
		endR.Close()
		return nil, errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("start the command in %s: %v", dir, err))
	}
	pgid := cmd.Process.Pid
	s.track(pgid)
	out := &tail{n: maxShellOutput}
	sh.out.Store(out)
	sh.command, sh.cmd, sh.stdin, sh.exit = req.Command, cmd, stdin, nil
	sh.groups = append(sh.groups, pgid)
	done := make(chan struct{})
	sh.done = done
	ended := make(chan struct{})
	go sh.drain(outR, marker, ended)
	trailerC := make(chan []byte, 1)
	go func() { trailerC <- readTrailer(endR) }()
	go func() {
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
			if code < 0 {
				code = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
			}
		}
		// bash wrote the trailer and then the marker before exiting,
		// unless it was killed or the command replaced the exit trap.
		var trailer []byte
		grace := time.NewTimer(markerGrace)
		select {
		case trailer = <-trailerC:
			select {
			case <-ended:
			case <-grace.C:
			}
		case <-grace.C:
		}
		grace.Stop()
		sh.mu.Lock()
		sh.exit = &code
		if parts := bytes.Split(trailer, []byte{0}); len(parts) > 1 && len(parts[0]) > 0 {
			sh.dir = string(parts[0])
			var env []string
			for _, kv := range parts[1:] {
				if k, _, ok := strings.Cut(string(kv), "="); ok && k != "DESKRUN_SHELL_COMMAND" && k != "_" && k != "SHLVL" && k != "PWD" && k != "OLDPWD" {
					env = append(env, string(kv))
				}
			}
			sh.env = env
		}
		sh.mu.Unlock()
		close(done)
	}()
	return done, nil
}

// readTrailer reads what the shell script reports on fd 3 up to its
// terminating empty entry, then closes r. It returns nil when the report
// is missing or incomplete.
func readTrailer(r *os.File) []byte {
	defer r.Close()
	var b []byte
	buf := make([]byte, 16<<10)
	for {
		n, err := r.Read(buf)
		b = append(b, buf[:n]...)
		if bytes.HasSuffix(b, []byte{0, 0}) {
			return b
		}
		if err != nil {
			return nil
		}
	}
}

// drain copies a command's output pipe into the session's current output
// until every writer has closed it, and closes ended when it sees the end
// marker (which it drops).
func (sh *shell) drain(r *os.File, marker []byte, ended chan struct{}) {
	defer r.Close()
	buf := make([]byte, 32<<10)
	var held []byte // a possible start of the marker, not yet shown
	seen := false
	for {
		n, err := r.Read(buf)
		if n > 0 {
			data := append(held, buf[:n]...)
			held = nil
			if !seen {
				if i := bytes.Index(data, marker); i >= 0 {
					_, _ = sh.out.Load().Write(data[:i])
					data = data[i+len(marker):]
					seen = true
					close(ended)
				} else if k := markerPrefix(data, marker); k > 0 {
					held = append([]byte(nil), data[len(data)-k:]...)
					data = data[:len(data)-k]
				}
			}
			_, _ = sh.out.Load().Write(data)
		}
		if err != nil {
			_, _ = sh.out.Load().Write(held)
			return
		}
	}
}

// markerPrefix returns the length of the longest end of data that begins
// marker (shorter than marker).
func markerPrefix(data, marker []byte) int {
	for k := min(len(data), len(marker)-1); k > 0; k-- {
		if bytes.HasSuffix(data, marker[:k]) {
			return k
		}
	}
	return 0
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
	var req api.ShellWaitRequest
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
	var req api.ShellWriteRequest
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

// kill ends the session's running command and whatever its commands
// left running in the background, and waits for the command.
func (sh *shell) kill() {
	sh.mu.Lock()
	groups, done := sh.groups, sh.done
	sh.groups = nil
	sh.mu.Unlock()
	for _, g := range groups {
		_ = syscall.Kill(-g, syscall.SIGKILL)
	}
	if done != nil {
		<-done
	}
}
