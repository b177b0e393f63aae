package envd_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	envdapi "github.com/deskrun/deskrun/api/e2b/envd"
	fspb "github.com/deskrun/deskrun/api/e2b/envd/filesystem"
	"github.com/deskrun/deskrun/api/e2b/envd/filesystem/filesystemconnect"
	pb "github.com/deskrun/deskrun/api/e2b/envd/process"
	"github.com/deskrun/deskrun/api/e2b/envd/process/processconnect"
)

func TestMain(m *testing.M) { os.Exit(agentdtest.Main(m)) }

// bearer adds agentd's token, and the acting user when set, to every
// request, as deskrun serve does when it forwards an E2B client's call.
type bearer struct {
	token, user string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	if b.user != "" {
		r.Header.Set(envdapi.UserHeader, b.user)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// sandbox is an agentd on its own Xvfb and our own Connect clients of it.
type sandbox struct {
	d    agentdtest.Desktop
	http *http.Client
	proc processconnect.ProcessClient
	fs   filesystemconnect.FilesystemClient
}

// codecs are the two codecs E2B's clients may speak: JSON (the SDKs')
// and binary protobuf.
var codecs = []struct {
	name string
	opts []connect.ClientOption
}{
	{"json", []connect.ClientOption{connect.WithProtoJSON()}},
	{"proto", nil},
}

func start(t *testing.T) agentdtest.Desktop {
	t.Helper()
	return agentdtest.StartAgentd(t)
}

func clients(d agentdtest.Desktop, user string, opts ...connect.ClientOption) sandbox {
	hc := &http.Client{Transport: bearer{token: d.Token, user: user}}
	return sandbox{
		d:    d,
		http: hc,
		proc: processconnect.NewProcessClient(hc, d.URL, opts...),
		fs:   filesystemconnect.NewFilesystemClient(hc, d.URL, opts...),
	}
}

// bash is a StartRequest for cmd as E2B's SDKs send it.
func bash(cmd string) *pb.StartRequest {
	return &pb.StartRequest{Process: &pb.ProcessConfig{Cmd: "/bin/bash", Args: []string{"-l", "-c", cmd}}}
}

// result is what a process stream gave.
type result struct {
	pid            uint32
	stdout, stderr string
	pty            string
	end            *pb.ProcessEvent_EndEvent
	keepalives     int
}

// collect reads a stream of process events to its end.
func collect[T interface{ GetEvent() *pb.ProcessEvent }](t *testing.T, s interface {
	Receive() bool
	Msg() T
	Err() error
}) result {
	t.Helper()
	var r result
	for s.Receive() {
		ev := s.Msg().GetEvent()
		switch {
		case ev.GetStart() != nil:
			r.pid = ev.GetStart().GetPid()
		case ev.GetData() != nil:
			r.stdout += string(ev.GetData().GetStdout())
			r.stderr += string(ev.GetData().GetStderr())
			r.pty += string(ev.GetData().GetPty())
		case ev.GetEnd() != nil:
			r.end = ev.GetEnd()
		case ev.GetKeepalive() != nil:
			r.keepalives++
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if r.end == nil {
		t.Fatalf("the stream ended without an end event: %+v", r)
	}
	return r
}

func run(t *testing.T, sb sandbox, req *pb.StartRequest) result {
	t.Helper()
	stream, err := sb.proc.Start(t.Context(), connect.NewRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	return collect(t, stream)
}

func TestCommands(t *testing.T) {
	d := start(t)
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			sb := clients(d, "", c.opts...)
			t.Run("foreground", func(t *testing.T) {
				r := run(t, sb, bash("echo hello; echo oops >&2; exit 3"))
				if r.pid == 0 || r.stdout != "hello\n" || r.stderr != "oops\n" {
					t.Errorf("got pid %d stdout %q stderr %q, want a pid, hello, oops", r.pid, r.stdout, r.stderr)
				}
				if r.end.GetExitCode() != 3 || !r.end.GetExited() || r.end.GetStatus() != "exit status 3" || r.end.GetError() != "exit status 3" {
					t.Errorf("end %+v, want exit code 3, exited, status and error \"exit status 3\"", r.end)
				}
			})
			t.Run("success", func(t *testing.T) {
				r := run(t, sb, bash("true"))
				if r.end.GetExitCode() != 0 || !r.end.GetExited() || r.end.Error != nil {
					t.Errorf("end %+v, want exit code 0 and no error", r.end)
				}
			})
			t.Run("env and cwd", func(t *testing.T) {
				dir := t.TempDir()
				req := bash(`printf '%s|%s|%s' "$GREETING" "$PWD" "$DISPLAY"`)
				req.Process.Envs = map[string]string{"GREETING": "hi there"}
				req.Process.Cwd = &dir
				r := run(t, sb, req)
				if want := "hi there|" + dir + "|" + d.Display; r.stdout != want {
					t.Errorf("stdout %q, want %q (the config's env, its cwd, the desktop's DISPLAY)", r.stdout, want)
				}
			})
			t.Run("home is the default cwd", func(t *testing.T) {
				r := run(t, sb, bash("pwd"))
				if r.stdout != d.Home+"\n" {
					t.Errorf("pwd %q, want the desktop user's home %s", r.stdout, d.Home)
				}
			})
			t.Run("relative cwd", func(t *testing.T) {
				if err := os.MkdirAll(filepath.Join(d.Home, "work"), 0o755); err != nil {
					t.Fatal(err)
				}
				req := bash("pwd")
				cwd := "~/work"
				req.Process.Cwd = &cwd
				if r := run(t, sb, req); r.stdout != filepath.Join(d.Home, "work")+"\n" {
					t.Errorf("pwd %q, want %s", r.stdout, filepath.Join(d.Home, "work"))
				}
			})
		})
	}
}

// TestStreamedOutput shows output arriving while the process still
// runs: the command prints, then waits for a line on stdin that the test
// sends only after it has read the first output.
func TestStreamedOutput(t *testing.T) {
	d := start(t)
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			sb := clients(d, "", c.opts...)
			req := bash(`echo first; read line; echo "got $line"`)
			stdin := true
			req.Stdin = &stdin
			stream, err := sb.proc.Start(t.Context(), connect.NewRequest(req))
			if err != nil {
				t.Fatal(err)
			}
			defer stream.Close()
			var pid uint32
			for stream.Receive() {
				ev := stream.Msg().GetEvent()
				if ev.GetStart() != nil {
					pid = ev.GetStart().GetPid()
				}
				if ev.GetEnd() != nil {
					t.Fatalf("the process ended before its input: %+v", ev.GetEnd())
				}
				if string(ev.GetData().GetStdout()) == "first\n" {
					break
				}
			}
			if pid == 0 {
				t.Fatalf("no start event before the output (stream err %v)", stream.Err())
			}
			_, err = sb.proc.SendInput(t.Context(), connect.NewRequest(&pb.SendInputRequest{
				Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}},
				Input:   &pb.ProcessInput{Input: &pb.ProcessInput_Stdin{Stdin: []byte("ping\n")}},
			}))
			if err != nil {
				t.Fatal(err)
			}
			r := collect(t, stream)
			if r.stdout != "got ping\n" || r.end.GetExitCode() != 0 {
				t.Errorf("after the input: stdout %q end %+v, want \"got ping\" and 0", r.stdout, r.end)
			}
		})
	}
}

func TestStdin(t *testing.T) {
	d := start(t)
	sb := clients(d, "")
	t.Run("close", func(t *testing.T) {
		req := bash("cat; echo done")
		tag := "cat-" + t.Name()
		req.Tag = &tag
		stream, err := sb.proc.Start(t.Context(), connect.NewRequest(req))
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		if !stream.Receive() || stream.Msg().GetEvent().GetStart() == nil {
			t.Fatalf("no start event: %v", stream.Err())
		}
		sel := &pb.ProcessSelector{Selector: &pb.ProcessSelector_Tag{Tag: tag}}
		for _, part := range []string{"ab", "c\n"} {
			if _, err := sb.proc.SendInput(t.Context(), connect.NewRequest(&pb.SendInputRequest{
				Process: sel, Input: &pb.ProcessInput{Input: &pb.ProcessInput_Stdin{Stdin: []byte(part)}},
			})); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := sb.proc.CloseStdin(t.Context(), connect.NewRequest(&pb.CloseStdinRequest{Process: sel})); err != nil {
			t.Fatal(err)
		}
		r := collect(t, stream)
		if r.stdout != "abc\ndone\n" || r.end.GetExitCode() != 0 {
			t.Errorf("stdout %q end %+v, want abc, done and 0", r.stdout, r.end)
		}
	})
	t.Run("off", func(t *testing.T) {
		req := bash("cat; echo done")
		off := false
		req.Stdin = &off
		r := run(t, sb, req)
		// stdin is /dev/null: cat ends at once.
		if r.stdout != "done\n" {
			t.Errorf("stdout %q, want done (cat reading /dev/null)", r.stdout)
		}
	})
	t.Run("stream input", func(t *testing.T) {
		req := bash("head -c 6; echo")
		stream, err := sb.proc.Start(t.Context(), connect.NewRequest(req))
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		if !stream.Receive() {
			t.Fatal(stream.Err())
		}
		pid := stream.Msg().GetEvent().GetStart().GetPid()
		in := sb.proc.StreamInput(t.Context())
		in.Send(&pb.StreamInputRequest{Event: &pb.StreamInputRequest_Start{Start: &pb.StreamInputRequest_StartEvent{
			Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}}}}})
		for _, s := range []string{"one", "two"} {
			in.Send(&pb.StreamInputRequest{Event: &pb.StreamInputRequest_Data{Data: &pb.StreamInputRequest_DataEvent{
				Input: &pb.ProcessInput{Input: &pb.ProcessInput_Stdin{Stdin: []byte(s)}}}}})
		}
		if _, err := in.CloseAndReceive(); err != nil {
			t.Fatal(err)
		}
		if r := collect(t, stream); r.stdout != "onetwo\n" {
			t.Errorf("stdout %q, want onetwo in order", r.stdout)
		}
	})
}

// TestBackground starts a process, lets its stream go, finds it with
// List and Connect, and kills it with SendSignal.
func TestBackground(t *testing.T) {
	d := start(t)
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			sb := clients(d, "", c.opts...)
			req := bash("echo started; sleep 600")
			tag := "bg-" + c.name
			req.Tag = &tag
			ctx, cancel := context.WithCancel(t.Context())
			stream, err := sb.proc.Start(ctx, connect.NewRequest(req))
			if err != nil {
				t.Fatal(err)
			}
			var pid uint32
			for pid == 0 && stream.Receive() {
				pid = stream.Msg().GetEvent().GetStart().GetPid()
			}
			if pid == 0 {
				t.Fatalf("no start event: %v", stream.Err())
			}
			// The client goes away; the process stays.
			cancel()
			stream.Close()

			list, err := sb.proc.List(t.Context(), connect.NewRequest(&pb.ListRequest{}))
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(list.Msg.GetProcesses(), func(p *pb.ProcessInfo) bool { return p.GetPid() == pid })
			if i < 0 {
				t.Fatalf("List %v lacks pid %d", list.Msg.GetProcesses(), pid)
			}
			if info := list.Msg.GetProcesses()[i]; info.GetTag() != tag || info.GetConfig().GetCmd() != "/bin/bash" {
				t.Errorf("List's entry %+v, want tag %q and the config", info, tag)
			}

			follow, err := sb.proc.Connect(t.Context(), connect.NewRequest(&pb.ConnectRequest{
				Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Tag{Tag: tag}}}))
			if err != nil {
				t.Fatal(err)
			}
			defer follow.Close()
			if !follow.Receive() || follow.Msg().GetEvent().GetStart().GetPid() != pid {
				t.Fatalf("Connect's first event is not the start of %d: %v %v", pid, follow.Msg(), follow.Err())
			}
			if _, err := sb.proc.SendSignal(t.Context(), connect.NewRequest(&pb.SendSignalRequest{
				Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}},
				Signal:  pb.Signal_SIGNAL_SIGKILL,
			})); err != nil {
				t.Fatal(err)
			}
			r := collect(t, follow)
			if r.end.GetExited() || r.end.GetExitCode() != -1 || r.end.GetStatus() != "signal: killed" {
				t.Errorf("end %+v, want killed by a signal", r.end)
			}
			list, err = sb.proc.List(t.Context(), connect.NewRequest(&pb.ListRequest{}))
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(list.Msg.GetProcesses(), func(p *pb.ProcessInfo) bool { return p.GetPid() == pid }) {
				t.Errorf("List still has %d after its end", pid)
			}
		})
	}
}

func TestSIGTERM(t *testing.T) {
	d := start(t)
	sb := clients(d, "")
	stream, err := sb.proc.Start(t.Context(), connect.NewRequest(bash("trap 'echo term; exit 7' TERM; echo ready; while :; do sleep 0.1; done")))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var pid uint32
	for stream.Receive() {
		ev := stream.Msg().GetEvent()
		if ev.GetStart() != nil {
			pid = ev.GetStart().GetPid()
		}
		if string(ev.GetData().GetStdout()) == "ready\n" {
			break
		}
	}
	if _, err := sb.proc.SendSignal(t.Context(), connect.NewRequest(&pb.SendSignalRequest{
		Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}},
		Signal:  pb.Signal_SIGNAL_SIGTERM,
	})); err != nil {
		t.Fatal(err)
	}
	r := collect(t, stream)
	if r.stdout != "term\n" || r.end.GetExitCode() != 7 {
		t.Errorf("stdout %q end %+v, want the trap's term and 7", r.stdout, r.end)
	}
}

// TestTimeout: a stream's Connect-Timeout-Ms (the client context's
// deadline) ends the stream and kills its process.
func TestTimeout(t *testing.T) {
	d := start(t)
	sb := clients(d, "")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req := bash("echo up; sleep 600")
	tag := "timeout"
	req.Tag = &tag
	stream, err := sb.proc.Start(ctx, connect.NewRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	var pid uint32
	for stream.Receive() {
		if p := stream.Msg().GetEvent().GetStart().GetPid(); p != 0 {
			pid = p
		}
	}
	if code := connect.CodeOf(stream.Err()); code != connect.CodeDeadlineExceeded {
		t.Fatalf("stream ended with %v, want deadline_exceeded", stream.Err())
	}
	stream.Close()
	if pid == 0 {
		t.Fatal("no start event")
	}
	// The process is killed at the same deadline: following it finds it
	// gone, or sees its end.
	follow, err := sb.proc.Connect(t.Context(), connect.NewRequest(&pb.ConnectRequest{
		Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}}}))
	if err != nil {
		t.Fatal(err)
	}
	defer follow.Close()
	var end *pb.ProcessEvent_EndEvent
	for follow.Receive() {
		if e := follow.Msg().GetEvent().GetEnd(); e != nil {
			end = e
		}
	}
	switch {
	case connect.CodeOf(follow.Err()) == connect.CodeNotFound:
	case follow.Err() == nil && end != nil && !end.GetExited():
	default:
		t.Errorf("after the timeout: end %+v err %v, want the process killed", end, follow.Err())
	}
}

func TestPTY(t *testing.T) {
	d := start(t)
	sb := clients(d, "")
	req := bash(`read -r x; echo "got:$x"; tty; echo "$TERM"; stty size`)
	req.Pty = &pb.PTY{Size: &pb.PTY_Size{Cols: 100, Rows: 30}}
	stream, err := sb.proc.Start(t.Context(), connect.NewRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if !stream.Receive() {
		t.Fatal(stream.Err())
	}
	pid := stream.Msg().GetEvent().GetStart().GetPid()
	sel := &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}}
	if _, err := sb.proc.Update(t.Context(), connect.NewRequest(&pb.UpdateRequest{Process: sel, Pty: &pb.PTY{Size: &pb.PTY_Size{Cols: 120, Rows: 40}}})); err != nil {
		t.Fatal(err)
	}
	_, err = sb.proc.SendInput(t.Context(), connect.NewRequest(&pb.SendInputRequest{
		Process: sel, Input: &pb.ProcessInput{Input: &pb.ProcessInput_Stdin{Stdin: []byte("x")}},
	}))
	if connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Errorf("stdin input to a terminal: %v, want failed_precondition", err)
	}
	if _, err := sb.proc.SendInput(t.Context(), connect.NewRequest(&pb.SendInputRequest{
		Process: sel, Input: &pb.ProcessInput{Input: &pb.ProcessInput_Pty{Pty: []byte("hello\n")}},
	})); err != nil {
		t.Fatal(err)
	}
	r := collect(t, stream)
	for _, want := range []string{"got:hello", "/dev/pts/", "xterm-256color", "40 120"} {
		if !strings.Contains(r.pty, want) {
			t.Errorf("terminal output %q lacks %q", r.pty, want)
		}
	}
	if r.stdout != "" || r.end.GetExitCode() != 0 {
		t.Errorf("stdout %q end %+v, want everything on the terminal and 0", r.stdout, r.end)
	}
}

func TestUsers(t *testing.T) {
	d := start(t)
	for _, user := range []string{"user", "root"} {
		sb := clients(d, user)
		r := run(t, sb, bash("id -u"))
		// agentd runs as this test's user, which acts as the desktop
		// user; root is served where agentd may be root (here when the
		// tests run as root, else refused).
		want := strings.TrimSpace(run(t, clients(d, ""), bash("id -u")).stdout)
		if user == "root" && want != "0" {
			continue // the refusal is TestRootRefused's
		}
		if got := strings.TrimSpace(r.stdout); got != want && !(user == "root" && got == "0") {
			t.Errorf("user %s: id -u %s, want %s", user, got, want)
		}
	}
	_, err := clients(d, "mallory").proc.Start(t.Context(), connect.NewRequest(bash("true")))
	if err == nil {
		// the error comes with the first message of a stream
		stream, _ := clients(d, "mallory").proc.Start(t.Context(), connect.NewRequest(bash("true")))
		stream.Receive()
		err = stream.Err()
	}
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "mallory") {
		t.Errorf("an unknown user: %v, want invalid_argument naming it", err)
	}
}

// startErr is the error a Start stream ends with.
func startErr(t *testing.T, sb sandbox, req *pb.StartRequest) error {
	t.Helper()
	stream, err := sb.proc.Start(t.Context(), connect.NewRequest(req))
	if err != nil {
		return err
	}
	defer stream.Close()
	for stream.Receive() {
	}
	return stream.Err()
}

func TestBadInput(t *testing.T) {
	d := start(t)
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			sb := clients(d, "", c.opts...)
			missing := "/no/such/folder"
			file := filepath.Join(d.Home, "plain")
			if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			cases := []struct {
				name string
				err  error
				code connect.Code
				says string
			}{
				{"no process", startErr(t, sb, &pb.StartRequest{}), connect.CodeInvalidArgument, "process"},
				{"empty cmd", startErr(t, sb, &pb.StartRequest{Process: &pb.ProcessConfig{Cmd: ""}}), connect.CodeInvalidArgument, "process.cmd"},
				{"missing program", startErr(t, sb, &pb.StartRequest{Process: &pb.ProcessConfig{Cmd: "/no/such/program"}}), connect.CodeInvalidArgument, "/no/such/program"},
				{"missing cwd", startErr(t, sb, &pb.StartRequest{Process: &pb.ProcessConfig{Cmd: "/bin/true", Cwd: &missing}}), connect.CodeInvalidArgument, "process.cwd"},
				{"cwd a file", startErr(t, sb, &pb.StartRequest{Process: &pb.ProcessConfig{Cmd: "/bin/true", Cwd: &file}}), connect.CodeInvalidArgument, "not a directory"},
				{"bad env name", startErr(t, sb, &pb.StartRequest{Process: &pb.ProcessConfig{Cmd: "/bin/true", Envs: map[string]string{"A=B": "c"}}}), connect.CodeInvalidArgument, "process.envs"},
			}
			_, err := sb.proc.SendSignal(t.Context(), connect.NewRequest(&pb.SendSignalRequest{
				Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: 999999}}, Signal: pb.Signal_SIGNAL_SIGKILL}))
			cases = append(cases, struct {
				name string
				err  error
				code connect.Code
				says string
			}{"signal unknown pid", err, connect.CodeNotFound, "999999"})
			_, err = sb.proc.SendSignal(t.Context(), connect.NewRequest(&pb.SendSignalRequest{
				Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Tag{Tag: "x"}}}))
			cases = append(cases, struct {
				name string
				err  error
				code connect.Code
				says string
			}{"signal unspecified", err, connect.CodeInvalidArgument, "signal"})
			_, err = sb.proc.SendInput(t.Context(), connect.NewRequest(&pb.SendInputRequest{}))
			cases = append(cases, struct {
				name string
				err  error
				code connect.Code
				says string
			}{"input without a selector", err, connect.CodeInvalidArgument, "process"})
			for _, fc := range []struct {
				name string
				call func() error
				code connect.Code
				says string
			}{
				{"stat empty path", func() error {
					_, err := sb.fs.Stat(t.Context(), connect.NewRequest(&fspb.StatRequest{}))
					return err
				}, connect.CodeInvalidArgument, "path"},
				{"stat missing", func() error {
					_, err := sb.fs.Stat(t.Context(), connect.NewRequest(&fspb.StatRequest{Path: "/no/such/file"}))
					return err
				}, connect.CodeNotFound, "/no/such/file"},
				{"stat agentd's own /proc", func() error {
					_, err := sb.fs.Stat(t.Context(), connect.NewRequest(&fspb.StatRequest{Path: "/proc/self/environ"}))
					return err
				}, connect.CodePermissionDenied, "agentd's own process"},
				{"path with NUL", func() error {
					_, err := sb.fs.Stat(t.Context(), connect.NewRequest(&fspb.StatRequest{Path: "/tmp/a\x00b"}))
					return err
				}, connect.CodeInvalidArgument, "NUL"},
				{"list a file", func() error {
					_, err := sb.fs.ListDir(t.Context(), connect.NewRequest(&fspb.ListDirRequest{Path: file}))
					return err
				}, connect.CodeInvalidArgument, "not a directory"},
				{"list missing", func() error {
					_, err := sb.fs.ListDir(t.Context(), connect.NewRequest(&fspb.ListDirRequest{Path: "/no/such/dir"}))
					return err
				}, connect.CodeNotFound, "/no/such/dir"},
				{"move missing", func() error {
					_, err := sb.fs.Move(t.Context(), connect.NewRequest(&fspb.MoveRequest{Source: "/no/such/file", Destination: "/tmp/x"}))
					return err
				}, connect.CodeNotFound, "/no/such/file"},
				{"remove /", func() error {
					_, err := sb.fs.Remove(t.Context(), connect.NewRequest(&fspb.RemoveRequest{Path: "/"}))
					return err
				}, connect.CodeInvalidArgument, "/"},
				{"unknown watcher", func() error {
					_, err := sb.fs.GetWatcherEvents(t.Context(), connect.NewRequest(&fspb.GetWatcherEventsRequest{WatcherId: "nope"}))
					return err
				}, connect.CodeNotFound, "nope"},
			} {
				cases = append(cases, struct {
					name string
					err  error
					code connect.Code
					says string
				}{fc.name, fc.call(), fc.code, fc.says})
			}
			for _, tc := range cases {
				if connect.CodeOf(tc.err) != tc.code || !strings.Contains(tc.err.Error(), tc.says) {
					t.Errorf("%s: %v, want %v naming %q", tc.name, tc.err, tc.code, tc.says)
				}
			}
		})
	}
}

// TestRawRequests sends what no generated client sends: a body that is
// not the message, a wrong token, an unknown procedure. Each is a
// Connect error or a 4xx, never a 500.
func TestRawRequests(t *testing.T) {
	d := start(t)
	post := func(path, ctype, token, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "POST", d.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	for _, tc := range []struct {
		name, path, ctype, token, body string
		status                         int
	}{
		{"no token", "/filesystem.Filesystem/Stat", "application/json", "", `{"path":"/"}`, 401},
		{"wrong token", "/filesystem.Filesystem/Stat", "application/json", "nope", `{"path":"/"}`, 401},
		{"not JSON", "/filesystem.Filesystem/Stat", "application/json", d.Token, `{"path":`, 400},
		{"wrong field type", "/filesystem.Filesystem/Stat", "application/json", d.Token, `{"path":5}`, 400},
		{"not protobuf", "/filesystem.Filesystem/Stat", "application/proto", d.Token, "\xff\xff\xff", 400},
		{"unknown procedure", "/filesystem.Filesystem/Nope", "application/json", d.Token, `{}`, 404},
		{"unknown service", "/process.Nope/Start", "application/json", d.Token, `{}`, 404},
		{"stream not JSON", "/process.Process/Start", "application/connect+json", d.Token, "\x00\x00\x00\x00\x02{]", 200},
		{"stat ok", "/filesystem.Filesystem/Stat", "application/json", d.Token, `{"path":"/"}`, 200},
	} {
		res, body := post(tc.path, tc.ctype, tc.token, tc.body)
		if res.StatusCode != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, res.StatusCode, body, tc.status)
		}
		if tc.name == "stream not JSON" && !strings.Contains(body, `"invalid_argument"`) {
			t.Errorf("%s: the stream's end %q, want an invalid_argument error", tc.name, body)
		}
	}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", d.URL+envdapi.HealthPath, nil)
	req.Header.Set("Authorization", "Bearer "+d.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Errorf("GET /health: %d, want 204", res.StatusCode)
	}
	for _, token := range []string{"", d.Token} {
		req, _ = http.NewRequestWithContext(t.Context(), "GET", d.URL+envdapi.MetricsPath, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var m envdapi.Metrics
		err = json.NewDecoder(res.Body).Decode(&m)
		res.Body.Close()
		switch {
		case token == "" && res.StatusCode != http.StatusUnauthorized:
			t.Errorf("GET /metrics without a token: %d, want 401", res.StatusCode)
		case token != "" && (res.StatusCode != 200 || err != nil || m.CPUCount < 1 || m.MemTotal <= 0 || m.MemUsed <= 0 || m.DiskTotal <= 0 || m.TS == 0):
			t.Errorf("GET /metrics: %d %+v %v", res.StatusCode, m, err)
		}
	}
}

func TestFilesystem(t *testing.T) {
	d := start(t)
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			sb := clients(d, "", c.opts...)
			root := filepath.Join(d.Home, "fs-"+c.name)
			mk, err := sb.fs.MakeDir(t.Context(), connect.NewRequest(&fspb.MakeDirRequest{Path: root + "/a/b"}))
			if err != nil {
				t.Fatal(err)
			}
			if e := mk.Msg.GetEntry(); e.GetPath() != root+"/a/b" || e.GetType() != fspb.FileType_FILE_TYPE_DIRECTORY || e.GetName() != "b" {
				t.Errorf("MakeDir's entry %+v", e)
			}
			_, err = sb.fs.MakeDir(t.Context(), connect.NewRequest(&fspb.MakeDirRequest{Path: root + "/a/b"}))
			if connect.CodeOf(err) != connect.CodeAlreadyExists {
				t.Errorf("MakeDir again: %v, want already_exists", err)
			}
			if err := os.WriteFile(root+"/a/top.txt", []byte("hello"), 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(root+"/a/b/deep.txt", []byte("deeper"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("top.txt", root+"/a/link"); err != nil {
				t.Fatal(err)
			}

			st, err := sb.fs.Stat(t.Context(), connect.NewRequest(&fspb.StatRequest{Path: root + "/a/top.txt"}))
			if err != nil {
				t.Fatal(err)
			}
			e := st.Msg.GetEntry()
			if e.GetName() != "top.txt" || e.GetPath() != root+"/a/top.txt" || e.GetType() != fspb.FileType_FILE_TYPE_FILE ||
				e.GetSize() != 5 || e.GetMode() != 0o640 || e.GetPermissions() != "-rw-r-----" || e.GetOwner() == "" || e.GetModifiedTime() == nil {
				t.Errorf("Stat %+v", e)
			}
			st, err = sb.fs.Stat(t.Context(), connect.NewRequest(&fspb.StatRequest{Path: root + "/a/link"}))
			if err != nil {
				t.Fatal(err)
			}
			if e := st.Msg.GetEntry(); e.GetSymlinkTarget() != "top.txt" || e.GetSize() != 5 {
				t.Errorf("Stat of a link %+v, want its target top.txt and the target's size", e)
			}

			names := func(depth uint32) []string {
				t.Helper()
				l, err := sb.fs.ListDir(t.Context(), connect.NewRequest(&fspb.ListDirRequest{Path: root, Depth: depth}))
				if err != nil {
					t.Fatal(err)
				}
				var n []string
				for _, e := range l.Msg.GetEntries() {
					rel, _ := filepath.Rel(root, e.GetPath())
					n = append(n, rel)
				}
				slices.Sort(n)
				return n
			}
			if got, want := names(0), []string{"a"}; !slices.Equal(got, want) {
				t.Errorf("ListDir depth 0 (1): %v, want %v", got, want)
			}
			if got, want := names(2), []string{"a", "a/b", "a/link", "a/top.txt"}; !slices.Equal(got, want) {
				t.Errorf("ListDir depth 2: %v, want %v", got, want)
			}
			if got, want := names(3), []string{"a", "a/b", "a/b/deep.txt", "a/link", "a/top.txt"}; !slices.Equal(got, want) {
				t.Errorf("ListDir depth 3: %v, want %v", got, want)
			}

			mv, err := sb.fs.Move(t.Context(), connect.NewRequest(&fspb.MoveRequest{Source: root + "/a/top.txt", Destination: root + "/new/place.txt"}))
			if err != nil {
				t.Fatal(err)
			}
			if mv.Msg.GetEntry().GetPath() != root+"/new/place.txt" {
				t.Errorf("Move's entry %+v", mv.Msg.GetEntry())
			}
			if b, err := os.ReadFile(root + "/new/place.txt"); err != nil || string(b) != "hello" {
				t.Errorf("the moved file: %q %v", b, err)
			}
			_, err = sb.fs.Move(t.Context(), connect.NewRequest(&fspb.MoveRequest{Source: root + "/new", Destination: root + "/a"}))
			if connect.CodeOf(err) != connect.CodeAlreadyExists {
				t.Errorf("Move over a folder that is not empty: %v, want already_exists", err)
			}
			_, err = sb.fs.Move(t.Context(), connect.NewRequest(&fspb.MoveRequest{Source: root + "/new/place.txt", Destination: root + "/a"}))
			if connect.CodeOf(err) != connect.CodeInvalidArgument {
				t.Errorf("Move a file over a folder: %v, want invalid_argument", err)
			}
			if _, err := sb.fs.Remove(t.Context(), connect.NewRequest(&fspb.RemoveRequest{Path: root + "/a"})); err != nil {
				t.Fatal(err)
			}
			_, err = sb.fs.Stat(t.Context(), connect.NewRequest(&fspb.StatRequest{Path: root + "/a"}))
			if connect.CodeOf(err) != connect.CodeNotFound {
				t.Errorf("Stat after Remove: %v, want not_found", err)
			}
			if _, err := sb.fs.Remove(t.Context(), connect.NewRequest(&fspb.RemoveRequest{Path: root + "/a"})); err != nil {
				t.Errorf("Remove of what is gone: %v, want success as envd", err)
			}
		})
	}
}

func TestWatch(t *testing.T) {
	d := start(t)
	sb := clients(d, "")
	dir := filepath.Join(d.Home, "watched")
	if err := os.MkdirAll(dir+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("stream", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		stream, err := sb.fs.WatchDir(ctx, connect.NewRequest(&fspb.WatchDirRequest{Path: dir, Recursive: true, IncludeEntry: true}))
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		if !stream.Receive() || stream.Msg().GetStart() == nil {
			t.Fatalf("no start event: %v", stream.Err())
		}
		if err := os.WriteFile(dir+"/sub/new.txt", []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		for stream.Receive() {
			ev := stream.Msg().GetFilesystem()
			if ev.GetName() == "sub/new.txt" && ev.GetType() == fspb.EventType_EVENT_TYPE_CREATE {
				if ev.GetEntry().GetPath() != dir+"/sub/new.txt" {
					t.Errorf("the event's entry %+v", ev.GetEntry())
				}
				return
			}
		}
		t.Fatalf("the stream ended without the create: %v", stream.Err())
	})
	t.Run("polled", func(t *testing.T) {
		w, err := sb.fs.CreateWatcher(t.Context(), connect.NewRequest(&fspb.CreateWatcherRequest{Path: dir}))
		if err != nil {
			t.Fatal(err)
		}
		id := w.Msg.GetWatcherId()
		if err := os.WriteFile(dir+"/polled.txt", []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(dir + "/polled.txt"); err != nil {
			t.Fatal(err)
		}
		var seen []fspb.EventType
		// inotify queued the events before the writes returned; the
		// watcher's reader takes them in as the machine lets it.
		for !slices.Contains(seen, fspb.EventType_EVENT_TYPE_REMOVE) {
			if t.Context().Err() != nil {
				t.Fatalf("events %v, want a create and a remove", seen)
			}
			evs, err := sb.fs.GetWatcherEvents(t.Context(), connect.NewRequest(&fspb.GetWatcherEventsRequest{WatcherId: id}))
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs.Msg.GetEvents() {
				if ev.GetName() == "polled.txt" {
					seen = append(seen, ev.GetType())
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		if seen[0] != fspb.EventType_EVENT_TYPE_CREATE {
			t.Errorf("events %v, want the create first", seen)
		}
		if _, err := sb.fs.RemoveWatcher(t.Context(), connect.NewRequest(&fspb.RemoveWatcherRequest{WatcherId: id})); err != nil {
			t.Fatal(err)
		}
		_, err = sb.fs.GetWatcherEvents(t.Context(), connect.NewRequest(&fspb.GetWatcherEventsRequest{WatcherId: id}))
		if connect.CodeOf(err) != connect.CodeNotFound {
			t.Errorf("a removed watcher: %v, want not_found", err)
		}
	})
}

// filesURL is /files with query.
func filesURL(d agentdtest.Desktop, q url.Values) string {
	return d.URL + envdapi.FilesPath + "?" + q.Encode()
}

func download(t *testing.T, sb sandbox, path string) (int, []byte) {
	t.Helper()
	res, err := sb.http.Get(filesURL(sb.d, url.Values{"path": {path}}))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b
}

func upload(t *testing.T, sb sandbox, q url.Values, ctype string, body io.Reader) (int, []byte) {
	t.Helper()
	res, err := sb.http.Post(filesURL(sb.d, q), ctype, body)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func TestFiles(t *testing.T) {
	d := start(t)
	sb := clients(d, "")
	big := make([]byte, 1<<20+123)
	rand.Read(big)

	t.Run("octet-stream text", func(t *testing.T) {
		p := d.Home + "/docs/note.txt"
		status, body := upload(t, sb, url.Values{"path": {p}}, "application/octet-stream", strings.NewReader("hello, sandbox\n"))
		var entries []envdapi.FileEntry
		if status != 200 || json.Unmarshal(body, &entries) != nil || len(entries) != 1 || entries[0] != (envdapi.FileEntry{Path: p, Name: "note.txt", Type: "file"}) {
			t.Fatalf("upload: %d %s", status, body)
		}
		if status, b := download(t, sb, p); status != 200 || string(b) != "hello, sandbox\n" {
			t.Errorf("download: %d %q", status, b)
		}
	})
	t.Run("relative path and username", func(t *testing.T) {
		status, body := upload(t, sb, url.Values{"path": {"rel/file.txt"}, "username": {"user"}}, "application/octet-stream", strings.NewReader("r"))
		if status != 200 || !strings.Contains(string(body), d.Home+"/rel/file.txt") {
			t.Errorf("upload: %d %s, want the file under the home", status, body)
		}
	})
	t.Run("1 MiB binary, multipart", func(t *testing.T) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("file", "big.bin")
		fw.Write(big)
		mw.Close()
		p := d.Home + "/bin/big.bin"
		status, body := upload(t, sb, url.Values{"path": {p}}, mw.FormDataContentType(), &buf)
		if status != 200 {
			t.Fatalf("upload: %d %s", status, body)
		}
		if status, b := download(t, sb, p); status != 200 || !bytes.Equal(b, big) {
			t.Errorf("download: %d, %d bytes, want the %d uploaded", status, len(b), len(big))
		}
	})
	t.Run("1 MiB binary, octet-stream", func(t *testing.T) {
		p := d.Home + "/bin/raw.bin"
		if status, body := upload(t, sb, url.Values{"path": {p}}, "application/octet-stream", bytes.NewReader(big)); status != 200 {
			t.Fatalf("upload: %d %s", status, body)
		}
		if status, b := download(t, sb, p); status != 200 || !bytes.Equal(b, big) {
			t.Errorf("download: %d, %d bytes, want the %d uploaded", status, len(b), len(big))
		}
	})
	t.Run("gzip body", func(t *testing.T) {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write([]byte("unzipped"))
		zw.Close()
		p := d.Home + "/gz.txt"
		req, _ := http.NewRequestWithContext(t.Context(), "POST", filesURL(d, url.Values{"path": {p}}), &z)
		req.Header.Set("Content-Type", "application/octet-stream")
		req.Header.Set("Content-Encoding", "gzip")
		res, err := sb.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if status, b := download(t, sb, p); res.StatusCode != 200 || status != 200 || string(b) != "unzipped" {
			t.Errorf("upload %d, download %d %q, want the body unzipped", res.StatusCode, status, b)
		}
	})
	t.Run("multipart names from the parts", func(t *testing.T) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("note", "not a file")
		for _, name := range []string{d.Home + "/multi/one.txt", d.Home + "/multi/two.txt"} {
			fw, _ := mw.CreateFormFile("file", name)
			fw.Write([]byte(filepath.Base(name)))
		}
		mw.Close()
		status, body := upload(t, sb, nil, mw.FormDataContentType(), &buf)
		var entries []envdapi.FileEntry
		if status != 200 || json.Unmarshal(body, &entries) != nil || len(entries) != 2 {
			t.Fatalf("upload: %d %s, want two entries", status, body)
		}
		for _, e := range entries {
			if b, err := os.ReadFile(e.Path); err != nil || string(b) != e.Name {
				t.Errorf("%s holds %q (%v), want %q", e.Path, b, err, e.Name)
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		status, body := download(t, sb, d.Home+"/no/such.txt")
		var e envdapi.Error
		if status != 404 || json.Unmarshal(body, &e) != nil || e.Code != 404 || !strings.Contains(e.Message, "/no/such.txt") {
			t.Errorf("missing file: %d %s, want 404 {code: 404, message naming the path}", status, body)
		}
		checks := []struct {
			name   string
			status int
			body   []byte
			want   int
		}{}
		add := func(name string, want int, status int, body []byte) {
			checks = append(checks, struct {
				name   string
				status int
				body   []byte
				want   int
			}{name, status, body, want})
		}
		s, b := download(t, sb, d.Home)
		add("download a folder", 400, s, b)
		s, b = download(t, sb, "")
		add("download without a path", 400, s, b)
		s, b = download(t, sb, "/proc/self/environ")
		add("download agentd's environment", 403, s, b)
		s, b = upload(t, sb, url.Values{"path": {d.Home + "/x"}}, "text/plain", strings.NewReader("x"))
		add("upload text/plain", 400, s, b)
		s, b = upload(t, sb, nil, "application/octet-stream", strings.NewReader("x"))
		add("octet-stream without a path", 400, s, b)
		s, b = upload(t, sb, url.Values{"path": {d.Home}}, "application/octet-stream", strings.NewReader("x"))
		add("upload over a folder", 400, s, b)
		s, b = upload(t, sb, url.Values{"path": {d.Home + "/m"}}, "multipart/form-data; boundary=zzz", strings.NewReader("garbage"))
		add("broken multipart", 400, s, b)
		s, b = upload(t, sb, url.Values{"path": {d.Home + "/u"}, "username": {"mallory"}}, "application/octet-stream", strings.NewReader("x"))
		add("unknown user", 400, s, b)
		for _, c := range checks {
			var e envdapi.Error
			if c.status != c.want || json.Unmarshal(c.body, &e) != nil || e.Code != c.want || e.Message == "" {
				t.Errorf("%s: %d %s, want %d with {code, message}", c.name, c.status, c.body, c.want)
			}
		}
	})
}

// TestKeepalive: an idle stream gets keepalives at the interval the
// client asks for (Keepalive-Ping-Interval, seconds).
func TestKeepalive(t *testing.T) {
	d := start(t)
	sb := clients(d, "")
	req := connect.NewRequest(bash("sleep 3; echo late"))
	req.Header().Set("Keepalive-Ping-Interval", "1")
	stream, err := sb.proc.Start(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	r := collect(t, stream)
	if r.keepalives == 0 || r.stdout != "late\n" {
		t.Errorf("%d keepalives, stdout %q: want some during 3 s of silence at 1 s, then the output", r.keepalives, r.stdout)
	}
}

// TestUploadStreamed: POST /files writes the body as it comes. The test
// sends 1 MiB, waits until that much is on disk beside the target, and
// only then sends the rest: a server holding the body whole would wait
// for the end first, and the test with it.
func TestUploadStreamed(t *testing.T) {
	d := start(t)
	sb := clients(d, "")
	dir := filepath.Join(d.Home, "streamed")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	part := make([]byte, 1<<20)
	rand.Read(part)
	pr, pw := io.Pipe()
	go func() {
		pw.Write(part)
		// The temporary file agentd writes beside the target.
		for {
			if t.Context().Err() != nil {
				pw.CloseWithError(t.Context().Err())
				return
			}
			tmps, _ := filepath.Glob(filepath.Join(dir, ".agentd-*"))
			if len(tmps) == 1 {
				if st, err := os.Stat(tmps[0]); err == nil && st.Size() >= int64(len(part)) {
					break
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		pw.Write(part)
		pw.Close()
	}()
	p := filepath.Join(dir, "big.bin")
	status, body := upload(t, sb, url.Values{"path": {p}}, "application/octet-stream", pr)
	if status != 200 {
		t.Fatalf("upload: %d %s", status, body)
	}
	if st, err := os.Stat(p); err != nil || st.Size() != 2<<20 {
		t.Errorf("the file: %v %v, want 2 MiB", st, err)
	}
}

// TestWireJSON speaks envd's JSON as E2B's SDKs put it on the wire, byte
// for byte rather than through a generated client: the Connect envelope
// of a server stream, camelCase field names, bytes in base64, enums by
// name, 64-bit integers as strings.
func TestWireJSON(t *testing.T) {
	d := start(t)
	call := func(path, ctype, body string) string {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "POST", d.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Authorization", "Bearer "+d.Token)
		req.Header.Set("Connect-Protocol-Version", "1")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, res.StatusCode, b)
		}
		return string(b)
	}
	// A server stream's request is one enveloped message: a flag byte
	// and a big-endian length.
	msg := `{"process":{"cmd":"/bin/bash","args":["-l","-c","echo hi; exit 2"],"envs":{"A":"b"}},"stdin":false}`
	env := string([]byte{0, 0, 0, byte(len(msg) >> 8), byte(len(msg))}) + msg
	var frames []string
	for rest := call("/process.Process/Start", "application/connect+json", env); len(rest) >= 5; {
		n := int(rest[1])<<24 | int(rest[2])<<16 | int(rest[3])<<8 | int(rest[4])
		frames = append(frames, rest[5:5+n])
		rest = rest[5+n:]
	}
	if len(frames) < 4 || !strings.HasPrefix(frames[0], `{"event":{"start":{"pid":`) {
		t.Fatalf("frames %q, want start, data, end and the end of the stream", frames)
	}
	got := strings.Join(frames, "\n")
	for _, want := range []string{`{"event":{"data":{"stdout":"aGkK"}}}`, `"exitCode":2`, `"exited":true`, `"status":"exit status 2"`} {
		// protojson varies its spaces on purpose: compare without them
		if !strings.Contains(strings.ReplaceAll(got, " ", ""), strings.ReplaceAll(want, " ", "")) {
			t.Errorf("frames\n%s\nlack %s", got, want)
		}
	}
	if last := frames[len(frames)-1]; last != "{}" {
		t.Errorf("the end-of-stream frame %q, want {} (no error)", last)
	}

	if err := os.WriteFile(d.Home+"/wire.txt", []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	body := strings.ReplaceAll(call("/filesystem.Filesystem/Stat", "application/json", `{"path":"~/wire.txt"}`), " ", "")
	for _, want := range []string{`"name":"wire.txt"`, `"type":"FILE_TYPE_FILE"`, `"size":"5"`, `"mode":420`, `"permissions":"-rw-r--r--"`, `"modifiedTime":"`} {
		if !strings.Contains(body, want) {
			t.Errorf("Stat %s lacks %s", body, want)
		}
	}
}
