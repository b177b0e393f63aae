package envd

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/containerd/errdefs"
	pb "github.com/deskrun/deskrun/api/e2b/envd/process"
	"github.com/deskrun/deskrun/api/e2b/envd/process/processconnect"
)

// TestRootRefused: where the sandbox cannot become root, "root" is
// refused with the reason; file calls as root are refused where agentd
// is not root, even when commands may use sudo.
func TestRootRefused(t *testing.T) {
	s, err := New(Config{Home: "/home/user"})
	if err != nil {
		t.Fatal(err)
	}
	s.self.Username = "desk" // agentd's own user, not root
	s.root, s.rootRefusal = rootRefused, "this sandbox's processes cannot become root (no-new-privileges)"
	if _, err := s.actorOf("root"); !errdefs.IsPermissionDenied(err) || !strings.Contains(err.Error(), "no-new-privileges") {
		t.Errorf("root refused: %v, want permission denied saying why", err)
	}
	for _, name := range []string{"", "user", s.self.Username} {
		if a, err := s.actorOf(name); err != nil || a.sudo || a.home != "/home/user" {
			t.Errorf("user %q: %+v %v, want the desktop user", name, a, err)
		}
	}
	s.root, s.sudo = rootSudo, "/usr/bin/sudo"
	if a, err := s.actorOf("root"); err != nil || !a.sudo {
		t.Errorf("root through sudo: %+v %v", a, err)
	}
	if _, err := s.fileActor("root"); !errdefs.IsPermissionDenied(err) {
		t.Errorf("file calls as root through sudo: %v, want permission denied", err)
	}
}

// TestRootThroughSudo runs a command as root where agentd is not root
// but the sandbox may use sudo, with a stand-in for sudo that records
// how it was called and what the askpass program prints, then runs the
// command as sudo would.
func TestRootThroughSudo(t *testing.T) {
	dir := t.TempDir()
	sudo := filepath.Join(dir, "sudo")
	script := `#!/bin/sh
printf '%s\n' "$@" >> "$SHIM_DIR/args"
"$SUDO_ASKPASS" > "$SHIM_DIR/password"
while [ "$1" != "--" ]; do shift; done
shift
exec "$@"
`
	if err := os.WriteFile(sudo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{
		Home:         dir,
		SudoPassword: "pa'ss word",
		Env: func(extra map[string]string) []string {
			env := append(os.Environ(), "SHIM_DIR="+dir)
			for k, v := range extra {
				env = append(env, k+"="+v)
			}
			return env
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.self.Username = "desk"
	s.root, s.sudo, s.rootHome = rootSudo, sudo, dir
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	client := processconnect.NewProcessClient(srv.Client(), srv.URL)
	req := connect.NewRequest(&pb.StartRequest{Process: &pb.ProcessConfig{Cmd: "/bin/sh", Args: []string{"-c", "pwd; echo $GREETING"}, Envs: map[string]string{"GREETING": "hi"}}})
	req.Header().Set("X-Deskrun-Envd-User", "root")
	stream, err := client.Start(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var out string
	var end *pb.ProcessEvent_EndEvent
	for stream.Receive() {
		out += string(stream.Msg().GetEvent().GetData().GetStdout())
		if e := stream.Msg().GetEvent().GetEnd(); e != nil {
			end = e
		}
	}
	if err := stream.Err(); err != nil || end.GetExitCode() != 0 {
		t.Fatalf("end %+v, err %v", end, err)
	}
	if out != dir+"\nhi\n" {
		t.Errorf("output %q, want root's home as the cwd and the env", out)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	if !strings.HasPrefix(string(args), "-k\n-E\n-H\n-u\nroot\n-A\n--\n") {
		t.Errorf("sudo's arguments:\n%s", args)
	}
	if pw, _ := os.ReadFile(filepath.Join(dir, "password")); string(pw) != "pa'ss word\n" {
		t.Errorf("the askpass program printed %q", pw)
	}

	// A root command is signalled through sudo too: agentd could reach
	// sudo, not the command under it.
	req = connect.NewRequest(&pb.StartRequest{Process: &pb.ProcessConfig{Cmd: "/bin/sh", Args: []string{"-c", "echo up; sleep 600"}}})
	req.Header().Set("X-Deskrun-Envd-User", "root")
	stream, err = client.Start(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var pid uint32
	for stream.Receive() {
		if p := stream.Msg().GetEvent().GetStart().GetPid(); p != 0 {
			pid = p
		}
		if len(stream.Msg().GetEvent().GetData().GetStdout()) > 0 {
			break
		}
	}
	if _, err := client.SendSignal(t.Context(), connect.NewRequest(&pb.SendSignalRequest{
		Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}}, Signal: pb.Signal_SIGNAL_SIGKILL})); err != nil {
		t.Fatal(err)
	}
	end = nil
	for stream.Receive() {
		if e := stream.Msg().GetEvent().GetEnd(); e != nil {
			end = e
		}
	}
	if end.GetStatus() != "signal: killed" {
		t.Errorf("end %+v (%v), want killed", end, stream.Err())
	}
	args, _ = os.ReadFile(filepath.Join(dir, "args"))
	if want := fmt.Sprintf("KILL\n%d\n", pid); !strings.HasSuffix(string(args), want) {
		t.Errorf("sudo's last call:\n%s\nwant the kill of group %d", args, pid)
	}
}
