package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/deskrun/deskrun/runner/task"
)

const tasksUsage = `usage: deskrun tasks check PATH [--json] [--index FILE] [--image I | --vscode]

check loads every task file under PATH (OSWorld's task JSON or YAML)
without a sandbox and prints, per domain, how many tasks load, load as
skipped (they need what cannot exist here: Google Drive credentials, an
account login, a part not available yet) and are refused, then each skip
and refusal with the task id, the field and the reason, and the refusals
counted by reason. It exits 1 when any task is refused. Tasks needing VS
Code are skipped unless the target has it: --vscode says it has, --image
reads the docker image's label dev.deskrun.vscode (through the engine).
`

func tasksCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(stdout, tasksUsage)
			return nil
		}
		fmt.Fprint(stderr, tasksUsage)
		return usagef("tasks: want the subcommand check")
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
			fmt.Fprintf(w, "  %s/%s: %s: %s\n", e.Domain, e.ID, e.Field, e.Reason)
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
