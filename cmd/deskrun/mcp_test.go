package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/server/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func mcpText(r *sdk.CallToolResult) string {
	var s []string
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			s = append(s, tc.Text)
		}
	}
	return strings.Join(s, "\n")
}

// TestMCPStdio runs the built deskrun mcp as a subprocess and drives it
// with the SDK's own client over its CommandTransport: the tools of the
// dialect, a screenshot as image content under the clients' limit, a
// click that lands where the screenshot says (checked with xdotool in
// the sandbox), the trajectory written while the connection is open,
// and, once the client closes standard input, a clean exit that leaves
// no process of the desktop behind.
func TestMCPStdio(t *testing.T) {
	agentdtest.NeedX(t, "openbox", "xdotool")
	traj := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir(t), "deskrun"), "mcp", "--provider", "local", "--screen", "1024x768", "--trajectories", traj)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Logf("deskrun mcp: %s", sc.Text())
		}
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			cs.Close()
		}
		<-logDone
	})
	call := func(name string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s: tool error: %s", name, mcpText(res))
		}
		return res
	}

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, n := range []string{"computer", "screenshot", "zoom", "left_click", "computer_batch", "bash", "str_replace_based_edit_tool", "get_tool_info"} {
		if !slices.Contains(names, n) {
			t.Errorf("tools/list lacks %s: %v", n, names)
		}
	}

	res := call("screenshot", nil)
	var img *sdk.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*sdk.ImageContent); ok {
			img = ic
		}
	}
	if img == nil {
		t.Fatalf("screenshot without image content: %s", mcpText(res))
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || cfg.Width == 0 || cfg.Width > 1024 {
		t.Fatalf("screenshot image %dx%d %v", cfg.Width, cfg.Height, err)
	}
	if raw, _ := json.Marshal(res); len(raw) > mcp.MaxResultBytes {
		t.Errorf("screenshot result of %d bytes, over %d", len(raw), mcp.MaxResultBytes)
	}

	// Coordinates are pixels of the screenshot just returned.
	call("left_click", map[string]any{"coordinate": []int{100, 50}})
	scale := 1024 / float64(cfg.Width)
	want := "X=" + strconv.Itoa(int(100*scale+0.5)) + "\nY=" + strconv.Itoa(int(50*scale+0.5)) + "\n"
	if out := mcpText(call("bash", map[string]any{"command": "xdotool getmouselocation --shell"})); !strings.Contains(out, want) {
		t.Errorf("after left_click [100,50] (scale %.3f) xdotool says %q, want %q", scale, out, want)
	}
	out := mcpText(call("bash", map[string]any{"command": "sleep 1000 >/dev/null 2>&1 & echo $!"}))
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("background sleep: %q", out)
	}

	// The trajectory has the calls already, while the connection is open.
	files, _ := filepath.Glob(filepath.Join(traj, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("trajectories %v, want one", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var tools2 []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var line runner.TrajectoryLine
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("trajectory line %q: %v", l, err)
		}
		if line.Call == "tool" {
			var a struct{ Name string }
			json.Unmarshal(line.Args, &a)
			tools2 = append(tools2, a.Name)
			if a.Name == "screenshot" && line.Screenshot == "" {
				t.Errorf("the screenshot's trajectory line references no image: %+v", line)
			}
		}
	}
	if want := []string{"screenshot", "left_click", "bash", "bash"}; !slices.Equal(tools2, want) {
		t.Errorf("tool lines %v, want %v", tools2, want)
	}

	// Closing standard input ends the server, which deletes the desktop.
	start := time.Now()
	closed = true
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v (deskrun mcp should exit 0 when its input ends)", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("deskrun mcp took %v to exit after its input closed", d)
	}
	if alive(pid) {
		t.Errorf("process %d of the deleted desktop still runs", pid)
	}
}

// TestMCPFlags: mistakes on deskrun mcp's command line are usage errors,
// found before any sandbox starts.
func TestMCPFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"mcp", "--dialect", "klingon"}, `--dialect: unknown dialect "klingon"`},
		{[]string{"mcp", "--screen", "big"}, `--screen: want WxH, e.g. 1280x800, got "big"`},
		{[]string{"mcp", "--provider", "k8s"}, `unknown provider "k8s"`},
		{[]string{"mcp", "--log-level", "loud"}, "--log-level"},
		{[]string{"mcp", "extra"}, `unexpected argument "extra"`},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%q: exit %d %q, want 2 with %q", tc.args, code, stderr, tc.msg)
		}
	}
	if code, _, stderr := runCLI(t, "mcp", "-h"); code != 0 || !strings.Contains(stderr, "usage: deskrun mcp") {
		t.Errorf("mcp -h: %d %q", code, stderr)
	}
}
