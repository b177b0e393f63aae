package agentd

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/labstack/echo/v4"
)

// commandMarkEnv marks the environment of every command agentd runs
// (exec, shells), which their children and daemons inherit, so that
// [Server.KillCommands] finds them even when they left agentd's process
// tree or process group. The desktop (Xvfb, the window manager) lacks it.
const commandMarkEnv = "DESKRUN_COMMANDS"

func newCommandMark() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// KillCommands kills every process the commands agentd ran left behind
// (background programs, daemons, a fork bomb), leaving the desktop and
// agentd running: rounds of stopping every marked process at once, then
// killing them, until a round finds none or ten seconds pass. Shell
// sessions and envd's processes (root's through sudo) end too. It
// returns how many processes it killed.
func (s *Server) KillCommands() (int, error) {
	killed := map[int]bool{}
	for _, p := range s.marked() {
		killed[p] = true
	}
	s.shells.closeAll()
	s.envd.KillProcesses()
	s.killGroups()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		pids := s.marked()
		if len(pids) == 0 {
			return len(killed), nil
		}
		// Stopped first, all of them, so none forks a replacement for
		// one being killed.
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGSTOP)
		}
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
			killed[p] = true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return len(killed), errStillRunning
}

var errStillRunning = errdefs.ErrUnavailable.WithMessage("processes of the commands are still running after 10s of killing them")

// marked lists the processes that carry this agentd's command mark.
func (s *Server) marked() []int {
	want := []byte(commandMarkEnv + "=" + s.mark + "\x00")
	inner := append([]byte{0}, want...)
	self := os.Getpid()
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.HasPrefix(env, want) && !bytes.Contains(env, inner) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

func (s *Server) kill(c echo.Context) error {
	n, err := s.KillCommands()
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, api.KillResult{Killed: n})
}
