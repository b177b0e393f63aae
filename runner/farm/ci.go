package farm

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// The JUnit XML of a run ([WriteJUnit]), in the shape CI systems read
// (Jenkins, GitLab, GitHub's test reporters): a testsuite per domain, a
// testcase per task and trial.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Skipped   int         `xml:"skipped,attr"`
		Time      string      `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr,omitempty"`
		Cases     []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Classname string        `xml:"classname,attr"`
		Name      string        `xml:"name,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		Skipped   *junitProblem `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr,omitempty"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)

// WriteJUnit writes results as JUnit XML: a testsuite per domain, a
// testcase per task (and trial, "id [trial N]"): a failed task is a
// failure whose message is the grader's detail, a task that ended
// without a grade an error of its status, durations in seconds.
func WriteJUnit(w io.Writer, results []Result) error {
	by := map[string][]Result{}
	for _, r := range results {
		by[r.Domain] = append(by[r.Domain], r)
	}
	domains := make([]string, 0, len(by))
	for d := range by {
		domains = append(domains, d)
	}
	slices.Sort(domains)
	all := junitSuites{Name: "deskrun"}
	var total int64
	for _, d := range domains {
		s := junitSuite{Name: d}
		var ms int64
		var first time.Time
		for _, r := range by[d] {
			c := junitCase{Classname: "deskrun." + d, Name: r.ID, Time: secs(r.DurationMS)}
			if r.Trial > 0 {
				c.Name = fmt.Sprintf("%s [trial %d]", r.ID, r.Trial)
			}
			c.SystemOut = fmt.Sprintf("score %g, %d steps, %d attempts, trajectory %s/", r.Score, r.Steps, r.Attempts, r.Dir())
			switch r.Status {
			case StatusPassed:
			case StatusFailed:
				msg := r.Detail
				if msg == "" {
					msg = fmt.Sprintf("score %g", r.Score)
				}
				c.Failure = &junitProblem{Message: oneLine(msg, 300), Type: r.Status, Text: msg}
				s.Failures++
			case StatusSkipped:
				c.Skipped = &junitProblem{Message: oneLine(r.Error, 300)}
				s.Skipped++
			default:
				c.Error = &junitProblem{Message: oneLine(r.Error, 300), Type: r.Status, Text: r.Error}
				s.Errors++
			}
			s.Cases = append(s.Cases, c)
			ms += r.DurationMS
			if st := r.Finished.Add(-time.Duration(r.DurationMS) * time.Millisecond); !r.Finished.IsZero() && (first.IsZero() || st.Before(first)) {
				first = st
			}
		}
		s.Tests, s.Time = len(s.Cases), secs(ms)
		if !first.IsZero() {
			s.Timestamp = first.UTC().Format("2006-01-02T15:04:05")
		}
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
		all.Skipped += s.Skipped
		total += ms
		all.Suites = append(all.Suites, s)
	}
	all.Time = secs(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func secs(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }

// WriteMarkdown writes a run's summary in Markdown fit for a pull
// request comment or a CI step summary: the overall figures, a table per
// domain, and every task that did not pass with why (at most 50).
func WriteMarkdown(w io.Writer, title string, results []Result) error {
	sums := Summarize(results)
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", mdEscape(title))
	if len(sums) == 0 {
		b.WriteString("No results.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	all := sums[len(sums)-1]
	trials := all.Trials > 0
	if trials {
		fmt.Fprintf(&b, "**%.1f%%** of %d trials passed (%d tasks × %d trials): pass@%d %.3f, pass^%d %.3f, mean score %.3f%s.\n\n",
			100*all.SuccessRate, all.Tasks, all.DistinctTask, all.Trials, all.Trials, all.PassAtK, all.Trials, all.PassHatK, all.MeanScore, ciMD(all.MeanScoreCI))
		b.WriteString("| domain | tasks | trials | passed | errors | success | pass@k | pass^k | mean score | p50 time |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, s := range sums {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %.1f%% | %.3f | %.3f | %.3f%s | %s |\n", mdEscape(s.Domain), s.DistinctTask, s.Trials, s.Passed, s.Errors,
				100*s.SuccessRate, s.PassAtK, s.PassHatK, s.MeanScore, ciMD(s.MeanScoreCI), seconds(s.P50MS))
		}
	} else {
		fmt.Fprintf(&b, "**%d of %d** tasks passed (%.1f%%), mean score %.3f%s.\n\n", all.Passed, all.Tasks, 100*all.SuccessRate, all.MeanScore, ciMD(all.MeanScoreCI))
		b.WriteString("| domain | tasks | passed | errors | skipped | success | mean score | p50 time |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, s := range sums {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %.1f%% | %.3f%s | %s |\n", mdEscape(s.Domain), s.Tasks, s.Passed, s.Errors, s.Skipped,
				100*s.SuccessRate, s.MeanScore, ciMD(s.MeanScoreCI), seconds(s.P50MS))
		}
	}
	g := GradingOf(results)
	fmt.Fprintf(&b, "\nGraded as OSWorld %s; the run's %d task files' SHA-256: `%s`.\n", mdEscape(cmp.Or(g.OSWorld, "(not recorded)")), g.Tasks, g.TasksSHA256)
	if all.InputTokens+all.OutputTokens+all.CacheReadTokens+all.CacheWriteTokens > 0 {
		fmt.Fprintf(&b, "\nModel tokens: %d in, %d out, %d read from and %d written to the prompt cache; cost **$%.4f**.\n", all.InputTokens, all.OutputTokens, all.CacheReadTokens, all.CacheWriteTokens, all.CostUSD)
	}
	var notPassed []TaskSummary
	for _, t := range SummarizeTasks(results) {
		if t.Passed < t.Trials {
			notPassed = append(notPassed, t)
		}
	}
	if len(notPassed) > 0 {
		fmt.Fprintf(&b, "\n<details><summary>%d tasks not passed</summary>\n\n| task | domain | passed | why |\n|---|---|--:|---|\n", len(notPassed))
		for i, t := range notPassed {
			if i == 50 {
				fmt.Fprintf(&b, "| … %d more | | | |\n", len(notPassed)-50)
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %d/%d | %s |\n", mdEscape(t.ID), mdEscape(t.Domain), t.Passed, t.Trials, mdEscape(oneLine(t.Detail, 200)))
		}
		b.WriteString("\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteComparisonMarkdown writes a comparison in Markdown: the verdict,
// the domains' deltas with their intervals, and the tasks that changed.
func WriteComparisonMarkdown(w io.Writer, title string, c Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", mdEscape(title))
	o := c.Overall
	mark := "➖"
	switch o.Verdict {
	case VerdictWorse:
		mark = "🔻"
	case VerdictBetter:
		mark = "🔺"
	}
	fmt.Fprintf(&b, "%s **%s**: mean score %.3f → %.3f (%+.3f%s) over %d tasks; %d newly failing, %d newly passing.\n\n",
		mark, o.Verdict, o.BaseMean, o.NewMean, o.Delta, ciMD(o.CI), o.Tasks, o.NewlyFailing, o.NewlyPassing)
	b.WriteString("| domain | tasks | base | new | delta | 95% interval | newly failing | newly passing | verdict |\n|---|--:|--:|--:|--:|---|--:|--:|---|\n")
	for _, d := range c.Domains {
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %+.3f | %s | %d | %d | %s |\n", mdEscape(d.Domain), d.Tasks, d.BaseMean, d.NewMean, d.Delta, ciText(d.CI), d.NewlyFailing, d.NewlyPassing, d.Verdict)
	}
	var changed []TaskDelta
	for _, d := range c.Tasks {
		if d.Change != ChangeSame {
			changed = append(changed, d)
		}
	}
	if len(changed) > 0 {
		fmt.Fprintf(&b, "\n<details><summary>%d tasks changed</summary>\n\n| task | domain | change | base | new | why (new) |\n|---|---|---|--:|--:|---|\n", len(changed))
		for i, d := range changed {
			if i == 50 {
				fmt.Fprintf(&b, "| … %d more | | | | | |\n", len(changed)-50)
				break
			}
			why := ""
			if d.New != nil {
				why = oneLine(d.New.Detail, 200)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdEscape(d.ID), mdEscape(d.Domain), d.Change, trialsText(d.Base), trialsText(d.New), mdEscape(why))
		}
		b.WriteString("\n</details>\n")
	}
	if c.BaseGrading.OSWorld != c.NewGrading.OSWorld {
		fmt.Fprintf(&b, "\n⚠️ The runs were graded under different OSWorld trees: %s (base), %s (new).\n", mdEscape(cmp.Or(c.BaseGrading.OSWorld, "not recorded")), mdEscape(cmp.Or(c.NewGrading.OSWorld, "not recorded")))
	}
	if len(c.FilesChanged) > 0 {
		fmt.Fprintf(&b, "\n⚠️ %d tasks of both runs have different task files (their scores grade different tasks): %s.\n", len(c.FilesChanged), mdEscape(strings.Join(c.FilesChanged, ", ")))
	}
	fmt.Fprintf(&b, "\n<sub>Significance: %s.</sub>\n", c.Method)
	_, err := io.WriteString(w, b.String())
	return err
}

func ciMD(ci *[2]float64) string {
	if ci == nil {
		return ""
	}
	return fmt.Sprintf(" [%.3f, %.3f]", ci[0], ci[1])
}

// mdEscape keeps text from breaking a Markdown table or starting markup.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`)
	return r.Replace(s)
}
