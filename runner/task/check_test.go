package task

import (
	"errors"
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
	rep, err := Check("testdata/check", nil)
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
	rep, err = Check("testdata/check", only)
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
	paths, dests, _ := filePairs(map[string]any{"path": "/home/user/report.xlsx", "dest": "report.xlsx", "time_suffix": true, "time_format": "%Y"})
	year := time.Now().Format("2006")
	if paths[0] != "/home/user/report"+year+".xlsx" || dests[0] != "report"+year+".xlsx" {
		t.Errorf("time_suffix: %q %q", paths, dests)
	}
}
