package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/runner/task/metric"
)

const tasksUsage = `usage: deskrun tasks check PATH [--json] [--index FILE] [--image I | --vscode]
       deskrun tasks names [--json]
       deskrun tasks grade METRIC --result FILE|VALUE [--expected FILE|VALUE] [--options JSON] [--json]

check loads every task file under PATH (OSWorld's task JSON or YAML)
without a sandbox and prints, per domain, how many tasks load, load as
skipped (they need what cannot exist here: Google Drive credentials, an
account login, a part not available yet) and are refused, then each skip
and refusal with the task id, the field and the reason, and the refusals
counted by reason. It exits 1 when any task is refused. Tasks needing VS
Code are skipped unless the target has it: --vscode says it has, --image
reads the docker image's label dev.deskrun.vscode (through the engine).

names prints the catalogue of what a task may use, from the tables the
loader checks against: every setup step type, getter type and metric,
and for those known but unavailable here, why.

grade runs one metric on local files or values without a sandbox and
prints the score and the metric's detail (why it is not 1). A --result or
--expected naming an existing file is given to the metric as that file's
path; anything else is read as JSON (a rule getter's rules, a list of
tabs), or else taken as a string. --options is the task's options object.
`

func tasksCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "names" {
		return tasksNames(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "grade" {
		return tasksGrade(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "check" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(stdout, tasksUsage)
			return nil
		}
		fmt.Fprint(stderr, tasksUsage)
		return usagef("tasks: want the subcommand check, names or grade")
	}
	fs := newFlags("tasks check", stderr, "PATH [--json] [--index FILE] [--image I | --vscode]")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	index := fs.String("index", "", "check only the tasks this index lists (OSWorld's test_all.json: {domain: [ids]})")
	image := fs.String("image", "", "check for sandboxes of this docker image: tasks needing an application it lacks (VS Code) are skipped")
	vscode := fs.Bool("vscode", false, "the sandboxes have VS Code (default: unless --image says so, tasks needing it are skipped)")
	// Flags may come before or after PATH.
	var paths []string
	rest := args[1:]
	for {
		if err := parse(fs, rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		paths = append(paths, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(paths) != 1 {
		return usagef("tasks check: want one PATH, got %d", len(paths))
	}
	var only map[string]bool
	if *index != "" {
		var err error
		if only, err = task.ReadIndex(*index); err != nil {
			return err
		}
	}
	apps := task.Apps{VSCode: *vscode}
	if *image != "" {
		if *vscode {
			return usagef("tasks check: --image and --vscode: give one")
		}
		var err error
		if apps, err = dockerImageApps(ctx, *image); err != nil {
			return fmt.Errorf("--image: %w", err)
		}
	}
	rep, err := task.Check(paths[0], only, apps)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else if err := writeCheck(stdout, rep); err != nil {
		return err
	}
	if n := rep.Refused(); n > 0 {
		fmt.Fprintf(stderr, "deskrun: %d task files refused\n", n)
		return exitError{1}
	}
	return nil
}

func writeCheck(w io.Writer, rep task.CheckReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "OSWorld %s; the checked task files' SHA-256: %s\n", rep.OSWorld, rep.TasksSHA256)
	fmt.Fprintln(tw, "domain\tloaded\tskipped\trefused\t")
	for _, c := range rep.Domains {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", c.Domain, c.Loaded, c.Skipped, c.Refused)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	reasons := map[string]int{}
	for _, status := range []string{task.CheckSkipped, task.CheckRefused} {
		first := true
		for _, e := range rep.Tasks {
			if e.Status != status {
				continue
			}
			if first {
				fmt.Fprintf(w, "\n%s:\n", status)
				first = false
			}
			// A file that does not decode has no id: its name stands in.
			id := e.ID
			if id == "" {
				id = filepath.Base(e.Path)
			}
			if e.Field == "" {
				fmt.Fprintf(w, "  %s/%s: %s\n", e.Domain, id, e.Reason)
			} else {
				fmt.Fprintf(w, "  %s/%s: %s: %s\n", e.Domain, id, e.Field, e.Reason)
			}
			if status == task.CheckRefused {
				reasons[e.Reason]++
			}
		}
	}
	if len(reasons) > 0 {
		keys := make([]string, 0, len(reasons))
		for k := range reasons {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if reasons[keys[i]] != reasons[keys[j]] {
				return reasons[keys[i]] > reasons[keys[j]]
			}
			return keys[i] < keys[j]
		})
		fmt.Fprintln(w, "\nrefusals by reason:")
		for _, k := range keys {
			fmt.Fprintf(w, "  %4d  %s\n", reasons[k], k)
		}
	}
	return nil
}

// tasksNames prints [task.Names]: a table of kind, name and, for a name
// known but unavailable here, the reason; or the list as JSON.
func tasksNames(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tasks names", stderr, "[--json]")
	asJSON := fs.Bool("json", false, "print the catalogue as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("tasks names: no arguments wanted, got %q", fs.Args())
	}
	names := task.Names()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(names)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "kind\tname\tavailable")
	for _, n := range names {
		avail := "yes"
		if n.Unavailable != "" {
			avail = "no: " + n.Unavailable
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", n.Kind, n.Name, avail)
	}
	return tw.Flush()
}

func tasksGrade(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tasks grade", stderr, "METRIC --result FILE|VALUE [--expected FILE|VALUE] [--options JSON] [--json]")
	result := fs.String("result", "", "the result getter's value: a file, or a JSON value or string")
	expected := fs.String("expected", "", "the expected getter's value: a file, or a JSON value or string (omit for a metric without one)")
	options := fs.String("options", "", "the task's options, a JSON object")
	asJSON := fs.Bool("json", false, "print {metric, score, detail} as JSON")
	var names []string
	rest := args
	for {
		if err := parse(fs, rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(names) != 1 {
		return usagef("tasks grade: want one METRIC, got %d", len(names))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["result"] {
		return usagef("tasks grade: --result is required")
	}
	var opts map[string]any
	if *options != "" {
		d := json.NewDecoder(strings.NewReader(*options))
		d.UseNumber()
		if err := d.Decode(&opts); err != nil {
			return usagef("tasks grade: --options: want a JSON object: %v", err)
		}
	}
	var exp any
	if set["expected"] {
		exp = gradeValue(*expected)
	}
	score, detail, err := metric.Grade(ctx, names[0], gradeValue(*result), exp, opts)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(map[string]any{"metric": names[0], "score": score, "detail": detail})
	}
	fmt.Fprintf(stdout, "%s: %s\n", names[0], strconv.FormatFloat(score, 'g', -1, 64))
	if detail != "" {
		fmt.Fprintln(stdout, detail)
	}
	return nil
}

// gradeValue is what a --result or --expected names: an existing file's
// path, else a JSON value (numbers kept as written), else the string.
func gradeValue(s string) any {
	if fi, err := os.Stat(s); err == nil && !fi.IsDir() {
		return s
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err == nil && !d.More() {
		return v
	}
	return s
}
