package task

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestLoadOSWorldFields(t *testing.T) {
	tasks, err := Load("testdata/check/files")
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]*Task{}
	for _, tk := range tasks {
		by[tk.ID] = tk
	}
	w := by["wallpaper"]
	if w == nil || w.Skip != nil {
		t.Fatalf("wallpaper: %+v", w)
	}
	if w.Source != "https://example.org/a, https://example.org/b" {
		t.Errorf("source = %q", w.Source)
	}
	if w.Config[0].Type != "change_wallpaper" || w.Config[1].Type != "execute_with_verification" {
		t.Errorf("config = %+v", w.Config)
	}
	v := by["vlc-info"]
	if v == nil || v.Skip != nil || v.Evaluator.Conj != "or" || len(v.Evaluator.Func) != 2 {
		t.Fatalf("vlc-info: %+v", v)
	}
}

func TestLoadSkips(t *testing.T) {
	tests := []struct{ id, field, reason string }{
		{"tabs", "evaluator.result (number_of_search_results)", "needs the internet"},
		{"drive", "config[0] (googledrive)", "Google Drive credentials"},
		{"draft", "evaluator.func", "cannot be graded"},
	}
	tasks, err := Load("testdata/check/browser")
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]*Task{}
	for _, tk := range tasks {
		by[tk.ID] = tk
	}
	for _, tt := range tests {
		tk := by[tt.id]
		if tk == nil || tk.Skip == nil {
			t.Errorf("%s: not skipped: %+v", tt.id, tk)
			continue
		}
		if tk.Skip.Field != tt.field || !strings.Contains(tk.Skip.Reason, tt.reason) {
			t.Errorf("%s: skip %+v, want field %q and a reason with %q", tt.id, tk.Skip, tt.field, tt.reason)
		}
	}
}

func TestCheck(t *testing.T) {
	rep, err := Check("testdata/check", nil, Apps{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]CheckEntry{
		"wallpaper": {Status: CheckLoaded},
		"vlc-info":  {Status: CheckLoaded},
		"tabs":      {Status: CheckSkipped, Field: "evaluator.result (number_of_search_results)"},
		"drive":     {Status: CheckSkipped, Field: "config[0] (googledrive)"},
		"draft":     {Status: CheckSkipped, Field: "evaluator.func"},
		"metric":    {Status: CheckRefused, Field: "evaluator.func", Reason: `unknown metric "compare_slides_magically" (not implemented)`},
		"getter":    {Status: CheckRefused, Field: "evaluator.result", Reason: `unknown getter type "vm_teleport"`},
		"field":     {Status: CheckRefused, Field: "instruction", Reason: "want a string, got number"},
		"missing":   {Status: CheckRefused, Field: "config[0].parameters.command", Reason: "required"},
	}
	if len(rep.Tasks) != len(want) {
		t.Errorf("%d entries, want %d: %+v", len(rep.Tasks), len(want), rep.Tasks)
	}
	for _, e := range rep.Tasks {
		w, ok := want[e.ID]
		if !ok {
			t.Errorf("unexpected entry %+v", e)
			continue
		}
		if e.Status != w.Status || e.Field != w.Field || w.Reason != "" && e.Reason != w.Reason {
			t.Errorf("%s: got %s %q %q, want %s %q %q", e.ID, e.Status, e.Field, e.Reason, w.Status, w.Field, w.Reason)
		}
	}
	if rep.Refused() != 4 {
		t.Errorf("Refused() = %d, want 4", rep.Refused())
	}
	wantCounts := []CheckCount{
		{Domain: "broken", Refused: 4}, {Domain: "browser", Skipped: 3}, {Domain: "files", Loaded: 2},
		{Domain: "all", Loaded: 2, Skipped: 3, Refused: 4},
	}
	if len(rep.Domains) != len(wantCounts) {
		t.Fatalf("domains = %+v", rep.Domains)
	}
	for i, c := range wantCounts {
		if rep.Domains[i] != c {
			t.Errorf("domains[%d] = %+v, want %+v", i, rep.Domains[i], c)
		}
	}

	only, err := ReadIndex("testdata/check/index.json")
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Check("testdata/check", only, Apps{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Domains[len(rep.Domains)-1]; got != (CheckCount{Domain: "all", Loaded: 2, Skipped: 1}) {
		t.Errorf("with the index: %+v", rep.Domains)
	}
}

func TestSkipOf(t *testing.T) {
	err := error(&Skip{Field: "config[1] (launch)", Reason: vsCodeMissing})
	wrapped := errors.Join(errors.New("setup"), err)
	if s := SkipOf(wrapped); s == nil || s.Reason != vsCodeMissing {
		t.Errorf("SkipOf = %v", s)
	}
	if SkipOf(errors.New("x")) != nil {
		t.Error("SkipOf of a plain error")
	}
}

func TestTimeSuffix(t *testing.T) {
	now := time.Date(2026, 3, 9, 7, 5, 0, 0, time.UTC)
	if got := strftime("%Y_%m_%d-%H%M", now); got != "2026_03_09-0705" {
		t.Errorf("strftime = %q", got)
	}
	// As OSWorld's get_vm_file: the cache copy is named {stem}_{now}{ext},
	// the path in the VM left as it is.
	paths, dests, _ := filePairs(map[string]any{"path": "/home/user/report.v2.xlsx", "dest": "report.v2.xlsx", "time_suffix": true, "time_format": "%Y"})
	year := time.Now().Format("2006")
	if paths[0] != "/home/user/report.v2.xlsx" || dests[0] != "report.v2_"+year+".xlsx" {
		t.Errorf("time_suffix: %q %q", paths, dests)
	}
	// The default format is %Y%m%d_%H%M%S.
	if _, dests, _ := filePairs(map[string]any{"path": "/x/Export-.csv", "dest": "Export-.csv", "time_suffix": true}); !regexp.MustCompile(`^Export-_\d{8}_\d{6}\.csv$`).MatchString(dests[0]) {
		t.Errorf("time_suffix with the default format: %q", dests)
	}
	for name, want := range map[string][2]string{
		"a.txt": {"a", ".txt"}, "a.tar.gz": {"a.tar", ".gz"}, ".bashrc": {".bashrc", ""}, "..x": {"..x", ""},
		"noext": {"noext", ""}, "d.ir/file": {"d.ir/file", ""}, "d/.h.txt": {"d/.h", ".txt"}, "a.": {"a", "."},
	} {
		if stem, ext := splitExt(name); stem != want[0] || ext != want[1] {
			t.Errorf("splitExt(%q) = %q, %q; want %q, %q", name, stem, ext, want[0], want[1])
		}
	}
}

// Tasks that need VS Code are skipped at load on an image without it,
// naming the field that needs it, and load on an image with it.
func TestCheckVSCode(t *testing.T) {
	want := map[string]string{
		"launch":    "config[1] (launch)",
		"shell":     "config[0] (execute)",
		"window":    "evaluator.postconfig[0] (activate_window)",
		"extension": "evaluator.result[1] (vm_command_line)",
		"settings":  "evaluator.result (vscode_config)",
		"other":     "", // mentions code, never runs it
	}
	rep, err := Check("testdata/vscode", nil, Apps{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tasks) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(rep.Tasks), len(want), rep.Tasks)
	}
	for _, e := range rep.Tasks {
		field, ok := want[e.ID]
		switch {
		case !ok:
			t.Errorf("unexpected entry %+v", e)
		case field == "" && e.Status != CheckLoaded:
			t.Errorf("%s: %s %q %q, want loaded", e.ID, e.Status, e.Field, e.Reason)
		case field != "" && (e.Status != CheckSkipped || e.Field != field || e.Reason != vsCodeMissing):
			t.Errorf("%s: %s %q %q, want skipped at %q for want of VS Code", e.ID, e.Status, e.Field, e.Reason, field)
		}
	}
	if c := rep.Domains[len(rep.Domains)-1]; c != (CheckCount{Domain: "all", Loaded: 1, Skipped: 5}) {
		t.Errorf("without VS Code: %+v", c)
	}

	rep, err = Check("testdata/vscode", nil, AppsOf(map[string]string{LabelVSCode: "1"}))
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Domains[len(rep.Domains)-1]; c != (CheckCount{Domain: "all", Loaded: 6}) {
		t.Errorf("with VS Code: %+v", rep.Tasks)
	}
}

// SkipMissing keeps the reason of a task skipped for another need.
func TestSkipMissingKeepsReason(t *testing.T) {
	tasks, err := Load("testdata/vscode")
	if err != nil {
		t.Fatal(err)
	}
	drive := &Skip{Field: "config[0] (googledrive)", Reason: "needs Google Drive credentials"}
	tasks[0].Skip = drive
	if n := SkipMissing(tasks, Apps{}); n != 4 {
		t.Errorf("SkipMissing marked %d, want 4 (5 need VS Code, one already skipped)", n)
	}
	if tasks[0].Skip != drive {
		t.Errorf("%s: skip %+v, want the earlier reason kept", tasks[0].ID, tasks[0].Skip)
	}
}
