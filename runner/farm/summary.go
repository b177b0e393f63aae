package farm

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/task"
)

// DomainSummary aggregates the results of one domain, or of all ("all").
// It is the wire type, so that a run's summary goes over the API as
// [Summarize] computes it.
type DomainSummary = api.DomainSummary

// Summarize aggregates results per domain, domains sorted by name, with
// a row "all" last (when there are results).
func Summarize(results []Result) []DomainSummary {
	by := map[string][]Result{}
	for _, r := range results {
		by[r.Domain] = append(by[r.Domain], r)
	}
	domains := make([]string, 0, len(by))
	for d := range by {
		domains = append(domains, d)
	}
	slices.Sort(domains)
	out := make([]DomainSummary, 0, len(domains)+1)
	for _, d := range domains {
		out = append(out, summarize(d, by[d]))
	}
	if len(results) > 0 {
		out = append(out, summarize("all", results))
	}
	return out
}

func summarize(domain string, rs []Result) DomainSummary {
	s := DomainSummary{Domain: domain, Tasks: len(rs)}
	// Skipped tasks are counted, and left out of every rate and score.
	graded := make([]Result, 0, len(rs))
	for _, r := range rs {
		if r.Status == StatusSkipped {
			s.Skipped++
			continue
		}
		graded = append(graded, r)
	}
	rs = graded
	durs := make([]int64, 0, len(rs))
	steps := make([]int, 0, len(rs))
	for _, r := range rs {
		switch r.Status {
		case StatusPassed:
			s.Passed++
		case StatusFailed:
		default:
			s.Errors++
		}
		s.MeanScore += r.Score
		if u := r.Usage; u != nil {
			s.InputTokens += u.InputTokens
			s.OutputTokens += u.OutputTokens
			s.CacheReadTokens += u.CacheReadTokens
			s.CacheWriteTokens += u.CacheWriteTokens
		}
		s.CostUSD += r.CostUSD
		durs = append(durs, r.DurationMS)
		steps = append(steps, r.Steps)
	}
	if len(rs) > 0 {
		s.SuccessRate = float64(s.Passed) / float64(len(rs))
		s.MeanScore /= float64(len(rs))
	}
	slices.Sort(durs)
	slices.Sort(steps)
	s.P50MS, s.P95MS = percentile(durs, 50), percentile(durs, 95)
	s.P50Steps, s.P95Steps = percentile(steps, 50), percentile(steps, 95)

	s.CostUSD = round6(s.CostUSD)
	tasks := SummarizeTasks(rs)
	means := make([]float64, len(tasks))
	k := 0
	for i, t := range tasks {
		means[i] = t.MeanScore
		k = max(k, t.Trials)
	}
	s.MeanScoreCI = bootstrapCI(means)
	if multiTrial(rs) {
		s.Trials, s.DistinctTask = k, len(tasks)
		for _, t := range tasks {
			s.PassAtK += passAtK(t.Trials, t.Passed, k)
			s.PassHatK += passHatK(t.Trials, t.Passed, k)
		}
		s.PassAtK = round6(s.PassAtK / float64(len(tasks)))
		s.PassHatK = round6(s.PassHatK / float64(len(tasks)))
	}
	return s
}

// multiTrial reports whether results come from a run with several trials
// per task.
func multiTrial(rs []Result) bool {
	return slices.ContainsFunc(rs, func(r Result) bool { return r.Trial > 0 })
}

// percentile returns the p-th percentile of sorted values by the
// nearest-rank method: the smallest value with at least p% of the values
// at or below it. Zero for no values.
func percentile[T int | int64](sorted []T, p float64) T {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// WriteTable prints summaries as an aligned table; with several trials
// per task, the trials, pass@k and pass^k columns too. The interval is
// the 95% bootstrap interval of the mean score.
func WriteTable(w io.Writer, sums []DomainSummary) error {
	trials := slices.ContainsFunc(sums, func(s DomainSummary) bool { return s.Trials > 0 })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "domain\ttasks\tpassed\terrors\tskipped\tsuccess\tmean score\t95% interval\tp50 time\tp95 time\tp50 steps\tp95 steps\t"
	if trials {
		head = "domain\ttasks\ttrials\tpassed\terrors\tskipped\tsuccess\tpass@k\tpass^k\tmean score\t95% interval\tp50 time\tp95 time\tp50 steps\tp95 steps\t"
	}
	fmt.Fprintln(tw, head)
	for _, s := range sums {
		ci := "-"
		if s.MeanScoreCI != nil {
			ci = fmt.Sprintf("%.3f-%.3f", s.MeanScoreCI[0], s.MeanScoreCI[1])
		}
		if trials {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%.1f%%\t%.3f\t%.3f\t%.3f\t%s\t%s\t%s\t%d\t%d\t\n", s.Domain, s.DistinctTask, s.Trials, s.Passed, s.Errors, s.Skipped,
				100*s.SuccessRate, s.PassAtK, s.PassHatK, s.MeanScore, ci, seconds(s.P50MS), seconds(s.P95MS), s.P50Steps, s.P95Steps)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.1f%%\t%.3f\t%s\t%s\t%s\t%d\t%d\t\n", s.Domain, s.Tasks, s.Passed, s.Errors, s.Skipped,
			100*s.SuccessRate, s.MeanScore, ci, seconds(s.P50MS), seconds(s.P95MS), s.P50Steps, s.P95Steps)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeCost(w, sums)
}

// writeCost prints the model tokens and their cost, when agents reported
// any.
func writeCost(w io.Writer, sums []DomainSummary) error {
	if len(sums) == 0 {
		return nil
	}
	a := sums[len(sums)-1]
	if a.InputTokens+a.OutputTokens+a.CacheReadTokens+a.CacheWriteTokens == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "model tokens: %d in, %d out, %d from the cache, %d to it; cost $%.4f\n", a.InputTokens, a.OutputTokens, a.CacheReadTokens, a.CacheWriteTokens, a.CostUSD)
	return err
}

// seconds formats milliseconds as seconds with one decimal.
func seconds(ms int64) string { return fmt.Sprintf("%.1fs", float64(ms)/1000) }

// Grading names what a run's results were graded against, so that two
// runs can be shown to have graded the same task files the same way.
type Grading struct {
	// OSWorld is the OSWorld tree the results' grading followed
	// (task.OSWorldCommit); several joined by "; " when results of
	// different builds were merged (a run resumed by another version);
	// empty when no result names one.
	OSWorld string `json:"osworld"`
	// TasksSHA256 is task.TasksSHA256 over the results' task files (a
	// task's trials count once): the value tasks check prints for the
	// same files.
	TasksSHA256 string `json:"tasks_sha256"`
	// Tasks counts those files.
	Tasks int `json:"tasks"`
}

// GradingOf returns the grading of results.
func GradingOf(results []Result) Grading {
	var commits []string
	seen := map[task.TaskFile]bool{}
	var files []task.TaskFile
	for _, r := range results {
		if r.OSWorld != "" && !slices.Contains(commits, r.OSWorld) {
			commits = append(commits, r.OSWorld)
		}
		f := task.TaskFile{Domain: r.Domain, ID: r.ID, SHA256: r.TaskSHA256}
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	slices.Sort(commits)
	return Grading{OSWorld: strings.Join(commits, "; "), TasksSHA256: task.TasksSHA256(files), Tasks: len(files)}
}

// String is the grading as the run's summary prints it.
func (g Grading) String() string {
	return fmt.Sprintf("OSWorld %s; the run's %d task files' SHA-256: %s", cmp.Or(g.OSWorld, "not recorded"), g.Tasks, g.TasksSHA256)
}
