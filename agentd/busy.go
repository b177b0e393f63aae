package agentd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deskrun/deskrun/x11"
)

// terminalNames are the command names (as /proc/PID/stat shows them, cut at
// 15 bytes) of the terminal emulators whose shells are watched.
var terminalNames = []string{
	"xterm", "uxterm", "gnome-terminal-", "gnome-terminal", "xfce4-terminal", "mate-terminal",
	"lxterminal", "konsole", "urxvt", "rxvt", "kitty", "alacritty", "terminator", "tilix", "st",
}

// shellNames are the interactive shells a terminal runs.
var shellNames = []string{"bash", "sh", "dash", "zsh", "fish", "ksh", "mksh", "tcsh"}

// proc is the part of /proc/PID/stat that busyCommands reads.
type proc struct {
	pid, ppid int
	comm      string
	state     byte
}

// busyCommands returns the commands still running in the terminalNames of
// display: the children of a shell whose parent is a terminal emulator
// showing on display (or whose environment names no display, as a
// terminal started by a session bus), such a shell itself while it runs
// rather than waits for input, and the terminal itself while it is
// runnable (it has keys to pass on or output to draw; on a loaded machine
// it waits its turn for the processor in that state, and a read then
// would miss what it is about to show). Stopped jobs do not count.
func busyCommands(display string) []int {
	ents, _ := os.ReadDir("/proc")
	procs := make(map[int]proc, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok {
			procs[pid] = p
		}
	}
	return busyIn(procs, func(pid int) bool { return onDisplay(pid, display) })
}

// busyIn is busyCommands over procs, with shown telling which
// processes show on the display.
func busyIn(procs map[int]proc, shown func(pid int) bool) []int {
	terms := map[int]bool{}
	var busy []int
	for pid, p := range procs {
		if slices.Contains(terminalNames, p.comm) && shown(pid) {
			terms[pid] = true
			if p.state == 'R' {
				busy = append(busy, pid)
			}
		}
	}
	for pid, p := range procs {
		if terms[p.ppid] && slices.Contains(shellNames, p.comm) && (p.state == 'R' || p.state == 'D') {
			// the shell itself at work: reading a line just typed,
			// running a builtin, starting up
			busy = append(busy, pid)
			continue
		}
		sh, ok := procs[p.ppid]
		if !ok || !terms[sh.ppid] || !slices.Contains(shellNames, sh.comm) || p.state == 'T' || p.state == 't' || p.state == 'Z' {
			continue
		}
		busy = append(busy, pid)
	}
	slices.Sort(busy)
	return busy
}

// readStat reads pid's parent, command name and state.
func readStat(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open || end+2 >= len(b) {
		return proc{}, false
	}
	f := strings.Fields(string(b[end+2:]))
	if len(f) < 2 {
		return proc{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return proc{}, false
	}
	return proc{pid: pid, ppid: ppid, comm: string(b[open+1 : end]), state: f[0][0]}, true
}

// onDisplay reports whether pid's environment names display (":1" and
// ":1.0" are the same display) or names none. A process agentd may not
// read (another user's) is not on display.
func onDisplay(pid int, display string) bool {
	d, named, ok := displayOf(pid)
	return ok && (!named || sameDisplay(d, display))
}

// shownOn reports whether the process pid has the desktop's display in
// its environment (the desktop's programs; in a container, the ones
// started after the X server).
func shownOn(pid int, display string) bool {
	d, named, ok := displayOf(pid)
	return ok && named && sameDisplay(d, display)
}

// displayOf reads DISPLAY from pid's environment: named says whether it
// is there, ok whether the environment could be read.
func displayOf(pid int) (display string, named, ok bool) {
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return "", false, false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, found := bytes.CutPrefix(kv, []byte("DISPLAY=")); found {
			return string(v), true, true
		}
	}
	return "", false, true
}

func sameDisplay(a, b string) bool {
	norm := func(d string) string {
		if i := strings.LastIndexByte(d, ':'); i >= 0 {
			if j := strings.IndexByte(d[i:], '.'); j >= 0 {
				d = d[:i+j]
			}
		}
		return strings.TrimPrefix(d, "unix")
	}
	return norm(a) == norm(b)
}

// waitCommands waits, within deadline, until no command runs in a
// terminal of display and then the screen is quiet for quiet. It
// reports whether that happened before the deadline.
func waitCommands(ctx context.Context, conn *x11.Conn, display string, quiet time.Duration, deadline time.Time) (bool, error) {
	for {
		for len(busyCommands(display)) > 0 {
			if !time.Now().Before(deadline) {
				return false, nil
			}
			if err := sleep(ctx, 20*time.Millisecond); err != nil {
				return false, err
			}
		}
		st, err := conn.WaitIdle(quiet, time.Until(deadline))
		if err != nil || !st.Settled {
			return false, err
		}
		// A command typed while the screen settled starts a new round.
		if len(busyCommands(display)) == 0 {
			return true, nil
		}
	}
}
