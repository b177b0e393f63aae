package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/containerd/errdefs"
	"gopkg.in/yaml.v3"
)

func TestCreateRunRequestNormalize(t *testing.T) {
	var r CreateRunRequest
	r.Normalize()
	if r.Agent != DefaultRunAgent || r.Trials != DefaultRunTrials || r.Parallel != DefaultRunParallel ||
		r.MaxSteps != DefaultRunMaxSteps || r.TimeoutMS != DefaultRunTimeoutMS || r.Retries == nil || *r.Retries != DefaultRunRetries ||
		r.Snapshots == nil || !*r.Snapshots {
		t.Errorf("zero request normalized to %+v", r)
	}
	// Values given are kept, out of bounds or not: Validate refuses them.
	zero, neg := 0, -1
	r = CreateRunRequest{Agent: "openai", Trials: 3, Parallel: 100, MaxSteps: 7, TimeoutMS: 5, Retries: &zero}
	r.Normalize()
	if r.Agent != "openai" || r.Trials != 3 || r.Parallel != 100 || r.MaxSteps != 7 || r.TimeoutMS != 5 || *r.Retries != 0 {
		t.Errorf("given values changed: %+v", r)
	}
	r = CreateRunRequest{Retries: &neg}
	r.Normalize()
	if *r.Retries != -1 {
		t.Errorf("retries -1 became %d", *r.Retries)
	}
	off := false
	r = CreateRunRequest{Snapshots: &off}
	r.Normalize()
	if *r.Snapshots {
		t.Error("snapshots false became true")
	}
}

func TestCreateRunRequestValidate(t *testing.T) {
	n := func(v int) *int { return &v }
	for _, tt := range []struct {
		req  CreateRunRequest
		want string // the error's text; empty: valid
	}{
		{CreateRunRequest{Tasks: "tasks"}, ""},
		{CreateRunRequest{}, "tasks: required, a task file or folder on the server"},
		{CreateRunRequest{Tasks: "  "}, "tasks: required"},
		{CreateRunRequest{Tasks: "t", Trials: MaxRunTrials}, ""},
		{CreateRunRequest{Tasks: "t", Trials: MaxRunTrials + 1}, "trials: must be between 1 and 100, got 101"},
		{CreateRunRequest{Tasks: "t", Trials: -1}, "trials: must be between 1 and 100, got -1"},
		{CreateRunRequest{Tasks: "t", Parallel: 1}, ""},
		{CreateRunRequest{Tasks: "t", Parallel: MaxRunParallel}, ""},
		{CreateRunRequest{Tasks: "t", Parallel: 100}, "parallel: must be between 1 and 64, got 100"},
		{CreateRunRequest{Tasks: "t", Parallel: -2}, "parallel: must be between 1 and 64, got -2"},
		{CreateRunRequest{Tasks: "t", MaxSteps: MaxRunMaxSteps + 1}, "max_steps: must be between 1 and 1000, got 1001"},
		{CreateRunRequest{Tasks: "t", TimeoutMS: MinRunTimeoutMS}, ""},
		{CreateRunRequest{Tasks: "t", TimeoutMS: 999}, "timeout_ms: must be between 1000 and 86400000, got 999"},
		{CreateRunRequest{Tasks: "t", TimeoutMS: MaxRunTimeoutMS + 1}, "timeout_ms: must be between 1000 and 86400000, got 86400001"},
		{CreateRunRequest{Tasks: "t", Retries: n(0)}, ""},
		{CreateRunRequest{Tasks: "t", Retries: n(MaxRunRetries)}, ""},
		{CreateRunRequest{Tasks: "t", Retries: n(-1)}, "retries: must be between 0 and 10, got -1"},
		{CreateRunRequest{Tasks: "t", Retries: n(11)}, "retries: must be between 0 and 10, got 11"},
		{CreateRunRequest{Tasks: "t", Only: []string{"a*", "b"}}, ""},
		{CreateRunRequest{Tasks: "t", Only: []string{"a*", " "}}, "only[1]: empty pattern"},
	} {
		err := tt.req.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Validate(%+v) = %v, want nil", tt.req, err)
		case tt.want != "" && (!errdefs.IsInvalidArgument(err) || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("Validate(%+v) = %v, want invalid argument %q", tt.req, err, tt.want)
		}
	}
	// Validate does not change its receiver.
	r := CreateRunRequest{Tasks: "t"}
	_ = r.Validate()
	if r.Parallel != 0 || r.Retries != nil {
		t.Errorf("Validate changed the request: %+v", r)
	}
}

func TestCreateRunRequestJSON(t *testing.T) {
	for _, tt := range []struct {
		body string
		want string // the error's text; empty: decodes
	}{
		{`{"tasks":"t"}`, ""},
		{`{"tasks":"t","retries":0}`, ""},
		{`{"tasks":"t","parallel":0}`, "parallel: 0 is below the minimum 1 (leave it out for the default)"},
		{`{"tasks":"t","trials":0}`, "trials: 0 is below the minimum 1"},
		{`{"tasks":"t","max_steps":0}`, "max_steps: 0 is below the minimum 1"},
		{`{"tasks":"t","timeout_ms":0}`, "timeout_ms: 0 is below the minimum 1000"},
		{`{"tasks":"t","paralel":2}`, `json: unknown field "paralel"`},
	} {
		var r CreateRunRequest
		err := json.Unmarshal([]byte(tt.body), &r)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.body, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("%s: %v, want %q", tt.body, err, tt.want)
		}
	}
}

// TestCreateRunRequestOpenAPI keeps openapi.yaml's run request, the
// contract as clients read it, on the constants: its defaults, minimums
// and maximums are theirs.
func TestCreateRunRequestOpenAPI(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Components.Schemas["CreateRunRequest"].Properties
	for _, tt := range []struct {
		field         string
		def, min, max any
	}{
		{"agent", DefaultRunAgent, nil, nil},
		{"trials", DefaultRunTrials, 1, MaxRunTrials},
		{"parallel", DefaultRunParallel, 1, MaxRunParallel},
		{"max_steps", DefaultRunMaxSteps, 1, MaxRunMaxSteps},
		{"timeout_ms", DefaultRunTimeoutMS, MinRunTimeoutMS, MaxRunTimeoutMS},
		{"retries", DefaultRunRetries, 0, MaxRunRetries},
	} {
		p, ok := props[tt.field]
		if !ok {
			t.Errorf("openapi.yaml's CreateRunRequest has no %s", tt.field)
			continue
		}
		for _, k := range []struct {
			key  string
			want any
		}{{"default", tt.def}, {"minimum", tt.min}, {"maximum", tt.max}} {
			if k.want != nil && p[k.key] != k.want {
				t.Errorf("openapi.yaml: %s's %s is %v, the constant %v", tt.field, k.key, p[k.key], k.want)
			}
		}
	}
}
