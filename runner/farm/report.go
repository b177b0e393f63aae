package farm

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
)

// DomainSummary aggregates the results of one domain (or of all, "all").
type DomainSummary struct {
	Domain      string
	Tasks       int
	Passed      int
	SuccessRate float64 // passed / tasks
	MeanScore   float64
	P50MS       int64 // duration percentiles
	P95MS       int64
	P50Steps    int
	P95Steps    int
}

// Summarize aggregates results per domain, sorted by domain, with "all"
// last.
func Summarize(results []Result) []DomainSummary {
	by := map[string][]Result{}
	for _, r := range results {
		by[r.Domain] = append(by[r.Domain], r)
	}
	domains := make([]string, 0, len(by))
	for d := range by {
		domains = append(domains, d)
	}
	sort.Strings(domains)
	var out []DomainSummary
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
	var durs []int64
	var steps []int
	for _, r := range rs {
		if r.Status == StatusPassed {
			s.Passed++
		}
		s.MeanScore += r.Score
		durs = append(durs, r.DurationMS)
		steps = append(steps, r.Steps)
	}
	if len(rs) > 0 {
		s.SuccessRate = float64(s.Passed) / float64(len(rs))
		s.MeanScore /= float64(len(rs))
	}
	slices.Sort(durs)
	slices.Sort(steps)
	s.P50MS, s.P95MS = percentile(durs, 0.50), percentile(durs, 0.95)
	s.P50Steps, s.P95Steps = percentile(steps, 0.50), percentile(steps, 0.95)
	return s
}

// percentile by the nearest-rank method on sorted values.
func percentile[T int | int64](sorted []T, p float64) T {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// WriteTable prints the summary as an aligned table.
func WriteTable(w io.Writer, sums []DomainSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "domain\ttasks\tpassed\tsuccess\tmean score\tp50 s\tp95 s\tp50 steps\tp95 steps\t")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f%%\t%.3f\t%.1f\t%.1f\t%d\t%d\t\n", s.Domain, s.Tasks, s.Passed, 100*s.SuccessRate,
			s.MeanScore, float64(s.P50MS)/1000, float64(s.P95MS)/1000, s.P50Steps, s.P95Steps)
	}
	tw.Flush()
}

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":  func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"secs": func(ms int64) string { return fmt.Sprintf("%.1f s", float64(ms)/1000) },
	"call": func(c any) string { return fmt.Sprintf("%s", c) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>deskrun run report</title>
<style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}
.passed{color:#17652b}.failed,.timeout,.agent_error,.infra_error,.setup_error{color:#a3161b}
details{margin:.5em 0;border:1px solid #ddd;padding:.5em}summary{cursor:pointer}
.step{display:inline-block;vertical-align:top;width:340px;margin:6px}.step img{width:320px;border:1px solid #999}
pre{white-space:pre-wrap;font-size:12px;margin:2px 0}
</style></head><body>
<h1>deskrun run report</h1>
<table><tr><th class="l">domain</th><th>tasks</th><th>passed</th><th>success</th><th>mean score</th><th>p50</th><th>p95</th><th>p50 steps</th><th>p95 steps</th></tr>
{{range .Summary}}<tr><td class="l">{{.Domain}}</td><td>{{.Tasks}}</td><td>{{.Passed}}</td><td>{{pct .SuccessRate}}</td><td>{{printf "%.3f" .MeanScore}}</td><td>{{secs .P50MS}}</td><td>{{secs .P95MS}}</td><td>{{.P50Steps}}</td><td>{{.P95Steps}}</td></tr>
{{end}}</table>
<h2>Tasks</h2>
{{range .Tasks}}<details id="{{.R.ID}}"><summary><b>{{.R.ID}}</b> ({{.R.Domain}}): <span class="{{.R.Status}}">{{.R.Status}}</span>, score {{printf "%.2f" .R.Score}}, {{.R.Steps}} steps, {{secs .R.DurationMS}}{{if gt .R.Attempts 1}}, {{.R.Attempts}} attempts{{end}}</summary>
{{if .R.Error}}<p class="failed">{{.R.Error}}</p>{{end}}
{{range .Steps}}<div class="step"><a href="{{$.Dir}}{{.Dir}}/{{.S.Screenshot}}"><img loading="lazy" src="{{.Dir}}/{{.S.Screenshot}}" alt="step {{.S.Step}} of {{.ID}}"></a>
<div>step {{.S.Step}} ({{.S.DurationMS}} ms)</div>{{range .S.Calls}}<pre>{{.Dialect}} {{.Tool}} {{printf "%s" .Args}}</pre>{{end}}{{range .S.Results}}<pre>→ {{.Text}}</pre>{{end}}{{if .S.Error}}<pre class="failed">{{.S.Error}}</pre>{{end}}</div>
{{end}}</details>
{{end}}</body></html>
`))

type reportStep struct {
	ID, Dir string
	S       StepRecord
}

type reportTask struct {
	R     Result
	Steps []reportStep
}

// WriteReport writes out/report.html: the summary and every task's
// trajectory as screenshots, with images referenced relatively.
func WriteReport(out string, results []Result) error {
	data := struct {
		Summary []DomainSummary
		Tasks   []reportTask
		Dir     string
	}{Summary: Summarize(results)}
	rs := slices.Clone(results)
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Domain != rs[j].Domain {
			return rs[i].Domain < rs[j].Domain
		}
		return rs[i].ID < rs[j].ID
	})
	for _, r := range rs {
		rt := reportTask{R: r}
		dir := safeName(r.ID)
		steps, _ := ReadTrajectory(filepath.Join(out, dir))
		for _, s := range steps {
			rt.Steps = append(rt.Steps, reportStep{ID: r.ID, Dir: dir, S: s})
		}
		data.Tasks = append(data.Tasks, rt)
	}
	f, err := os.Create(filepath.Join(out, "report.html"))
	if err != nil {
		return err
	}
	if err := reportTmpl.Execute(f, data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// progress reports a run's progress.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	term   bool
	total  int
	done   int
	passed int
}

func (p *progress) add(r Result) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if r.Status == StatusPassed {
		p.passed++
	}
	if p.term {
		const width = 30
		n := width * p.done / max(1, p.total)
		fmt.Fprintf(p.w, "\r[%s%s] %d/%d  passed %d  last %s %s   ", strings.Repeat("#", n), strings.Repeat(".", width-n), p.done, p.total, p.passed, r.ID, r.Status)
		return
	}
	fmt.Fprintf(p.w, "%d/%d %s %s score=%.2f steps=%d %.1fs\n", p.done, p.total, r.ID, r.Status, r.Score, r.Steps, float64(r.DurationMS)/1000)
}

func (p *progress) finish() {
	if p.w != nil && p.term {
		fmt.Fprintln(p.w)
	}
}
