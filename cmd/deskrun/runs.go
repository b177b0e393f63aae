package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/farm"
)

const runsUsage = `usage: deskrun runs VERB [flags] [arguments]

A client of the task suite runs of a deskrun server (POST /v1/runs): the
server runs the tasks in its own sandboxes, as deskrun eval does, and keeps
each run's directory. Verbs:
  start [--tasks PATH] [--agent A] [--parallel N] [--trials K] [--max-steps N] [--timeout D]
        [--retries N] [--provider P] [--image I] [--screen WxH] [--only PATTERNS]
        [--agent-token T] [--cache DIR] [--url-map FILE] [--offline] [--record] [--wait] [-q]
                      (the flags of a run are deskrun eval's: deskrun runs start -h)
                      start a run; prints it (-q: its id); --wait follows it
                      until it ends and exits 1 unless it finished
  list [--json]       the runs
  show ID [--json]    a run's progress, and its summary per domain once ended
  results ID          its results.jsonl so far, to standard output
  report ID [-o FILE] its HTML report, once it has ended
  report ID --url     a URL that opens the report in a browser (with a
                      ticket: valid 60 s, once)
  cancel ID...        stop runs under way (no sandbox is left); a run that
                      has ended is forgotten, its directory removed
  compare BASE NEW [--json] [--markdown FILE] [--fail-on-regression]
        [--fail-under RATE]
                      compare two runs, each a run folder (or its
                      results.jsonl) on this machine or a run id on the
                      server: per task newly failing / passing and the score
                      delta, per domain and overall the delta with its 95%
                      interval (paired bootstrap over tasks); exits 1 when
                      --fail-on-regression and NEW is significantly worse,
                      or when NEW's success rate is under --fail-under

PATH is a task file or folder on the server. Agents (--agent): replay (each
task's reference solution), replay:DIR, http(s)://HOST/PATH (an agent server,
with --agent-token or $DESKRUN_AGENT_TOKEN), anthropic[:MODEL] and
openai[:MODEL] (with the server's API keys).

Every verb takes --server URL (default $DESKRUN_URL, else http://127.0.0.1:8080)
and --token T (default $DESKRUN_TOKEN).`

// runsCmd holds what every verb of `deskrun runs` shares.
type runsCmd struct {
	clientCmd
	// poll is the interval of start --wait.
	poll time.Duration
}

func runs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	rc := &runsCmd{clientCmd: newClientCmd("runs", runsUsage, os.Stdin, stdout, stderr), poll: time.Second}
	return rc.dispatch(ctx, args, map[string]func(context.Context, []string) error{
		"start": rc.start, "list": rc.list, "show": rc.show, "results": rc.results, "report": rc.report, "cancel": rc.cancel,
		"compare": rc.compare,
	})
}

func (rc *runsCmd) start(ctx context.Context, args []string) error {
	fs := rc.flags("start")
	rf := bindRunFlags(fs)
	wait := fs.Bool("wait", false, "follow the run until it ends, then print its summary")
	quiet := fs.Bool("q", false, "print only the run's id")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("start", pos, 0, 0, "no arguments"); err != nil {
		return err
	}
	req, err := rf.request()
	if err != nil {
		return err
	}
	run, err := rc.client().StartRun(ctx, req)
	if err != nil {
		return err
	}
	if *quiet {
		fmt.Fprintln(rc.stdout, run.ID)
	} else if !*wait {
		return writeJSON(rc.stdout, run)
	}
	if !*wait {
		return nil
	}
	return rc.follow(ctx, run, !*quiet)
}

// follow polls the run until it ends, reporting progress on stderr, then
// prints its summary (when table is set) and fails unless it finished.
func (rc *runsCmd) follow(ctx context.Context, run api.Run, table bool) error {
	fmt.Fprintf(rc.stderr, "run %s: %d tasks in %s\n", run.ID, run.Total, run.Out)
	last := -1
	for run.Status == api.RunRunning {
		if run.Done != last {
			fmt.Fprintf(rc.stderr, "run %s: %d/%d done, %d passed\n", run.ID, run.Done, run.Total, run.Passed)
			last = run.Done
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped following run %s, which goes on (deskrun runs cancel %s stops it): %w", run.ID, run.ID, ctx.Err())
		case <-time.After(rc.poll):
		}
		var err error
		if run, err = rc.client().Run(ctx, run.ID); err != nil {
			return err
		}
	}
	if table {
		if err := rc.describe(run); err != nil {
			return err
		}
	}
	if run.Status != api.RunFinished {
		return fmt.Errorf("run %s %s: %s", run.ID, run.Status, run.Error)
	}
	return nil
}

// describe prints a run for people: its state, then its summary table.
func (rc *runsCmd) describe(run api.Run) error {
	w := rc.stdout
	fmt.Fprintf(w, "run %s: %s", run.ID, run.Status)
	if run.Error != "" {
		fmt.Fprintf(w, " (%s)", run.Error)
	}
	fmt.Fprintf(w, "\n%d of %d tasks done: %d passed, %d failed, %d errors\n", run.Done, run.Total, run.Passed, run.Failed, run.Errors)
	fmt.Fprintf(w, "agent %s, tasks %s, directory %s\n", run.Request.Agent, run.Request.Tasks, run.Out)
	if !run.FinishedAt.IsZero() {
		fmt.Fprintf(w, "took %s\n", run.FinishedAt.Sub(run.CreatedAt).Round(time.Second))
	}
	if len(run.Summary) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	if err := farm.WriteTable(w, run.Summary); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "OSWorld %s; the run's task files' SHA-256: %s\n", cmp.Or(run.OSWorld, "not recorded"), run.TasksSHA256)
	return err
}

func (rc *runsCmd) list(ctx context.Context, args []string) error {
	fs := rc.flags("list")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("list", pos, 0, 0, "no arguments"); err != nil {
		return err
	}
	l, err := rc.client().Runs(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		if l == nil {
			l = []api.Run{}
		}
		return writeJSON(rc.stdout, api.RunList{Runs: l})
	}
	tw := tabwriter.NewWriter(rc.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tDONE\tPASSED\tAGENT\tTASKS\tAGE")
	for _, r := range l {
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%d\t%s\t%s\t%s\n", r.ID, r.Status, r.Done, r.Total, r.Passed, r.Request.Agent, r.Request.Tasks,
			time.Since(r.CreatedAt).Round(time.Second))
	}
	return tw.Flush()
}

func (rc *runsCmd) show(ctx context.Context, args []string) error {
	fs := rc.flags("show")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("show", pos, 1, 1, "a run id"); err != nil {
		return err
	}
	run, err := rc.client().Run(ctx, pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(rc.stdout, run)
	}
	return rc.describe(run)
}

func (rc *runsCmd) results(ctx context.Context, args []string) error {
	pos, err := parseAll(rc.flags("results"), args)
	if err != nil {
		return err
	}
	if err := want("results", pos, 1, 1, "a run id"); err != nil {
		return err
	}
	b, err := rc.client().RunResults(ctx, pos[0])
	if err != nil {
		return err
	}
	_, err = rc.stdout.Write(b)
	return err
}

func (rc *runsCmd) report(ctx context.Context, args []string) error {
	fs := rc.flags("report")
	out := fs.String("o", "-", "output file; - for standard output")
	asURL := fs.Bool("url", false, "print a URL opening the report in a browser (a ticket in it: valid 60 s, once) instead")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("report", pos, 1, 1, "a run id"); err != nil {
		return err
	}
	if *asURL {
		run, err := rc.client().Run(ctx, pos[0])
		if err != nil {
			return err
		}
		u := strings.TrimRight(rc.server, "/") + "/v1/runs/" + url.PathEscape(run.ID) + "/report"
		if rc.token != "" {
			t, err := rc.client().RunTicket(ctx, run.ID)
			if err != nil {
				return err
			}
			u += "?ticket=" + url.QueryEscape(t.Ticket)
		}
		_, err = fmt.Fprintln(rc.stdout, u)
		return err
	}
	b, err := rc.client().RunReport(ctx, pos[0])
	if err != nil {
		return err
	}
	if *out == "-" {
		_, err := rc.stdout.Write(b)
		return err
	}
	return os.WriteFile(*out, b, 0o644)
}

func (rc *runsCmd) cancel(ctx context.Context, args []string) error {
	pos, err := parseAll(rc.flags("cancel"), args)
	if err != nil {
		return err
	}
	if err := want("cancel", pos, 1, -1, "run ids"); err != nil {
		return err
	}
	var errs []error
	for _, id := range pos {
		run, err := rc.client().CancelRun(ctx, id)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("cancel %s: %w", id, err))
		case run.ID == "":
			fmt.Fprintf(rc.stdout, "%s forgotten\n", id)
		default:
			fmt.Fprintf(rc.stdout, "%s %s: %d of %d tasks done\n", id, run.Status, run.Done, run.Total)
		}
	}
	return errors.Join(errs...)
}

func (rc *runsCmd) compare(ctx context.Context, args []string) error {
	fs := rc.flags("compare")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	md := fs.String("markdown", "", "also write the comparison as Markdown to this file")
	failReg := fs.Bool("fail-on-regression", false, "exit 1 when NEW is significantly worse than BASE overall")
	failUnder := fs.Float64("fail-under", 0, "exit 1 when NEW's success rate (0..1) is under this")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("compare", pos, 2, 2, "BASE and NEW (run folders or run ids)"); err != nil {
		return err
	}
	if *failUnder < 0 || *failUnder > 1 {
		return usagef("--fail-under: %g is not a rate from 0 to 1", *failUnder)
	}
	var runs [2][]farm.Result
	for i, ref := range pos {
		if runs[i], err = rc.resultsOf(ctx, ref); err != nil {
			return err
		}
		if len(runs[i]) == 0 {
			return fmt.Errorf("%s has no results", ref)
		}
	}
	c := farm.Compare(runs[0], runs[1])
	if *asJSON {
		err = writeJSON(rc.stdout, c)
	} else {
		err = farm.WriteComparison(rc.stdout, c)
	}
	if err != nil {
		return err
	}
	if *md != "" {
		if err := writeFileWith(*md, func(w io.Writer) error {
			return farm.WriteComparisonMarkdown(w, fmt.Sprintf("deskrun: %s vs %s", pos[1], pos[0]), c)
		}); err != nil {
			return err
		}
	}
	return gate(rc.stderr, runs[1], *failUnder, *failReg && c.Regressed(), c.Overall)
}

// resultsOf reads the results of a run: a run folder, a results.jsonl,
// or else the id of a run on the server.
func (rc *runsCmd) resultsOf(ctx context.Context, ref string) ([]farm.Result, error) {
	if st, err := os.Stat(ref); err == nil {
		path := ref
		if st.IsDir() {
			path = filepath.Join(ref, farm.ResultsFile)
			if _, err := os.Stat(path); err != nil {
				return nil, fmt.Errorf("%s is not a run folder: %w", ref, err)
			}
		}
		return farm.ReadResults(path)
	}
	b, err := rc.client().RunResults(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("%s is neither a run folder here nor a run on %s: %w", ref, rc.server, err)
	}
	return farm.ParseResults(bytes.NewReader(b))
}
