package farm

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Changes of a task between two runs ([TaskDelta.Change]).
const (
	ChangeNewlyFailing = "newly failing" // passed every trial before, not now
	ChangeNewlyPassing = "newly passing" // passes now, passed no trial before
	ChangeWorse        = "worse"         // a lower mean score
	ChangeBetter       = "better"        // a higher mean score
	ChangeSame         = "same"
	ChangeAdded        = "added"   // only in the new run
	ChangeRemoved      = "removed" // only in the base run
)

// Verdicts of a [DomainDelta]: whether the new run is significantly
// worse or better than the base at the 95% level, by the paired
// bootstrap [CompareMethod] describes.
const (
	VerdictWorse  = "worse"
	VerdictBetter = "better"
	VerdictNoise  = "no significant change"
)

// CompareMethod says how [Compare] decides significance, for people
// reading a comparison.
const CompareMethod = "paired bootstrap over the tasks both runs have (each task's mean score over its trials; 10000 resamples, 95% percentile interval of the mean difference): significant when the interval excludes 0"

// TaskDelta is one task's change between a base run and a new one.
type TaskDelta struct {
	ID     string `json:"id"`
	Domain string `json:"domain"`
	// Base and New summarize the task's trials in each run; nil when
	// the run lacks the task.
	Base *TaskSummary `json:"base,omitempty"`
	New  *TaskSummary `json:"new,omitempty"`
	// Delta is New's mean score minus Base's (0 when one lacks the
	// task).
	Delta  float64 `json:"delta"`
	Change string  `json:"change"`
}

// DomainDelta compares one domain (or "all") between two runs, over
// the tasks both have.
type DomainDelta struct {
	Domain string `json:"domain"`
	// Tasks counts the tasks both runs have.
	Tasks int `json:"tasks"`
	// BaseMean and NewMean are the mean scores over those tasks;
	// BaseRate and NewRate the shares of trials passed.
	BaseMean float64 `json:"base_mean"`
	NewMean  float64 `json:"new_mean"`
	BaseRate float64 `json:"base_rate"`
	NewRate  float64 `json:"new_rate"`
	// Delta is NewMean - BaseMean, and CI its 95% interval (nil with
	// fewer than two tasks).
	Delta float64     `json:"delta"`
	CI    *[2]float64 `json:"ci,omitempty"`
	// Verdict is [VerdictWorse], [VerdictBetter] or [VerdictNoise].
	Verdict string `json:"verdict"`
	// NewlyFailing and NewlyPassing count those changes.
	NewlyFailing int `json:"newly_failing"`
	NewlyPassing int `json:"newly_passing"`
}

// Comparison is a new run compared with a base run.
type Comparison struct {
	Method  string        `json:"method"`
	Tasks   []TaskDelta   `json:"tasks"`
	Domains []DomainDelta `json:"domains"`
	// Overall is the "all" row of Domains.
	Overall DomainDelta `json:"overall"`
	// BaseGrading and NewGrading name what each run was graded against
	// ([GradingOf]); FilesChanged lists, sorted, the tasks both runs have
	// whose task files differ (their task_sha256): their scores grade
	// different tasks.
	BaseGrading  Grading  `json:"base_grading"`
	NewGrading   Grading  `json:"new_grading"`
	FilesChanged []string `json:"files_changed,omitempty"`
}

// Regressed reports whether the new run is significantly worse overall.
func (c Comparison) Regressed() bool { return c.Overall.Verdict == VerdictWorse }

// Compare compares the results of a new run with those of a base run,
// per task, per domain and overall. Tasks are sorted worst change first.
func Compare(base, new []Result) Comparison {
	bs, ns := SummarizeTasks(base), SummarizeTasks(new)
	byID := map[string]*TaskDelta{}
	var deltas []*TaskDelta
	get := func(t TaskSummary) *TaskDelta {
		d, ok := byID[t.ID]
		if !ok {
			d = &TaskDelta{ID: t.ID, Domain: t.Domain}
			byID[t.ID] = d
			deltas = append(deltas, d)
		}
		return d
	}
	for _, t := range bs {
		get(t).Base = &t
	}
	for _, t := range ns {
		d := get(t)
		d.New = &t
		d.Domain = t.Domain
	}
	out := Comparison{Method: CompareMethod}
	for _, d := range deltas {
		d.Change = change(d)
		if d.Base != nil && d.New != nil {
			d.Delta = round6(d.New.MeanScore - d.Base.MeanScore)
		}
		out.Tasks = append(out.Tasks, *d)
	}
	slices.SortStableFunc(out.Tasks, func(a, b TaskDelta) int {
		if c := cmp.Compare(changeRank(a.Change), changeRank(b.Change)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Delta, b.Delta); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})

	by := map[string][]TaskDelta{}
	for _, d := range out.Tasks {
		by[d.Domain] = append(by[d.Domain], d)
	}
	domains := make([]string, 0, len(by))
	for d := range by {
		domains = append(domains, d)
	}
	slices.Sort(domains)
	for _, d := range domains {
		out.Domains = append(out.Domains, domainDelta(d, by[d]))
	}
	out.Overall = domainDelta("all", out.Tasks)
	out.Domains = append(out.Domains, out.Overall)
	out.BaseGrading, out.NewGrading = GradingOf(base), GradingOf(new)
	out.FilesChanged = filesChanged(base, new)
	return out
}

// filesChanged lists, sorted, the ids of the tasks both runs have whose
// task files' SHA-256 differ (a task without one in either run is not
// compared).
func filesChanged(base, new []Result) []string {
	sums := func(rs []Result) map[string][]string {
		m := map[string][]string{}
		for _, r := range rs {
			if r.TaskSHA256 != "" && !slices.Contains(m[r.ID], r.TaskSHA256) {
				m[r.ID] = append(m[r.ID], r.TaskSHA256)
			}
		}
		return m
	}
	b, n := sums(base), sums(new)
	var out []string
	for id, bs := range b {
		ns, ok := n[id]
		if !ok {
			continue
		}
		slices.Sort(bs)
		slices.Sort(ns)
		if !slices.Equal(bs, ns) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// gradingText says whether two runs graded the same task files under the
// same OSWorld tree, and which tasks' files differ.
func gradingText(c Comparison) string {
	b, n := c.BaseGrading, c.NewGrading
	var s strings.Builder
	fmt.Fprintf(&s, "base: %s\nnew:  %s\n", b, n)
	if b.OSWorld != n.OSWorld {
		s.WriteString("the runs were graded under different OSWorld trees\n")
	}
	if len(c.FilesChanged) > 0 {
		fmt.Fprintf(&s, "%d tasks of both runs have different task files (their scores grade different tasks): %s\n", len(c.FilesChanged), strings.Join(c.FilesChanged, ", "))
	}
	return s.String()
}

func change(d *TaskDelta) string {
	switch {
	case d.Base == nil:
		return ChangeAdded
	case d.New == nil:
		return ChangeRemoved
	case d.Base.Passed == d.Base.Trials && d.New.Passed < d.New.Trials && d.Base.Trials > 0:
		return ChangeNewlyFailing
	case d.Base.Passed == 0 && d.New.Passed > 0:
		return ChangeNewlyPassing
	case d.New.MeanScore < d.Base.MeanScore:
		return ChangeWorse
	case d.New.MeanScore > d.Base.MeanScore:
		return ChangeBetter
	}
	return ChangeSame
}

func changeRank(c string) int {
	return slices.Index([]string{ChangeNewlyFailing, ChangeWorse, ChangeRemoved, ChangeAdded, ChangeNewlyPassing, ChangeBetter, ChangeSame}, c)
}

func domainDelta(domain string, ds []TaskDelta) DomainDelta {
	out := DomainDelta{Domain: domain, Verdict: VerdictNoise}
	var diffs []float64
	var baseTrials, newTrials int
	for _, d := range ds {
		if d.Base == nil || d.New == nil {
			continue
		}
		out.Tasks++
		out.BaseMean += d.Base.MeanScore
		out.NewMean += d.New.MeanScore
		out.BaseRate += float64(d.Base.Passed)
		out.NewRate += float64(d.New.Passed)
		baseTrials += d.Base.Trials
		newTrials += d.New.Trials
		diffs = append(diffs, d.New.MeanScore-d.Base.MeanScore)
		switch d.Change {
		case ChangeNewlyFailing:
			out.NewlyFailing++
		case ChangeNewlyPassing:
			out.NewlyPassing++
		}
	}
	if out.Tasks == 0 {
		return out
	}
	out.BaseMean = round6(out.BaseMean / float64(out.Tasks))
	out.NewMean = round6(out.NewMean / float64(out.Tasks))
	out.BaseRate = round6(out.BaseRate / float64(baseTrials))
	out.NewRate = round6(out.NewRate / float64(newTrials))
	out.Delta = round6(out.NewMean - out.BaseMean)
	out.CI = bootstrapCI(diffs)
	switch {
	case out.CI == nil:
	case out.CI[1] < 0:
		out.Verdict = VerdictWorse
	case out.CI[0] > 0:
		out.Verdict = VerdictBetter
	}
	return out
}

// WriteComparison prints a comparison as text: the domains' deltas, then
// every task that changed.
func WriteComparison(w io.Writer, c Comparison) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "domain\ttasks\tbase\tnew\tdelta\t95% interval\tnewly failing\tnewly passing\tverdict")
	for _, d := range c.Domains {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%+.3f\t%s\t%d\t%d\t%s\n", d.Domain, d.Tasks, d.BaseMean, d.NewMean, d.Delta, ciText(d.CI), d.NewlyFailing, d.NewlyPassing, d.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var changed []TaskDelta
	for _, d := range c.Tasks {
		if d.Change != ChangeSame {
			changed = append(changed, d)
		}
	}
	if len(changed) > 0 {
		fmt.Fprintln(w, "\nchanged tasks:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "task\tdomain\tchange\tbase\tnew\tdelta")
		for _, d := range changed {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%+.3f\n", d.ID, d.Domain, d.Change, trialsText(d.Base), trialsText(d.New), d.Delta)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(w, "\n%s", gradingText(c)); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nsignificance: %s\n", c.Method)
	return err
}

func ciText(ci *[2]float64) string {
	if ci == nil {
		return "-"
	}
	return fmt.Sprintf("%+.3f..%+.3f", ci[0], ci[1])
}

// trialsText is "passed/trials (mean)" of a task in one run, "-" when
// the run lacks it.
func trialsText(t *TaskSummary) string {
	if t == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%.2f)", t.Passed, t.Trials, t.MeanScore)
}
