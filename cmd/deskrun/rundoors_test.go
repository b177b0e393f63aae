package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/farm"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/fake"
	"github.com/deskrun/deskrun/server"
)

// doors are the two front doors of a run on fake sandboxes: deskrun eval
// and deskrun runs start against a server's POST /v1/runs. Each returns
// what the run prepared (nil when it was refused), the exit status and
// the standard error.
type doors struct {
	eval, runs func(t *testing.T, args ...string) (*farm.Plan, int, string)
}

func newDoors(t *testing.T) doors {
	t.Helper()
	manager := func() (*runner.Manager, map[string]sandbox.Provider) {
		images := map[string]sandbox.Provider{"local": fake.New(fake.Config{})}
		m, err := runner.NewManager(runner.Config{Providers: images, DefaultProvider: "local"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close(context.Background()) })
		return m, images
	}
	// The server, wired as deskrun serve wires its runs.
	m, images := manager()
	var served *farm.Plan
	rs, err := farm.NewRuns(farm.RunsConfig{
		Manager: m, Dir: t.TempDir(),
		Apps: func(provider, image string) (task.Apps, error) {
			return imageApps(t.Context(), images, provider, image)
		},
		OnStart: func(_ api.Run, pl farm.Plan) { served = &pl },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		rs.Close(ctx)
	})
	srv := httptest.NewServer(server.NewServer(server.Config{Manager: m, Token: "tok", Runs: rs}))
	t.Cleanup(srv.Close)

	return doors{
		eval: func(t *testing.T, args ...string) (*farm.Plan, int, string) {
			t.Helper()
			var got *farm.Plan
			var stderr syncBuffer // the log and the progress lines write from the run's goroutines
			args = append(args, "--out", filepath.Join(t.TempDir(), "run"))
			e, err := parseEval(args, &stderr)
			if err == nil {
				m, images := manager()
				e.assemble = func(context.Context, sandboxOptions, *slog.Logger) (*sandboxes, error) {
					return &sandboxes{Manager: m, Default: "local", Images: images}, nil
				}
				e.plan = func(pl farm.Plan) { got = &pl }
				err = e.exec(t.Context(), io.Discard, &stderr)
			}
			return got, exitOf(err, &stderr), stderr.String()
		},
		runs: func(t *testing.T, args ...string) (*farm.Plan, int, string) {
			t.Helper()
			served = nil
			code, _, stderr := runCLI(t, append([]string{"runs", "--server", srv.URL, "--token", "tok", "start", "-q"}, args...)...)
			return served, code, stderr
		},
	}
}

// exitOf is the exit status deskrun gives err, as run decides it, and
// writes err where run writes it.
func exitOf(err error, stderr io.Writer) int {
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, err)
		return 2
	}
	fmt.Fprintln(stderr, err)
	return 1
}

// TestRunDoorsPrepareAlike runs the same request through deskrun eval
// and deskrun runs start (POST /v1/runs) on fake sandboxes: both prepare
// the same run (request with its defaults, tasks and skips, downloads,
// agent, farm configuration), and both refuse the same bad requests with
// the same words and exit status.
func TestRunDoorsPrepareAlike(t *testing.T) {
	d := newDoors(t)
	tasks := t.TempDir()
	for id, config := range map[string]string{
		"files-a": `[]`, "files-b": `[]`, "shell-c": `[]`,
		"code-d": `[{"type":"launch","parameters":{"command":["code","/home/user"]}}]`,
	} {
		body := fmt.Sprintf(`{"id":%q,"instruction":"nothing","config":%s,"evaluator":{"func":"infeasible"}}`, id, config)
		if err := os.WriteFile(filepath.Join(tasks, id+".json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	urlMap := filepath.Join(t.TempDir(), "urls.json")
	if err := os.WriteFile(urlMap, []byte(`{"https://example.com/a.xlsx": "a.xlsx"}`), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, args := range [][]string{
		{"--tasks", tasks, "--provider", "local", "--screen", "1024x768"},
		{"--tasks", tasks, "--provider", "local", "--screen", "1024x768", "--agent", "replay", "--parallel", "3", "--trials", "2",
			"--max-steps", "7", "--timeout", "90s", "--retries", "0", "--only", "files-*,code-d", "--record", "--offline", "--url-map", urlMap},
	} {
		pe, ce, se := d.eval(t, args...)
		pr, cr, sr := d.runs(t, args...)
		if pe == nil || pr == nil {
			t.Fatalf("%q: not prepared: eval %d %s; runs start %d %s", args, ce, se, cr, sr)
		}
		t.Logf("%q: both prepared %s%s", args, taskList(pe.Tasks), farmKnobs(pe.Config()))
		if !reflect.DeepEqual(pe.Request, pr.Request) {
			t.Errorf("%q: requests differ:\neval       %+v\nruns start %+v", args, pe.Request, pr.Request)
		}
		if a, b := taskList(pe.Tasks), taskList(pr.Tasks); a != b || pe.Skipped != pr.Skipped {
			t.Errorf("%q: tasks differ:\neval       %s (%d skipped)\nruns start %s (%d skipped)", args, a, pe.Skipped, b, pr.Skipped)
		}
		if !reflect.DeepEqual(pe.Fetch, pr.Fetch) || pe.TaskOptions.DownloadCache != pr.TaskOptions.DownloadCache {
			t.Errorf("%q: downloads differ: %+v %q; %+v %q", args, pe.Fetch, pe.TaskOptions.DownloadCache, pr.Fetch, pr.TaskOptions.DownloadCache)
		}
		if a, b := fmt.Sprintf("%T", pe.Agent), fmt.Sprintf("%T", pr.Agent); a != b {
			t.Errorf("%q: agents differ: %s, %s", args, a, b)
		}
		if a, b := farmKnobs(pe.Config()), farmKnobs(pr.Config()); a != b {
			t.Errorf("%q: farm configurations differ:\neval       %s\nruns start %s", args, a, b)
		}
	}

	// The requests the two doors once answered differently.
	for _, tt := range []struct {
		flags []string
		code  int
		want  string
	}{
		{[]string{"--parallel", "0"}, 2, "parallel: 0 is below the minimum 1 (leave it out for the default)"},
		{[]string{"--parallel", "100"}, 1, "parallel: must be between 1 and 64, got 100"},
		{[]string{"--screen", "1280x800junk"}, 2, `--screen: want WxH, e.g. 1280x800, got "1280x800junk"`},
		{[]string{"--retries", "-1"}, 1, "retries: must be between 0 and 10, got -1"},
		{[]string{"--screen", "10x10"}, 1, "screen.width: 10 out of range"},
		{[]string{"--only", "nothing-*"}, 1, `only: "nothing-*" matches none of the 4 tasks`},
	} {
		args := append([]string{"--tasks", tasks, "--provider", "local"}, tt.flags...)
		pe, ce, se := d.eval(t, args...)
		pr, cr, sr := d.runs(t, args...)
		if pe != nil || pr != nil || ce != tt.code || cr != tt.code || !strings.Contains(se, tt.want) || !strings.Contains(sr, tt.want) {
			t.Errorf("%q: want both refused with %d %q:\neval       %d %s\nruns start %d %s", tt.flags, tt.code, tt.want, ce, se, cr, sr)
		}
	}
}

// taskList names the tasks in order, with the field a skip names.
func taskList(tasks []*task.Task) string {
	var b strings.Builder
	for _, t := range tasks {
		b.WriteString(t.ID)
		if t.Skip != nil {
			fmt.Fprintf(&b, " (skipped: %s)", t.Skip.Field)
		}
		b.WriteString("; ")
	}
	return b.String()
}

// farmKnobs prints what a run's farm configuration takes from its plan.
func farmKnobs(c farm.Config) string {
	return fmt.Sprintf("trials %d parallel %d max steps %d timeout %s retries %d provider %q image %q screen %v record %v",
		c.Trials, c.Parallel, c.MaxSteps, c.Timeout, c.Retries, c.Provider, c.Image, c.Screen, c.Record)
}
