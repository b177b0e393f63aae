package dialect

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/deskrun/deskrun/api"
)

// editorToolName is Anthropic's text editor tool: view, create,
// str_replace, insert and undo_edit on files of the sandbox, with the
// reference implementation's messages.
const editorToolName = "str_replace_based_edit_tool"

const (
	snippetLines   = 4
	maxResponseLen = 16000
	clippedNote    = "<response clipped><NOTE>To save on context only part of this file has been shown to you. " +
		"You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>"
)

func editTool(ctx context.Context, d Desktop, st *State, dl Dialect, args json.RawMessage) (Result, error) {
	m, err := checkArgs(dl, editorToolName, args)
	if err != nil {
		return errorResult(errMessage(err)), nil
	}
	cmd, _ := m["command"].(string)
	p, _ := m["path"].(string)
	if !path.IsAbs(p) {
		return errorResult(fmt.Sprintf("The path %s is not an absolute path, it should start with `/`. Maybe you meant %s?", p, "/"+p)), nil
	}
	kind, err := probePath(ctx, d, p)
	if err != nil {
		return Result{}, err
	}
	switch {
	case kind == "none" && cmd != "create":
		return errorResult(fmt.Sprintf("The path %s does not exist. Please provide a valid path.", p)), nil
	case kind != "none" && cmd == "create":
		return errorResult(fmt.Sprintf("File already exists at: %s. Cannot overwrite files using command `create`.", p)), nil
	case kind == "dir" && cmd != "view":
		return errorResult(fmt.Sprintf("The path %s is a directory and only the `view` command can be used on directories", p)), nil
	}
	read := func() (string, error) {
		b, err := d.ReadFile(ctx, p)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", p, err)
		}
		return string(b), nil
	}
	write := func(s string) error {
		if err := d.WriteFile(ctx, p, []byte(s)); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		return nil
	}
	fail := func(err error) (Result, error) {
		if refused(err) {
			return errorResult(err.Error()), nil
		}
		return Result{}, err
	}

	switch cmd {
	case "view":
		vr, hasRange := m["view_range"]
		if kind == "dir" {
			if hasRange {
				return errorResult("The `view_range` parameter is not allowed when `path` points to a directory."), nil
			}
			res, err := d.Exec(ctx, api.ExecRequest{Cmd: []string{"find", p, "-maxdepth", "2", "-not", "-path", "*/.*"}})
			if err != nil {
				return fail(fmt.Errorf("list %s: %w", p, err))
			}
			if res.Stderr != "" && res.Stdout == "" {
				return errorResult(res.Stderr), nil
			}
			return textResult(fmt.Sprintf("Here's the files and directories up to 2 levels deep in %s, excluding hidden items:\n%s\n", p, res.Stdout)), nil
		}
		content, err := read()
		if err != nil {
			return fail(err)
		}
		out, msg := viewFile(p, content, vr, hasRange)
		if msg != "" {
			return errorResult(msg), nil
		}
		return textResult(out), nil
	case "create":
		text, ok := m["file_text"].(string)
		if !ok {
			return errorResult("Parameter `file_text` is required for command: create"), nil
		}
		if err := write(text); err != nil {
			return fail(err)
		}
		return textResult("File created successfully at: " + p), nil
	case "str_replace":
		old, ok := m["old_str"].(string)
		if !ok {
			return errorResult("Parameter `old_str` is required for command: str_replace"), nil
		}
		repl, _ := m["new_str"].(string)
		content, err := read()
		if err != nil {
			return fail(err)
		}
		updated, out, msg := strReplace(p, content, old, repl)
		if msg != "" {
			return errorResult(msg), nil
		}
		if err := write(updated); err != nil {
			return fail(err)
		}
		st.pushUndo(p, content)
		return textResult(out), nil
	case "insert":
		f, ok := number(m["insert_line"])
		if !ok {
			return errorResult("Parameter `insert_line` is required for command: insert"), nil
		}
		text, ok := m["insert_text"].(string)
		if !ok {
			text, ok = m["new_str"].(string)
		}
		if !ok {
			return errorResult("Parameter `new_str` is required for command: insert"), nil
		}
		content, err := read()
		if err != nil {
			return fail(err)
		}
		updated, out, msg := insertLines(p, content, int(f), text)
		if msg != "" {
			return errorResult(msg), nil
		}
		if err := write(updated); err != nil {
			return fail(err)
		}
		st.pushUndo(p, content)
		return textResult(out), nil
	case "undo_edit":
		prev, ok := st.popUndo(p)
		if !ok {
			return errorResult(fmt.Sprintf("No edit history found for %s.", p)), nil
		}
		if err := write(prev); err != nil {
			return fail(err)
		}
		return textResult(fmt.Sprintf("Last edit to %s undone successfully. %s", p, catN(prev, p, 1))), nil
	}
	return errorResult(fmt.Sprintf("Unrecognized command %s. The allowed commands for the %s tool are: view, create, str_replace, insert, undo_edit", cmd, editorToolName)), nil
}

// probePath reports whether p is a directory ("dir"), another existing
// file ("file") or missing ("none").
func probePath(ctx context.Context, d Desktop, p string) (string, error) {
	res, err := d.Exec(ctx, api.ExecRequest{
		Cmd:       []string{"sh", "-c", `if [ -d "$1" ]; then echo dir; elif [ -e "$1" ]; then echo file; else echo none; fi`, "sh", p},
		TimeoutMS: 10_000,
	})
	if err != nil {
		return "", fmt.Errorf("inspect %s: %w", p, err)
	}
	switch k := strings.TrimSpace(res.Stdout); k {
	case "dir", "file", "none":
		return k, nil
	}
	return "", fmt.Errorf("inspect %s: unexpected answer %q (exit code %d)", p, res.Stdout, res.ExitCode)
}

func (st *State) pushUndo(p, content string) {
	if st.undo == nil {
		st.undo = map[string][]string{}
	}
	st.undo[p] = append(st.undo[p], content)
}

func (st *State) popUndo(p string) (string, bool) {
	h := st.undo[p]
	if len(h) == 0 {
		return "", false
	}
	st.undo[p] = h[:len(h)-1]
	return h[len(h)-1], true
}

// catN renders text as `cat -n` does, starting at line init, under the
// reference tool's heading, clipped to maxResponseLen.
func catN(text, descriptor string, init int) string {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\t%s", i+init, l)
	}
	return "Here's the result of running `cat -n` on " + descriptor + ":\n" + clip(b.String()) + "\n"
}

func clip(s string) string {
	if len(s) <= maxResponseLen {
		return s
	}
	return s[:maxResponseLen] + clippedNote
}

// viewFile renders a file, or the lines of view_range [first, last]
// (1-based, last -1 meaning the end). msg is a tool error.
func viewFile(p, content string, vr any, hasRange bool) (out, msg string) {
	if !hasRange {
		return catN(content, p, 1), ""
	}
	list, ok := vr.([]any)
	var r [2]int
	if ok && len(list) == 2 {
		for i, v := range list {
			f, isNum := number(v)
			if !isNum || f != float64(int(f)) {
				ok = false
			}
			r[i] = int(f)
		}
	}
	if !ok || len(list) != 2 {
		return "", "Invalid `view_range`. It should be a list of two integers."
	}
	lines := strings.Split(content, "\n")
	n := len(lines)
	first, last := r[0], r[1]
	rangeText := fmt.Sprintf("[%d, %d]", first, last)
	switch {
	case first < 1 || first > n:
		return "", fmt.Sprintf("Invalid `view_range`: %s. Its first element `%d` should be within the range of lines of the file: [1, %d]", rangeText, first, n)
	case last > n:
		return "", fmt.Sprintf("Invalid `view_range`: %s. Its second element `%d` should be smaller than the number of lines in the file: `%d`", rangeText, last, n)
	case last != -1 && last < first:
		return "", fmt.Sprintf("Invalid `view_range`: %s. Its second element `%d` should be larger or equal than its first `%d`", rangeText, last, first)
	}
	if last == -1 {
		last = n
	}
	return catN(strings.Join(lines[first-1:last], "\n"), p, first), ""
}

// strReplace replaces the one occurrence of old in content. msg is a tool
// error when old occurs never or more than once.
func strReplace(p, content, old, repl string) (updated, out, msg string) {
	switch n := strings.Count(content, old); {
	case old == "" || n == 0:
		return "", "", fmt.Sprintf("No replacement was performed, old_str `%s` did not appear verbatim in %s.", old, p)
	case n > 1:
		var lines []string
		for i, l := range strings.Split(content, "\n") {
			if strings.Contains(l, old) {
				lines = append(lines, itoa(i+1))
			}
		}
		return "", "", fmt.Sprintf("No replacement was performed. Multiple occurrences of old_str `%s` in lines [%s]. Please ensure it is unique", old, strings.Join(lines, ", "))
	}
	updated = strings.Replace(content, old, repl, 1)
	at := strings.Count(content[:strings.Index(content, old)], "\n")
	start := max(0, at-snippetLines)
	end := at + snippetLines + strings.Count(repl, "\n")
	lines := strings.Split(updated, "\n")
	end = min(end+1, len(lines))
	snippet := strings.Join(lines[start:end], "\n")
	out = fmt.Sprintf("The file %s has been edited. %sReview the changes and make sure they are as expected. Edit the file again if necessary.",
		p, catN(snippet, "a snippet of "+p, start+1))
	return updated, out, ""
}

// insertLines inserts text after line at (0 for the top).
func insertLines(p, content string, at int, text string) (updated, out, msg string) {
	lines := strings.Split(content, "\n")
	n := len(lines)
	if at < 0 || at > n {
		return "", "", fmt.Sprintf("Invalid `insert_line` parameter: %d. It should be within the range of lines of the file: [0, %d]", at, n)
	}
	ins := strings.Split(text, "\n")
	all := append(append(append([]string{}, lines[:at]...), ins...), lines[at:]...)
	snippet := append(append(append([]string{}, lines[max(0, at-snippetLines):at]...), ins...), lines[at:min(n, at+snippetLines)]...)
	out = fmt.Sprintf("The file %s has been edited. %sReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.",
		p, catN(strings.Join(snippet, "\n"), "a snippet of the edited file", max(1, at-snippetLines+1)))
	return strings.Join(all, "\n"), out, ""
}
