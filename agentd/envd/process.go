package envd

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"connectrpc.com/connect"
	"github.com/containerd/errdefs"
	pb "github.com/deskrun/deskrun/api/e2b/envd/process"
)

// processService is the process.Process service.
type processService struct{ s *Service }

const (
	// stdChunk and ptyChunk bound the data of one output event.
	stdChunk = 32 << 10
	ptyChunk = 16 << 10
	// outputGrace bounds how long, after a process exits, its end waits
	// for the rest of its output while programs it left in the background
	// keep the output open (as agentd's exec does).
	outputGrace = 200 * time.Millisecond
	// defaultKeepalive is the idle time after which a stream sends a
	// keepalive, unless the client names one (Keepalive-Ping-Interval,
	// seconds).
	defaultKeepalive = 90 * time.Second
	// subBuffer is how many events a slow stream may lag behind before
	// the process's output waits for it.
	subBuffer = 64
)

// processes are the running processes started through Start, by pid.
type processes struct {
	mu    sync.Mutex
	byPID map[uint32]*proc
}

func newProcesses() *processes { return &processes{byPID: map[uint32]*proc{}} }

func (ps *processes) add(p *proc) {
	ps.mu.Lock()
	ps.byPID[p.pid] = p
	ps.mu.Unlock()
}

func (ps *processes) remove(p *proc) {
	ps.mu.Lock()
	if ps.byPID[p.pid] == p {
		delete(ps.byPID, p.pid)
	}
	ps.mu.Unlock()
}

func (ps *processes) list() []*proc {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	l := slices.Collect(maps.Values(ps.byPID))
	slices.SortFunc(l, func(a, b *proc) int { return int(a.pid) - int(b.pid) })
	return l
}

// find returns the process sel names.
func (ps *processes) find(sel *pb.ProcessSelector) (*proc, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	switch v := sel.GetSelector().(type) {
	case *pb.ProcessSelector_Pid:
		if p := ps.byPID[v.Pid]; p != nil {
			return p, nil
		}
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("process: no running process with pid %d", v.Pid))
	case *pb.ProcessSelector_Tag:
		for _, p := range ps.byPID {
			if p.tag != nil && *p.tag == v.Tag {
				return p, nil
			}
		}
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("process: no running process with tag %q", v.Tag))
	}
	return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("process: a selector with a pid or a tag is required"))
}

func (ps *processes) killAll() {
	for _, p := range ps.list() {
		p.signal(syscall.SIGKILL)
	}
}

// proc is a process started through Start.
type proc struct {
	pid    uint32
	tag    *string
	config *pb.ProcessConfig
	cmd    *exec.Cmd
	tty    *os.File // the terminal's master side; nil without one
	// kill signals the process group for a process run as root through
	// sudo, which agentd cannot signal itself; nil for the others.
	kill func(pgid int, sig syscall.Signal) error

	stdinMu sync.Mutex
	stdin   *os.File // nil when not asked for, or closed

	// pubMu is held for reading while output is handed to the streams
	// and for writing when the output stops, so that no output follows
	// the end.
	pubMu   sync.RWMutex
	stopped bool

	mu   sync.Mutex // guards subs and end
	subs map[*sub]struct{}
	end  *pb.ProcessEvent

	done chan struct{} // closed once the end is handed out
}

// sub is a stream following a process.
type sub struct {
	ch   chan *pb.ProcessEvent
	gone <-chan struct{} // the stream's context is done
}

// subscribe adds a stream; it gets every event from now on, the end
// last (at once if the process already ended).
func (p *proc) subscribe(gone <-chan struct{}) *sub {
	s := &sub{ch: make(chan *pb.ProcessEvent, subBuffer), gone: gone}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.end != nil {
		s.ch <- p.end
		return s
	}
	p.subs[s] = struct{}{}
	return s
}

func (p *proc) unsubscribe(s *sub) {
	p.mu.Lock()
	delete(p.subs, s)
	p.mu.Unlock()
}

// publish hands ev to every stream, waiting for the slow ones (the
// process's output then waits too) unless they are gone.
func (p *proc) publish(ev *pb.ProcessEvent) {
	p.pubMu.RLock()
	defer p.pubMu.RUnlock()
	if p.stopped {
		return
	}
	p.deliver(ev)
}

func (p *proc) deliver(ev *pb.ProcessEvent) {
	p.mu.Lock()
	subs := slices.Collect(maps.Keys(p.subs))
	p.mu.Unlock()
	for _, s := range subs {
		select {
		case s.ch <- ev:
		case <-s.gone:
		}
	}
}

// finish stops the output and hands out the end.
func (p *proc) finish(ev *pb.ProcessEvent) {
	p.pubMu.Lock()
	p.stopped = true
	p.pubMu.Unlock()
	p.mu.Lock()
	p.end = ev
	p.mu.Unlock()
	p.deliver(ev)
	close(p.done)
}

// signal sends sig to the process's group (the process and what it
// started); a group already gone is no error.
func (p *proc) signal(sig syscall.Signal) error {
	if p.kill != nil {
		return p.kill(int(p.pid), sig)
	}
	err := syscall.Kill(-int(p.pid), sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// pump hands what r gives to the streams as data events of kind until r
// ends, then closes r. It goes on reading after the end (and hands
// nothing out then), so programs left in the background never write to
// a closed pipe.
func (p *proc) pump(r *os.File, kind outputKind, chunk int, done func()) {
	defer r.Close()
	defer done()
	buf := make([]byte, chunk)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			p.publish(dataEvent(kind, slices.Clone(buf[:n])))
		}
		if err != nil { // io.EOF, or EIO from a terminal whose other side closed
			return
		}
	}
}

type outputKind int

const (
	stdout outputKind = iota
	stderr
	ptyOut
)

func dataEvent(kind outputKind, b []byte) *pb.ProcessEvent {
	d := &pb.ProcessEvent_DataEvent{}
	switch kind {
	case stdout:
		d.Output = &pb.ProcessEvent_DataEvent_Stdout{Stdout: b}
	case stderr:
		d.Output = &pb.ProcessEvent_DataEvent_Stderr{Stderr: b}
	case ptyOut:
		d.Output = &pb.ProcessEvent_DataEvent_Pty{Pty: b}
	}
	return &pb.ProcessEvent{Event: &pb.ProcessEvent_Data{Data: d}}
}

func startEvent(pid uint32) *pb.ProcessEvent {
	return &pb.ProcessEvent{Event: &pb.ProcessEvent_Start{Start: &pb.ProcessEvent_StartEvent{Pid: pid}}}
}

var keepaliveEvent = &pb.ProcessEvent{Event: &pb.ProcessEvent_Keepalive{Keepalive: &pb.ProcessEvent_KeepAlive{}}}

// endEvent describes how the process ended, as envd does: the exit code
// (-1 for a signal), whether it exited by itself, the status in words
// and, unless it exited with 0, the same as the error.
func endEvent(state *os.ProcessState, err error) *pb.ProcessEvent {
	end := &pb.ProcessEvent_EndEvent{}
	if state != nil {
		end.ExitCode = int32(state.ExitCode())
		end.Exited = state.Exited()
		end.Status = state.String()
	}
	if err != nil {
		msg := err.Error()
		end.Error = &msg
		if state == nil {
			end.ExitCode = -1
			end.Status = msg
		}
	}
	return &pb.ProcessEvent{Event: &pb.ProcessEvent_End{End: end}}
}

// start starts the process req describes, with sub following it from
// its first byte of output; the process ends by itself or, when timeout
// is set, is killed then.
func (s *Service) start(a actor, req *pb.StartRequest, gone <-chan struct{}, timeout time.Duration) (*proc, *sub, error) {
	cfg := req.GetProcess()
	switch {
	case cfg == nil:
		return nil, nil, errdefs.ErrInvalidArgument.WithMessage("process: required, the command to start")
	case strings.TrimSpace(cfg.GetCmd()) == "":
		return nil, nil, errdefs.ErrInvalidArgument.WithMessage("process.cmd: required, the program to run (E2B's SDKs send /bin/bash)")
	case strings.IndexByte(cfg.GetCmd(), 0) >= 0 || slices.ContainsFunc(cfg.GetArgs(), func(s string) bool { return strings.IndexByte(s, 0) >= 0 }):
		return nil, nil, errdefs.ErrInvalidArgument.WithMessage("process: cmd and args must not hold NUL bytes")
	}
	for k := range cfg.GetEnvs() {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("process.envs: %q is not a variable name", k))
		}
	}
	cwd := a.home
	if c := cfg.GetCwd(); c != "" {
		var err error
		if cwd, err = a.resolve("process.cwd", c); err != nil {
			return nil, nil, err
		}
	}
	if st, err := os.Stat(cwd); err == nil && !st.IsDir() {
		return nil, nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("process.cwd: %s is not a directory", cwd))
	} else if errors.Is(err, os.ErrNotExist) {
		return nil, nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("process.cwd: %s does not exist", cwd))
	}
	cmd, err := s.command(a, cfg, cwd)
	if err != nil {
		return nil, nil, err
	}
	env := s.cfg.Env(cfg.GetEnvs())
	if req.Pty != nil && cfg.GetEnvs()["TERM"] == "" {
		env = append(env, "TERM=xterm-256color")
	}
	if a.sudo {
		env = append(env, "SUDO_ASKPASS="+filepath.Join(s.askDir, "askpass"))
	}
	cmd.Env = env
	p := &proc{tag: req.Tag, config: cfg, cmd: cmd, subs: map[*sub]struct{}{}, done: make(chan struct{})}
	if a.sudo {
		p.kill = s.sudoKill
	}
	sub := p.subscribe(gone)
	if err := s.launch(p, req, timeout); err != nil {
		return nil, nil, err
	}
	return p, sub, nil
}

// command is the program to run: cfg's, or for root through sudo, sudo
// running it (sudo cannot be told a folder, so a shell changes to cwd
// first).
func (s *Service) command(a actor, cfg *pb.ProcessConfig, cwd string) (*exec.Cmd, error) {
	if !a.sudo {
		cmd := exec.Command(cfg.GetCmd(), cfg.GetArgs()...)
		cmd.Dir = cwd
		return cmd, nil
	}
	args := []string{"-k", "-E", "-H", "-u", "root"}
	if s.cfg.SudoPassword == "" {
		args = append(args, "-n")
	} else {
		if err := s.askpass(); err != nil {
			return nil, err
		}
		args = append(args, "-A")
	}
	args = append(args, "--", "/bin/sh", "-c", `cd "$1" && shift && exec "$@"`, "sh", cwd, cfg.GetCmd())
	cmd := exec.Command(s.sudo, append(args, cfg.GetArgs()...)...)
	cmd.Dir = "/"
	return cmd, nil
}

// sudoKill signals a process group as root, through sudo: a command run
// as root through sudo is root's (agentd may signal sudo, which passes
// SIGTERM on, but not the command, and SIGKILL is not passed on).
func (s *Service) sudoKill(pgid int, sig syscall.Signal) error {
	name := "TERM"
	if sig == syscall.SIGKILL {
		name = "KILL"
	}
	args := []string{"-k", "-u", "root"}
	if s.cfg.SudoPassword == "" {
		args = append(args, "-n")
	} else {
		args = append(args, "-A")
	}
	args = append(args, "--", "/bin/sh", "-c", `kill -s "$1" -- "-$2" 2>/dev/null || ! kill -0 -- "-$2" 2>/dev/null`, "sh", name, strconv.Itoa(pgid))
	cmd := exec.Command(s.sudo, args...)
	cmd.Env = append(s.cfg.Env(nil), "SUDO_ASKPASS="+filepath.Join(s.askDir, "askpass"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("signal as root through sudo: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// askpass writes, once, the program sudo runs for the password: it
// prints the sandbox's sudo password. It sits in a folder only agentd's
// user can enter.
func (s *Service) askpass() error {
	s.askOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentd-envd-")
		if err != nil {
			s.askErr = fmt.Errorf("write sudo's askpass: %w", err)
			return
		}
		quoted := "'" + strings.ReplaceAll(s.cfg.SudoPassword, "'", `'\''`) + "'"
		script := "#!/bin/sh\nprintf '%s\\n' " + quoted + "\n"
		if err := os.WriteFile(filepath.Join(dir, "askpass"), []byte(script), 0o700); err != nil {
			os.RemoveAll(dir)
			s.askErr = fmt.Errorf("write sudo's askpass: %w", err)
			return
		}
		s.askDir = dir
	})
	return s.askErr
}

// launch starts p's command with its output going to the streams: on a
// terminal when req asks for one, else on pipes, with stdin a pipe when
// asked for (unset asks for it, as envd's older clients expect).
// It is in the table of processes from its start until its end is handed
// out, and killed at timeout when set.
func (s *Service) launch(p *proc, req *pb.StartRequest, timeout time.Duration) error {
	cmd := p.cmd
	var readers sync.WaitGroup
	var parentEnds []*os.File // the child's ends, closed once it runs
	closeAll := func(fs ...*os.File) {
		for _, f := range fs {
			if f != nil {
				f.Close()
			}
		}
	}
	var outs []func()
	if pty := req.GetPty(); pty != nil {
		master, slave, err := openPTY(uint16(pty.GetSize().GetCols()), uint16(pty.GetSize().GetRows()))
		if err != nil {
			return fmt.Errorf("open a terminal: %w", err)
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		p.tty = master
		parentEnds = append(parentEnds, slave)
		readers.Add(1)
		outs = append(outs, func() { go p.pump(master, ptyOut, ptyChunk, readers.Done) })
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		outR, outW, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("make the output pipes: %w", err)
		}
		errR, errW, err := os.Pipe()
		if err != nil {
			closeAll(outR, outW)
			return fmt.Errorf("make the output pipes: %w", err)
		}
		cmd.Stdout, cmd.Stderr = outW, errW
		parentEnds = append(parentEnds, outW, errW)
		if req.Stdin == nil || req.GetStdin() {
			inR, inW, err := os.Pipe()
			if err != nil {
				closeAll(outR, outW, errR, errW)
				return fmt.Errorf("make the input pipe: %w", err)
			}
			cmd.Stdin = inR
			p.stdin = inW
			parentEnds = append(parentEnds, inR)
		}
		readers.Add(2)
		outs = append(outs,
			func() { go p.pump(outR, stdout, stdChunk, readers.Done) },
			func() { go p.pump(errR, stderr, stdChunk, readers.Done) })
		defer func() {
			if cmd.Process == nil {
				closeAll(outR, errR)
			}
		}()
	}
	err := cmd.Start()
	closeAll(parentEnds...)
	if err != nil {
		closeAll(p.tty, p.stdin)
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("process: start %s: %v", p.config.GetCmd(), err))
	}
	p.pid = uint32(cmd.Process.Pid)
	s.procs.add(p)
	if s.cfg.Track != nil {
		s.cfg.Track(int(p.pid))
	}
	var timer *time.Timer
	if timeout > 0 {
		timer = time.AfterFunc(timeout, func() { p.signal(syscall.SIGKILL) })
	}
	for _, out := range outs {
		out()
	}
	go func() {
		err := cmd.Wait()
		if timer != nil {
			timer.Stop()
		}
		drained := make(chan struct{})
		go func() { readers.Wait(); close(drained) }()
		select {
		case <-drained:
		case <-time.After(outputGrace):
		}
		p.stdinMu.Lock()
		if p.stdin != nil {
			p.stdin.Close()
			p.stdin = nil
		}
		p.stdinMu.Unlock()
		// Gone from List before any stream sees the end.
		s.procs.remove(p)
		p.finish(endEvent(cmd.ProcessState, err))
	}()
	return nil
}

// follow sends p's events to a stream until p's end (sent last) or the
// stream's context ends, with a keepalive after each idle interval.
func follow(ctx context.Context, p *proc, sb *sub, interval time.Duration, send func(*pb.ProcessEvent) error) error {
	defer p.unsubscribe(sb)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case ev := <-sb.ch:
			if err := send(ev); err != nil {
				return err
			}
			if ev.GetEnd() != nil {
				return nil
			}
			t.Reset(interval)
		case <-t.C:
			if err := send(keepaliveEvent); err != nil {
				return err
			}
		case <-ctx.Done():
			return connectErr(ctx.Err())
		}
	}
}

// keepaliveOf is the keepalive interval a client asks for
// (Keepalive-Ping-Interval, whole seconds), else the default.
func keepaliveOf(h interface{ Get(string) string }) time.Duration {
	n, err := strconv.ParseInt(h.Get("Keepalive-Ping-Interval"), 10, 64)
	if err != nil || n <= 0 || n > int64(24*time.Hour/time.Second) {
		return defaultKeepalive
	}
	return time.Duration(n) * time.Second
}

func (ps *processService) Start(ctx context.Context, req *connect.Request[pb.StartRequest], stream *connect.ServerStream[pb.StartResponse]) error {
	s := ps.s
	a, err := s.actorOf(userOf(req.Header()))
	if err != nil {
		return connectErr(err)
	}
	// connect-go turns Connect-Timeout-Ms into the context's deadline;
	// the process dies with it, as envd's do.
	var timeout time.Duration
	if dl, ok := ctx.Deadline(); ok {
		if timeout = time.Until(dl); timeout <= 0 {
			return connect.NewError(connect.CodeDeadlineExceeded, errors.New("the request's timeout ran out before the process started"))
		}
	}
	p, sb, err := s.start(a, req.Msg, ctx.Done(), timeout)
	if err != nil {
		return connectErr(err)
	}
	send := func(ev *pb.ProcessEvent) error { return stream.Send(&pb.StartResponse{Event: ev}) }
	if err := send(startEvent(p.pid)); err != nil {
		p.unsubscribe(sb)
		return err
	}
	return follow(ctx, p, sb, keepaliveOf(req.Header()), send)
}

func (ps *processService) Connect(ctx context.Context, req *connect.Request[pb.ConnectRequest], stream *connect.ServerStream[pb.ConnectResponse]) error {
	p, err := ps.s.procs.find(req.Msg.GetProcess())
	if err != nil {
		return err
	}
	sb := p.subscribe(ctx.Done())
	send := func(ev *pb.ProcessEvent) error { return stream.Send(&pb.ConnectResponse{Event: ev}) }
	if err := send(startEvent(p.pid)); err != nil {
		p.unsubscribe(sb)
		return err
	}
	return follow(ctx, p, sb, keepaliveOf(req.Header()), send)
}

func (ps *processService) List(ctx context.Context, req *connect.Request[pb.ListRequest]) (*connect.Response[pb.ListResponse], error) {
	res := &pb.ListResponse{}
	for _, p := range ps.s.procs.list() {
		res.Processes = append(res.Processes, &pb.ProcessInfo{Config: p.config, Pid: p.pid, Tag: p.tag})
	}
	return connect.NewResponse(res), nil
}

func (ps *processService) SendSignal(ctx context.Context, req *connect.Request[pb.SendSignalRequest]) (*connect.Response[pb.SendSignalResponse], error) {
	var sig syscall.Signal
	switch req.Msg.GetSignal() {
	case pb.Signal_SIGNAL_SIGTERM:
		sig = syscall.SIGTERM
	case pb.Signal_SIGNAL_SIGKILL:
		sig = syscall.SIGKILL
	default:
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("signal: %v is not one of SIGNAL_SIGTERM, SIGNAL_SIGKILL", req.Msg.GetSignal()))
	}
	p, err := ps.s.procs.find(req.Msg.GetProcess())
	if err != nil {
		return nil, err
	}
	if err := p.signal(sig); err != nil {
		return nil, connectErr(fmt.Errorf("signal process %d: %w", p.pid, err))
	}
	return connect.NewResponse(&pb.SendSignalResponse{}), nil
}

// input writes in to p's stdin or terminal.
func (p *proc) input(in *pb.ProcessInput) error {
	switch v := in.GetInput().(type) {
	case *pb.ProcessInput_Stdin:
		if p.tty != nil {
			return connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("input: process %d has a terminal: send the input as pty", p.pid))
		}
		p.stdinMu.Lock()
		defer p.stdinMu.Unlock()
		if p.stdin == nil {
			return connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("input: process %d's stdin is closed or was not asked for (StartRequest.stdin)", p.pid))
		}
		if _, err := p.stdin.Write(v.Stdin); err != nil {
			return connectErr(fmt.Errorf("write the stdin of process %d: %w", p.pid, err))
		}
	case *pb.ProcessInput_Pty:
		if p.tty == nil {
			return connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("input: process %d has no terminal: send the input as stdin", p.pid))
		}
		if _, err := p.tty.Write(v.Pty); err != nil {
			return connectErr(fmt.Errorf("write the terminal of process %d: %w", p.pid, err))
		}
	default:
		return connect.NewError(connect.CodeInvalidArgument, errors.New("input: required, stdin or pty"))
	}
	return nil
}

func (ps *processService) SendInput(ctx context.Context, req *connect.Request[pb.SendInputRequest]) (*connect.Response[pb.SendInputResponse], error) {
	p, err := ps.s.procs.find(req.Msg.GetProcess())
	if err != nil {
		return nil, err
	}
	if err := p.input(req.Msg.GetInput()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&pb.SendInputResponse{}), nil
}

func (ps *processService) StreamInput(ctx context.Context, stream *connect.ClientStream[pb.StreamInputRequest]) (*connect.Response[pb.StreamInputResponse], error) {
	var p *proc
	for stream.Receive() {
		switch ev := stream.Msg().GetEvent().(type) {
		case *pb.StreamInputRequest_Start:
			found, err := ps.s.procs.find(ev.Start.GetProcess())
			if err != nil {
				return nil, err
			}
			p = found
		case *pb.StreamInputRequest_Data:
			if p == nil {
				return nil, connect.NewError(connect.CodeFailedPrecondition, errors.New("data: the stream's first event must be start, naming the process"))
			}
			if err := p.input(ev.Data.GetInput()); err != nil {
				return nil, err
			}
		case *pb.StreamInputRequest_Keepalive:
		default:
			return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("event: required, start, data or keepalive"))
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	return connect.NewResponse(&pb.StreamInputResponse{}), nil
}

func (ps *processService) CloseStdin(ctx context.Context, req *connect.Request[pb.CloseStdinRequest]) (*connect.Response[pb.CloseStdinResponse], error) {
	p, err := ps.s.procs.find(req.Msg.GetProcess())
	if err != nil {
		return nil, err
	}
	if p.tty != nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("process %d has a terminal: send Ctrl+D (0x04) as pty input instead", p.pid))
	}
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	if p.stdin != nil {
		err = p.stdin.Close()
		p.stdin = nil
	}
	if err != nil {
		return nil, connectErr(fmt.Errorf("close the stdin of process %d: %w", p.pid, err))
	}
	return connect.NewResponse(&pb.CloseStdinResponse{}), nil
}

func (ps *processService) Update(ctx context.Context, req *connect.Request[pb.UpdateRequest]) (*connect.Response[pb.UpdateResponse], error) {
	p, err := ps.s.procs.find(req.Msg.GetProcess())
	if err != nil {
		return nil, err
	}
	if req.Msg.Pty == nil {
		return connect.NewResponse(&pb.UpdateResponse{}), nil
	}
	if p.tty == nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("pty: process %d has no terminal to resize", p.pid))
	}
	size := req.Msg.GetPty().GetSize()
	if err := resizePTY(p.tty, uint16(size.GetCols()), uint16(size.GetRows())); err != nil {
		return nil, connectErr(fmt.Errorf("resize the terminal of process %d: %w", p.pid, err))
	}
	return connect.NewResponse(&pb.UpdateResponse{}), nil
}
