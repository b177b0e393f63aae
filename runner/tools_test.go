package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/dialect"
)

// TestDialectsOnDesktop calls the tools of the dialects on a real
// sandbox (the golden tests of package dialect use a fake desktop): the
// sandbox's named shell sessions keep their state and take input while a
// command runs, its file tools read, write and replace, Anthropic's text
// editor edits and undoes, pyautogui code drives the desktop, and
// OpenAI's and hermes' clicks land where they say, while what needs an
// accessibility tree is refused.
func TestDialectsOnDesktop(t *testing.T) {
	m, _, _ := desktop(t)
	ctx := t.Context()
	s, err := m.Create(ctx, api.CreateSessionRequest{Screen: api.Screen{Width: 1024, Height: 768}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	call := func(t *testing.T, dn, name, args string) dialect.Result {
		t.Helper()
		res, err := s.CallTool(ctx, dn, name, json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s %s %s: %v", dn, name, args, err)
		}
		return res
	}
	ok := func(t *testing.T, dn, name, args string, want ...string) string {
		t.Helper()
		res := call(t, dn, name, args)
		if res.IsError {
			t.Fatalf("%s %s %s: tool error %q", dn, name, args, res.Text())
		}
		for _, w := range want {
			if !strings.Contains(res.Text(), w) {
				t.Errorf("%s %s %s: %q lacks %q", dn, name, args, res.Text(), w)
			}
		}
		return res.Text()
	}
	refused := func(t *testing.T, dn, name, args, want string) {
		t.Helper()
		res := call(t, dn, name, args)
		if !res.IsError || !strings.Contains(res.Text(), want) {
			t.Errorf("%s %s %s: %v %q, want a tool error with %q", dn, name, args, res.IsError, res.Text(), want)
		}
	}
	dir := t.TempDir()

	t.Run("sandbox shell", func(t *testing.T) {
		ok(t, "sandbox", "shell_exec", `{"id":"s1","exec_dir":"`+dir+`","command":"mkdir sub && cd sub && export X=42"}`)
		ok(t, "sandbox", "shell_exec", `{"id":"s1","exec_dir":"`+dir+`/sub","command":"echo \"at $(pwd) X=$X\""}`, "at "+dir+"/sub X=42")
		// Another session has state of its own.
		ok(t, "sandbox", "shell_exec", `{"id":"s2","exec_dir":"/","command":"echo \"X=$X.\""}`, "X=.")
		// A command waiting for input gets it, Enter included. (It is
		// started with a short wait: shell_exec waits 30 s for a command
		// before answering.)
		if _, err := s.ShellExec(ctx, "s1", api.ShellExecRequest{Command: `read -p 'name? ' n; echo "hello $n"`, WaitMS: 300}); err != nil {
			t.Fatal(err)
		}
		ok(t, "sandbox", "shell_view", `{"id":"s1"}`, "name? ", "still running")
		ok(t, "sandbox", "shell_write_to_process", `{"id":"s1","input":"bob","press_enter":true}`)
		out := ok(t, "sandbox", "shell_wait", `{"id":"s1","seconds":5}`, "hello bob")
		if strings.Contains(out, "still running") {
			t.Errorf("shell_wait: %q, want the command finished", out)
		}
		ok(t, "sandbox", "shell_view", `{"id":"s1"}`, "hello bob")
		// A long command is killed.
		if _, err := s.ShellExec(ctx, "s2", api.ShellExecRequest{Command: "echo started; sleep 1000", WaitMS: 300}); err != nil {
			t.Fatal(err)
		}
		ok(t, "sandbox", "shell_view", `{"id":"s2"}`, "started", "still running")
		out = ok(t, "sandbox", "shell_kill_process", `{"id":"s2"}`)
		if strings.Contains(out, "still running") {
			t.Errorf("shell_kill_process: %q", out)
		}
		refused(t, "sandbox", "shell_view", `{"id":"nope"}`, "nope")
	})

	t.Run("sandbox files", func(t *testing.T) {
		f := filepath.Join(dir, "new", "notes.txt")
		ok(t, "sandbox", "file_write", `{"file":"`+f+`","content":"one\ntwo"}`)
		ok(t, "sandbox", "file_write", `{"file":"`+f+`","content":"three","append":true}`)
		if b, _ := os.ReadFile(f); string(b) != "one\ntwo\n\nthree\n" {
			t.Errorf("after write and append: %q", b)
		}
		if out := ok(t, "sandbox", "file_read", `{"file":"`+f+`","start_line":1,"end_line":3}`); out != "two\n\n" {
			t.Errorf("file_read lines 1..3: %q", out)
		}
		if out := ok(t, "sandbox", "file_read", `{"file":"`+f+`","start_line":-1}`); out != "three\n" {
			t.Errorf("file_read last line: %q", out)
		}
		ok(t, "sandbox", "file_str_replace", `{"file":"`+f+`","old_str":"two","new_str":"2"}`, "Replaced 1")
		if b, _ := os.ReadFile(f); string(b) != "one\n2\n\nthree\n" {
			t.Errorf("after str_replace: %q", b)
		}
		refused(t, "sandbox", "file_str_replace", `{"file":"`+f+`","old_str":"four","new_str":"4"}`, "old_str not found")
		refused(t, "sandbox", "file_read", `{"file":"`+f+`.missing"}`, "file not found")
		shot, err := s.Screenshot(ctx, api.ScreenshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		img := filepath.Join(dir, "shot.png")
		if err := os.WriteFile(img, shot.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		res := call(t, "sandbox", "image_view", `{"image":"`+img+`"}`)
		if res.IsError || len(res.Content) != 2 || res.Content[1].Type != "image" || res.Content[1].MIMEType != "image/png" {
			t.Errorf("image_view: %+v", res.Content)
		}
	})

	t.Run("anthropic editor", func(t *testing.T) {
		f := filepath.Join(dir, "edit.py")
		const tool = "str_replace_based_edit_tool"
		ok(t, "anthropic", tool, `{"command":"create","path":"`+f+`","file_text":"a = 1\nb = 2\n"}`, "File created successfully")
		ok(t, "anthropic", tool, `{"command":"view","path":"`+f+`"}`, "     1\ta = 1\n     2\tb = 2")
		ok(t, "anthropic", tool, `{"command":"view","path":"`+f+`","view_range":[2,2]}`, "     2\tb = 2")
		ok(t, "anthropic", tool, `{"command":"str_replace","path":"`+f+`","old_str":"b = 2","new_str":"b = 3"}`, "has been edited")
		ok(t, "anthropic", tool, `{"command":"insert","path":"`+f+`","insert_line":0,"new_str":"# top"}`, "has been edited")
		if b, _ := os.ReadFile(f); string(b) != "# top\na = 1\nb = 3\n" {
			t.Errorf("after str_replace and insert: %q", b)
		}
		ok(t, "anthropic", tool, `{"command":"undo_edit","path":"`+f+`"}`, "undone successfully")
		if b, _ := os.ReadFile(f); string(b) != "a = 1\nb = 3\n" {
			t.Errorf("after undo_edit: %q", b)
		}
		ok(t, "anthropic", tool, `{"command":"undo_edit","path":"`+f+`"}`)
		if b, _ := os.ReadFile(f); string(b) != "a = 1\nb = 2\n" {
			t.Errorf("after the second undo_edit: %q", b)
		}
		refused(t, "anthropic", tool, `{"command":"create","path":"`+f+`","file_text":"x"}`, "Cannot overwrite files using command `create`")
		ok(t, "anthropic", tool, `{"command":"view","path":"`+dir+`"}`, "edit.py")
		ok(t, "anthropic", "bash", `{"command":"cd `+dir+` && X=7 && echo in $(pwd)"}`, "in "+dir)
		ok(t, "anthropic", "bash", `{"command":"pwd"}`, dir)
	})

	t.Run("pyautogui", func(t *testing.T) {
		ok(t, "pyautogui", "pyautogui", `{"code":"pyautogui.click(321, 123)\nprint(tuple(pyautogui.position()))"}`, `"output": "(321, 123)\n"`, `"returncode": 0`)
		if got := pointer(t, h.Display); got != "x:321 y:123" {
			t.Errorf("after pyautogui.click(321, 123): %s", got)
		}
		// Compound statements run; the fail-safe is off, as in OSWorld.
		ok(t, "pyautogui", "pyautogui", `{"code":"for p in [(0, 0), (40, 50)]:\n    pyautogui.moveTo(*p)"}`, `"status": "success"`)
		if got := pointer(t, h.Display); got != "x:40 y:50" {
			t.Errorf("after moveTo (0, 0) then (40, 50): %s", got)
		}
		refused(t, "pyautogui", "pyautogui", `{"code":"pyautogui.clack()"}`, "AttributeError")
		if res := call(t, "pyautogui", "pyautogui", `{"code":"DONE"}`); !res.Done || res.IsError {
			t.Errorf("DONE: %+v", res)
		}
	})

	t.Run("openai and hermes", func(t *testing.T) {
		ok(t, "openai", "computer", `{"type":"click","x":200,"y":150}`)
		if got := pointer(t, h.Display); got != "x:200 y:150" {
			t.Errorf("after openai click: %s", got)
		}
		ok(t, "openai", "computer", `{"actions":[{"type":"move","x":10,"y":20},{"type":"scroll","x":300,"y":310,"scroll_x":0,"scroll_y":200}]}`)
		if got := pointer(t, h.Display); got != "x:300 y:310" {
			t.Errorf("after openai scroll at 300,310: %s", got)
		}
		ok(t, "hermes", "computer_use", `{"action":"capture","mode":"vision"}`)
		ok(t, "hermes", "computer_use", `{"action":"click","coordinate":[400,300]}`)
		if got := pointer(t, h.Display); got != "x:400 y:300" {
			t.Errorf("after hermes click: %s", got)
		}
		// agentd reads the accessibility tree: som captures work (this
		// desktop has no accessible application, so the list is empty) and
		// an element index needs a capture that listed it
		ok(t, "hermes", "computer_use", `{"action":"capture","mode":"som"}`)
		refused(t, "hermes", "computer_use", `{"action":"click","element":3}`, "is not in the last capture")
		refused(t, "hermes", "computer_use", `{"action":"drag","from_element":1,"to_element":2}`, "is not in the last capture")
		refused(t, "hermes", "computer_use", `{"action":"set_value","element":1,"value":"Blue"}`, "is not in the last capture")
		if got := pointer(t, h.Display); got != "x:400 y:300" {
			t.Errorf("a refused element call moved the pointer to %s", got)
		}
	})
}
