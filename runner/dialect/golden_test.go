package dialect

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/<dialect>/*.txtar")

// goldenNow is the clock of golden cases (OSWorld's step timestamps).
var goldenNow = time.Date(2025, 1, 2, 3, 4, 5, 600000000, time.UTC)

// A golden case is testdata/<dialect>/<case>.txtar. Its comment says what
// the case shows and where the rule comes from (a seed). Inputs:
//
//	env.json    optional fakeConfig: screen, files, windows, scripted answers
//	setup.json  optional list of calls {"tool","args"} made first, on the same
//	            State and desktop (a screenshot, a held button, an edit)
//	call.json   the call under test {"tool","args"}
//
// Expected outputs, rewritten by -update:
//
//	plan     the compiled plan (dialects and tools that compile to one) or
//	         "error: <tool error>"
//	desktop  every call the dialect made on the desktop, in order
//	result   the Result: "ok" or "error", "done", its text and image parts,
//	         and its structured content when that is not one of the texts
var (
	inputFiles  = []string{"env.json", "setup.json", "call.json"}
	outputFiles = []string{"plan", "desktop", "result"}
)

type goldenCall struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
	// RawArgs, if set, are the argument bytes instead of Args (for
	// malformed JSON).
	RawArgs *string `json:"raw_args"`
}

func (c goldenCall) args() json.RawMessage {
	if c.RawArgs != nil {
		return json.RawMessage(*c.RawArgs)
	}
	return c.Args
}

func TestGolden(t *testing.T) {
	defer func(d time.Duration) { windowSettle = d }(windowSettle)
	windowSettle = 0
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			dl, _ := ByName(name)
			files, err := filepath.Glob(filepath.Join("testdata", name, "*.txtar"))
			if err != nil {
				t.Fatal(err)
			}
			if len(files) == 0 {
				t.Fatalf("no golden cases in testdata/%s", name)
			}
			for _, file := range files {
				t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
					runGolden(t, dl, file)
				})
			}
		})
	}
}

func runGolden(t *testing.T, dl Dialect, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(data)
	sections := map[string][]byte{}
	for _, f := range ar.Files {
		if _, dup := sections[f.Name]; dup {
			t.Fatalf("section %s twice", f.Name)
		}
		if !isInput(f.Name) && !isOutput(f.Name) {
			t.Fatalf("unknown section %s", f.Name)
		}
		sections[f.Name] = f.Data
	}
	if len(bytes.TrimSpace(ar.Comment)) == 0 {
		t.Errorf("no comment saying what the case shows")
	}

	var cfg fakeConfig
	if b, ok := sections["env.json"]; ok {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			t.Fatalf("env.json: %v", err)
		}
	}
	var setup []goldenCall
	if b, ok := sections["setup.json"]; ok {
		if err := json.Unmarshal(b, &setup); err != nil {
			t.Fatalf("setup.json: %v", err)
		}
	}
	var call goldenCall
	if err := json.Unmarshal(sections["call.json"], &call); err != nil {
		t.Fatalf("call.json: %v", err)
	}

	f := newFake(cfg)
	d := f.desktop()
	st := &State{Now: func() time.Time { return goldenNow }}
	for i, c := range setup {
		if _, err := dl.Call(t.Context(), d, st, c.Tool, c.args()); err != nil {
			t.Fatalf("setup call %d (%s): %v", i, c.Tool, err)
		}
	}
	f.reset()

	got := map[string]string{}
	if plan, ok := goldenPlan(t, dl, st, f, call.Tool, call.args()); ok {
		got["plan"] = plan
	}
	res, err := dl.Call(t.Context(), d, st, call.Tool, call.args())
	got["desktop"] = strings.Join(f.trace, "\n") + "\n"
	if len(f.trace) == 0 {
		got["desktop"] = "(no calls)\n"
	}
	if err != nil {
		got["result"] = "infrastructure error: " + err.Error() + "\n"
	} else {
		got["result"] = renderResult(res)
		checkResult(t, dl, call.Tool, res)
	}

	if *update {
		out := &txtar.Archive{Comment: ar.Comment}
		for _, n := range inputFiles {
			if b, ok := sections[n]; ok {
				out.Files = append(out.Files, txtar.File{Name: n, Data: b})
			}
		}
		for _, n := range outputFiles {
			if s, ok := got[n]; ok {
				out.Files = append(out.Files, txtar.File{Name: n, Data: []byte(s)})
			}
		}
		if err := os.WriteFile(file, txtar.Format(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, n := range outputFiles {
		want, hasWant := sections[n]
		g, hasGot := got[n]
		switch {
		case hasWant != hasGot:
			t.Errorf("section %s: present in file %v, produced %v (run with -update after checking)", n, hasWant, hasGot)
		case string(want) != g:
			t.Errorf("section %s differs (-want +got):\n%s", n, cmp.Diff(string(want), g))
		}
	}
}

func isInput(name string) bool {
	for _, n := range inputFiles {
		if n == name {
			return true
		}
	}
	return false
}

func isOutput(name string) bool {
	for _, n := range outputFiles {
		if n == name {
			return true
		}
	}
	return false
}

// goldenPlan compiles the call as the dialect's Call would, without
// touching the State or the desktop, and renders the plan; false when
// the tool runs without a plan (shell, files, editor, sessions, apps).
func goldenPlan(t *testing.T, dl Dialect, st *State, f *fakeDesktop, name string, args json.RawMessage) (string, bool) {
	e := env{screen: st.screen, shot: st.shot, leftHeld: st.holding("button:left"), view: st.view}
	if e.screen.Width == 0 || e.screen.Height == 0 {
		e.screen = f.screen
	}
	if st.bound != nil {
		if i, err := f.findWindow(st.bound.id); err == nil {
			w := f.windows[i]
			if w.Bounds == nil {
				w.Bounds = &api.Box{W: 640, H: 480}
			}
			e.capture = visible(w, e.screen)
		}
	}
	var p Plan
	var err error
	switch d := dl.(type) {
	case osworld:
		if name == infoToolName {
			return "", false
		}
		p, err = compileOSWorld(name, args)
	case anthropic:
		if slices.Contains(anthWindowTools, name) {
			return "", false
		}
		switch name {
		case infoToolName, "bash", editorToolName, "request_access", "list_granted_applications",
			"open_application", "switch_display", "read_clipboard", "write_clipboard",
			"click_element", "type_into_element":
			return "", false
		}
		p, err = d.compile(name, args, e)
	case openai:
		if name == infoToolName {
			return "", false
		}
		p, err = d.compile(name, args, e)
	case hermes:
		if name == infoToolName {
			return "", false
		}
		if m, err := checkArgs(d, name, args); err == nil {
			if act, _ := m["action"].(string); act == "list_apps" || act == "focus_app" {
				return "", false
			}
		}
		p, err = d.compile(name, args, e)
	default:
		return "", false
	}
	if err != nil {
		var te *toolError
		if !errors.As(err, &te) {
			t.Errorf("compile: %v is not a tool error", err)
		}
		return "error: " + errMessage(err) + "\n", true
	}
	return renderPlan(p), true
}

// renderPlan writes a plan one step per line, the actions of an input
// step one per line below it.
func renderPlan(p Plan) string {
	var b strings.Builder
	if p.Action != nil {
		fmt.Fprintf(&b, "action: %s\n", compactJSON(p.Action))
	}
	if len(p.Steps) == 0 {
		b.WriteString("(no steps)\n")
	}
	for _, s := range p.Steps {
		if s.Label != "" {
			fmt.Fprintf(&b, "[%s] ", s.Label)
		}
		b.WriteString(s.Op)
		switch s.Op {
		case opInput:
			b.WriteString("\n")
			for _, a := range s.Actions {
				fmt.Fprintf(&b, "  %s\n", compactJSON(a))
			}
			continue
		case opDragFromCursor:
			fmt.Fprintf(&b, " button=%s to=%d,%d", s.Button, s.To.X, s.To.Y)
		case opScreenshot:
			if c := s.Capture; c != nil {
				if c.Region != nil {
					fmt.Fprintf(&b, " region=%s", c.Region)
				}
				if c.MaxWidth > 0 {
					fmt.Fprintf(&b, " max_width=%d", c.MaxWidth)
				}
				if c.Remember {
					b.WriteString(" remember")
				}
			}
		case opCursor:
			fmt.Fprintf(&b, " space=%s", s.Space)
		case opText, opFail:
			fmt.Fprintf(&b, " %q", s.Text)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// renderResult writes a Result: its status, then each part, texts as
// lines prefixed "|" so that every character shows.
func renderResult(r Result) string {
	var b strings.Builder
	if r.IsError {
		b.WriteString("error")
	} else {
		b.WriteString("ok")
	}
	if r.Done {
		b.WriteString(" done")
	}
	b.WriteString("\n")
	texts := map[string]bool{}
	for _, p := range r.Content {
		switch p.Type {
		case "text":
			b.WriteString("text:\n")
			writeLines(&b, p.Text)
			texts[p.Text] = true
		case "image":
			fmt.Fprintf(&b, "image: %s %dx%d (%d bytes)\n", p.MIMEType, p.Width, p.Height, len(p.Data))
		default:
			fmt.Fprintf(&b, "part of type %q\n", p.Type)
		}
	}
	if r.Structured != nil {
		js, err := json.MarshalIndent(r.Structured, "", "  ")
		if err != nil {
			fmt.Fprintf(&b, "structured: cannot marshal: %v\n", err)
		} else if !texts[string(js)] {
			var out bytes.Buffer
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			_ = enc.Encode(r.Structured)
			b.WriteString("structured:\n")
			writeLines(&b, strings.TrimSuffix(out.String(), "\n"))
		}
	}
	return b.String()
}

func writeLines(b *strings.Builder, s string) {
	for _, l := range strings.Split(s, "\n") {
		if l == "" {
			b.WriteString("|\n")
		} else {
			b.WriteString("| " + l + "\n")
		}
	}
}

// checkResult checks what holds for every result of a dialect.
func checkResult(t *testing.T, dl Dialect, toolName string, r Result) {
	t.Helper()
	if len(r.Content) == 0 {
		t.Errorf("result has no content")
	}
	if r.IsError && r.Text() == "" {
		t.Errorf("error result without text")
	}
	if dl.Name() == "osworld" && toolName != infoToolName {
		if _, ok := r.Structured.(osworldStep); !ok {
			t.Errorf("osworld result without its step envelope: %#v", r.Structured)
		}
	}
}
