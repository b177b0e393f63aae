package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api/tool"
	"github.com/deskrun/deskrun/runner/dialect"
)

func TestMain(m *testing.M) { os.Exit(agentdtest.Main(m)) }

// binDir returns the folder holding deskrun and agentd side by side, as
// make build leaves them in bin/, built once per test binary (a failed
// build fails the test).
func binDir(t testing.TB) string {
	t.Helper()
	agentdtest.Build(t, "github.com/deskrun/deskrun/cmd/deskrun")
	return filepath.Dir(agentdtest.Build(t, agentdtest.AgentdPkg))
}

// runCLI runs deskrun in-process with args and returns its exit status
// and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a hang fails instead of stalling
	defer cancel()
	code = run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsage(t *testing.T) {
	code, _, stderr := runCLI(t)
	if code != 2 || !strings.Contains(stderr, "usage: deskrun") {
		t.Errorf("no arguments: %d %q", code, stderr)
	}
	code, stdout, _ := runCLI(t, "help")
	if code != 0 {
		t.Errorf("help: exit %d", code)
	}
	for _, c := range commands() {
		if !strings.Contains(stdout, "\n  "+c.name+" ") {
			t.Errorf("usage does not list %s:\n%s", c.name, stdout)
		}
	}
	for _, name := range []string{"serve", "sessions", "tools", "reap", "version", "mcp", "eval"} {
		if !slices.ContainsFunc(commands(), func(c command) bool { return c.name == name }) {
			t.Errorf("no %s command", name)
		}
	}
	if code, _, stderr := runCLI(t, "fly"); code != 2 || !strings.Contains(stderr, `unknown command "fly"`) {
		t.Errorf("unknown command: %d %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "tools", "--no-such-flag"); code != 2 || !strings.Contains(stderr, "no-such-flag") {
		t.Errorf("unknown flag: %d %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "tools", "-h"); code != 0 || !strings.Contains(stderr, "usage: deskrun tools") {
		t.Errorf("tools -h: %d %q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "deskrun ") || !strings.Contains(stdout, "go1.") {
		t.Errorf("version: %d %q", code, stdout)
	}
}

func TestTools(t *testing.T) {
	for _, dn := range dialect.Names() {
		defs, _ := dialect.Definitions(dn)
		code, stdout, stderr := runCLI(t, "tools", "--dialect", dn)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", dn, code, stderr)
		}
		for _, d := range defs {
			if !strings.Contains(stdout, d.Name+"  ") {
				t.Errorf("%s: table lacks %s", dn, d.Name)
			}
		}
		// --json: function declarations an agent's tool list takes.
		code, stdout, _ = runCLI(t, "tools", "--dialect", dn, "--json")
		var fns []tool.Function
		if err := json.Unmarshal([]byte(stdout), &fns); code != 0 || err != nil || len(fns) != len(defs) {
			t.Fatalf("%s --json: %d %v, %d functions", dn, code, err, len(fns))
		}
		for i, f := range fns {
			if f.Name != defs[i].Name || f.Description == "" || f.Parameters == nil || f.Parameters.Type != "object" {
				t.Errorf("%s --json: function %+v", dn, f)
			}
		}
		code, stdout, _ = runCLI(t, "tools", "--dialect", dn, "--full")
		var full []tool.Definition
		if err := json.Unmarshal([]byte(stdout), &full); code != 0 || err != nil || len(full) != len(defs) {
			t.Errorf("%s --full: %d %v", dn, code, err)
		}
	}
	code, stdout, _ := runCLI(t, "tools", "--dialect", "osworld", "desktop_mouse_click")
	if code != 0 || !strings.HasPrefix(stdout, "# desktop_mouse_click") {
		t.Errorf("level 2 markdown: %d %.60q", code, stdout)
	}
	code, stdout, _ = runCLI(t, "tools", "--dialect", "osworld", "--json", "desktop_mouse_click")
	var def tool.Definition
	if err := json.Unmarshal([]byte(stdout), &def); code != 0 || err != nil || def.Name != "desktop_mouse_click" {
		t.Errorf("level 2 json: %d %v", code, err)
	}
	for _, args := range [][]string{
		{"tools", "--dialect", "klingon"},
		{"tools", "--dialect", "osworld", "computer"},
		{"tools", "a", "b"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d %q, want 2 with a message", args, code, stderr)
		}
	}
}

func TestParseAll(t *testing.T) {
	for _, tc := range []struct {
		args []string
		pos  []string
		o    string
	}{
		{[]string{"ID"}, []string{"ID"}, ""},
		{[]string{"ID", "-o", "x.png"}, []string{"ID"}, "x.png"},
		{[]string{"-o", "x.png", "ID"}, []string{"ID"}, "x.png"},
		{[]string{"ID", "--", "ls", "-o", "x"}, []string{"ID", "ls", "-o", "x"}, ""},
		{[]string{"-o", "y", "ID", "--", "-o"}, []string{"ID", "-o"}, "y"},
		{[]string{"ID", "NAME", `{"a":1}`, "-o", "z"}, []string{"ID", "NAME", `{"a":1}`}, "z"},
	} {
		sc := &sessionsCmd{clientCmd{stderr: &bytes.Buffer{}}}
		fs := sc.flags("x")
		o := fs.String("o", "", "")
		pos, err := parseAll(fs, tc.args)
		if err != nil || !slices.Equal(pos, tc.pos) || *o != tc.o {
			t.Errorf("%q: %q -o %q %v, want %q -o %q", tc.args, pos, *o, err, tc.pos, tc.o)
		}
	}
}

func TestServeFlags(t *testing.T) {
	t.Setenv("DESKRUN_TOKEN", "")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"serve", "--addr", "0.0.0.0:0"}, "set --token or DESKRUN_TOKEN"},
		{[]string{"serve", "--provider", "k8s"}, `unknown provider "k8s"`},
		{[]string{"serve", "--dialect", "klingon"}, `unknown dialect "klingon"`},
		{[]string{"serve", "--log-level", "loud"}, "--log-level"},
		{[]string{"serve", "--call-timeout", "10ms"}, "--call-timeout: 10ms out of range 1s..1h"},
		{[]string{"serve", "extra"}, `unexpected argument "extra"`},
		{[]string{"sessions"}, "a verb is required"},
		{[]string{"sessions", "fly"}, `unknown verb "fly"`},
		{[]string{"sessions", "get"}, "get: want a session id"},
		{[]string{"sessions", "exec", "ID"}, "exec: want a session id and a command"},
		{[]string{"sessions", "create", "--screen", "big"}, "--screen: want WxH"},
		{[]string{"sessions", "input", "ID", "{nope"}, "not valid JSON"},
		{[]string{"sessions", "tool", "ID", "computer", "{nope"}, "not valid JSON"},
		{[]string{"sessions", "screenshot", "ID", "--region", "1,2"}, "region"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%q: exit %d %q, want 2 with %q", tc.args, code, stderr, tc.msg)
		}
	}
}

func TestSessionsNoServer(t *testing.T) {
	code, _, stderr := runCLI(t, "sessions", "--server", "http://127.0.0.1:1", "list")
	if code != 1 || !strings.Contains(stderr, "no deskrun server answers at http://127.0.0.1:1") {
		t.Errorf("exit %d %q", code, stderr)
	}
}

// writeFile is a test helper for files the CLI reads.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
