package farm

import (
	"bufio"
	"cmp"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ReportFile is the name of the HTML report in a run directory.
const ReportFile = "report.html"

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":  func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"secs": seconds,
	"clip": func(s string) string { return oneLine(s, 600) },
	"str":  func(b []byte) string { return string(b) },
	"short": func(sum string) string {
		if len(sum) > shortSHA {
			return sum[:shortSHA]
		}
		return sum
	},
	"at": func(ms *int64) string {
		if ms == nil {
			return ""
		}
		return fmt.Sprintf("%.1f", float64(max(*ms, 0))/1000)
	},
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>deskrun run report</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em 2em;color:#1d1d1f;background:#fff}
h1{font-size:1.5em;margin:0 0 .2em}h2{font-size:1.2em;margin:1.5em 0 .5em}
.meta{color:#666;margin:0 0 1em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #d0d0d0;padding:3px 8px;text-align:right}
th{background:#f2f2f2}td.l,th.l{text-align:left}
.passed{color:#17652b}.failed,.timeout,.agent_error,.setup_error,.eval_error,.infra_error{color:#a3161b}
#missing{background:#fff3cd;border:1px solid #e0c060;padding:.5em 1em}
section.task{border-top:1px solid #ddd;padding:.8em 0}
section.task h3{font-size:1.05em;margin:0 0 .3em}
.thumb{width:320px;border:1px solid #999;display:block;margin:.4em 0}
video.rec{width:640px;max-width:100%;border:1px solid #999;display:block;margin:.4em 0;background:#000}a.at{font-size:12px}
.steps{display:flex;flex-wrap:wrap;gap:10px}
.step{width:330px;font-size:12px}.step img{width:320px;border:1px solid #999}
pre{white-space:pre-wrap;word-break:break-word;font-size:12px;margin:2px 0;background:#f7f7f7;padding:2px 4px}
pre.err{background:#fde8e8}
.charts{display:flex;flex-wrap:wrap;gap:2em}figure{margin:.5em 0}figcaption{font-weight:600;margin-bottom:.3em}
svg text{font:12px system-ui,sans-serif}svg .val{fill:#333}svg .bg{fill:#eee}svg .ok{fill:#2e8b4a}
.sb{fill:#9aa5b1;background:#9aa5b1}.su{fill:#e0a040;background:#e0a040}.ag{fill:#4a7fc1;background:#4a7fc1}.ev{fill:#8e5ab5;background:#8e5ab5}
.k{display:inline-block;padding:0 .4em;color:#fff;font-weight:400;font-size:12px}
a.chip{text-decoration:none;font-weight:600;margin-right:2px}.ins{color:#333;max-width:40em}td.why{max-width:36em;font-family:monospace;font-size:12px}
</style>
<script>
function seen(ok) {
  var b = document.body, k = ok ? "loaded" : "broken";
  b.dataset[k] = (+b.dataset[k] || 0) + 1;
  if (!ok) { var m = document.getElementById("missing"); m.hidden = false; m.querySelector("b").textContent = b.dataset.broken; }
}
function seek(a) {
  var v = a.closest("section").querySelector("video");
  if (v) { v.currentTime = a.dataset.s; v.scrollIntoView({block: "nearest"}); }
  return false;
}
</script>
</head><body>
<h1>deskrun run report</h1>
<p class="meta">{{.TaskCount}} tasks{{if .Trials}} × {{.Trials}} trials{{end}}, written {{.Written}}.</p>
{{with .Grading}}<p class="meta" id="grading">Graded as OSWorld {{or .OSWorld "(not recorded)"}}; the run's {{.Tasks}} task files' SHA-256: <code>{{.TasksSHA256}}</code></p>{{end}}
<p id="missing" hidden><b>0</b> screenshots could not be shown: keep report.html beside the task folders of its run directory.</p>
<h2>Summary</h2>
<table id="summary"><tr><th class="l">domain</th><th>tasks</th>{{if .Trials}}<th>trials</th>{{end}}<th>passed</th><th>errors</th><th>skipped</th><th>success</th>{{if .Trials}}<th>pass@k</th><th>pass^k</th>{{end}}<th>mean score</th><th>95% interval</th><th>p50 time</th><th>p95 time</th><th>p50 steps</th><th>p95 steps</th></tr>
{{range .Summary}}<tr><td class="l">{{.Domain}}</td><td>{{if $.Trials}}{{.DistinctTask}}</td><td>{{.Trials}}{{else}}{{.Tasks}}{{end}}</td><td>{{.Passed}}</td><td>{{.Errors}}</td><td>{{.Skipped}}</td><td>{{pct .SuccessRate}}</td>{{if $.Trials}}<td>{{printf "%.3f" .PassAtK}}</td><td>{{printf "%.3f" .PassHatK}}</td>{{end}}<td>{{printf "%.3f" .MeanScore}}</td><td>{{with .MeanScoreCI}}{{printf "%.3f" (index . 0)}}–{{printf "%.3f" (index . 1)}}{{else}}–{{end}}</td><td>{{secs .P50MS}}</td><td>{{secs .P95MS}}</td><td>{{.P50Steps}}</td><td>{{.P95Steps}}</td></tr>
{{end}}</table>
{{with .Cost}}<p id="cost">Model tokens: {{.InputTokens}} in, {{.OutputTokens}} out, {{.CacheReadTokens}} read from and {{.CacheWriteTokens}} written to the prompt cache; cost ${{printf "%.4f" .CostUSD}}.</p>{{end}}
<div class="charts">
<figure><figcaption>Success by domain</figcaption>
<svg id="chart-domains" role="img" aria-label="success rate by domain" width="{{.Chart.Width}}" height="{{.Chart.DomainsHeight}}">
{{range .Chart.Domains}}<g><title>{{.Label}}: {{pct .Value}}</title><text x="0" y="{{.TextY}}" class="lab">{{.Label}}</text><rect x="{{$.Chart.LabelW}}" y="{{.Y}}" width="{{$.Chart.BarW}}" height="14" class="bg"/><rect x="{{$.Chart.LabelW}}" y="{{.Y}}" width="{{.W}}" height="14" class="ok"/><text x="{{.EndX}}" y="{{.TextY}}" class="val">{{pct .Value}}</text></g>
{{end}}</svg></figure>
<figure><figcaption>Time per task: <span class="k sb">sandbox</span> <span class="k su">setup</span> <span class="k ag">agent and tools</span> <span class="k ev">grading</span></figcaption>
<svg id="chart-durations" role="img" aria-label="duration of each task" width="{{.Chart.Width}}" height="{{.Chart.DurationsHeight}}">
{{range .Chart.Durations}}<g><title>{{.Label}}: {{secs .Total}} (sandbox {{secs .Sandbox}}, setup {{secs .Setup}}, agent and tools {{secs .Agent}}, grading {{secs .Eval}})</title><text x="0" y="{{.TextY}}" class="lab">{{.Label}}</text>{{range .Segs}}<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="14" class="{{.Class}}"/>{{end}}<text x="{{.EndX}}" y="{{.TextY}}" class="val">{{secs .Total}}</text></g>
{{end}}</svg></figure>
</div>
<h2>Tasks</h2>
<table id="tasks"><tr><th class="l">task</th><th class="l">domain</th><th class="l">{{if .Trials}}trials{{else}}status{{end}}</th><th>score</th><th>time</th><th class="l">task file</th><th class="l">instruction</th><th class="l">why not passed</th></tr>
{{range .Rows}}<tr><td class="l">{{.ID}}</td><td class="l">{{.Domain}}</td><td class="l">{{range .Results}}<a href="#{{.Dir}}" class="chip {{.R.Status}}" title="{{.R.Status}}{{if .R.Trial}} (trial {{.R.Trial}}){{end}}">{{if $.Trials}}{{if eq .R.Status "passed"}}✓{{else}}✗{{end}}{{else}}{{.R.Status}}{{end}}</a> {{end}}</td><td>{{printf "%.2f" .Mean}}</td><td>{{secs .MeanMS}}</td><td class="l">{{range .SHA256}}<code title="SHA-256 {{.}}">{{short .}}</code> {{end}}</td><td class="l ins">{{clip .Instruction}}</td><td class="l why">{{.Why}}</td></tr>
{{end}}</table>
{{range .Tasks}}
<section class="task" id="{{.Dir}}" data-task="{{.R.ID}}">
<h3>{{.R.ID}}{{if .R.Trial}} (trial {{.R.Trial}}){{end}} <span class="{{.R.Status}}">{{.R.Status}}</span></h3>
{{if .R.Instruction}}<p class="ins">{{.R.Instruction}}</p>{{end}}
<div>{{.R.Domain}}; score {{printf "%.2f" .R.Score}}; {{.R.Steps}} steps{{if .R.StepLimit}} (step limit){{end}}; {{secs .R.DurationMS}} (sandbox {{secs .R.SandboxMS}}, setup {{secs .R.SetupMS}}, agent {{secs .R.AgentMS}}, tools {{secs .R.ToolsMS}}, grading {{secs .R.EvalMS}}){{with .R.Usage}}; {{.InputTokens}} tokens in, {{.OutputTokens}} out{{end}}{{if .R.CostUSD}} (${{printf "%.4f" .R.CostUSD}}){{end}}{{if gt .R.Attempts 1}}; {{.R.Attempts}} attempts{{end}}{{if .R.LastAction}}; ended with {{.R.LastAction}}{{end}}</div>
{{if .R.Error}}<pre class="err">{{.R.Error}}</pre>{{end}}{{if .R.Detail}}<pre>{{.R.Detail}}</pre>{{end}}
{{if .Video}}<video class="rec" controls preload="metadata" src="{{.Dir}}/{{.Video}}" title="recording of {{.R.ID}}" onloadedmetadata="seen(true)" onerror="seen(false)"></video>{{end}}
{{if .Thumb}}<a href="{{.Dir}}/{{.Thumb}}"><img class="thumb" src="{{.Dir}}/{{.Thumb}}" alt="last screen of {{.R.ID}}" onload="seen(true)" onerror="seen(false)"></a>{{end}}
{{if .Steps}}<details><summary>trajectory: {{len .Steps}} screens</summary><div class="steps">
{{range .Steps}}<div class="step">{{if .S.Screenshot}}<a href="{{.Dir}}/{{.S.Screenshot}}"><img loading="lazy" src="{{.Dir}}/{{.S.Screenshot}}" alt="{{if .S.Final}}final screen{{else}}step {{.S.Step}}{{end}} of {{.ID}}" onload="seen(true)" onerror="seen(false)"></a>{{end}}
<div>{{if .S.Final}}graded screen{{else}}step {{.S.Step}} (agent {{.S.AgentMS}} ms, tools {{.S.ToolsMS}} ms){{end}}{{with .S.VideoMS}} <a href="#" class="at" data-s="{{at .}}" onclick="return seek(this)">▶ {{at .}} s</a>{{end}}</div>
{{if .S.Text}}<pre>{{clip .S.Text}}</pre>{{end}}{{range .S.Calls}}<pre>{{.Dialect}} {{.Tool}} {{str .Args}}</pre>{{end}}{{range .S.Results}}<pre{{if .IsError}} class="err"{{end}}>→ {{clip .Text}}</pre>{{end}}{{if .S.Done}}<pre>done</pre>{{end}}{{if .S.Fail}}<pre>fail</pre>{{end}}{{if .S.Error}}<pre class="err">{{.S.Error}}</pre>{{end}}
</div>
{{end}}</div></details>{{end}}
</section>
{{end}}
</body></html>
`))

type reportStep struct {
	ID, Dir string
	S       StepRecord
}

type reportTask struct {
	R     Result
	Dir   string
	Thumb string // the last screenshot
	Video string // the recording, when there is one
	Steps []reportStep
}

type reportData struct {
	Summary   []DomainSummary
	Tasks     []reportTask
	Rows      []reportRow
	TaskCount int
	Trials    int // per task, when the run has several
	Chart     reportChart
	Cost      *DomainSummary // the "all" row, when agents reported tokens
	Written   string
	Grading   *Grading // nil without results
}

// shortSHA is how many hex digits of a task file's SHA-256 the tasks
// table shows (the whole is the cell's title).
const shortSHA = 12

// reportRow is one task in the tasks table: its trials side by side.
type reportRow struct {
	ID, Domain, Instruction, Why string
	// SHA256 lists the task file's SHA-256 (one, unless the file changed
	// between trials of a resumed run).
	SHA256  []string
	Mean    float64
	MeanMS  int64
	Results []reportTask
}

// reportChart is the geometry of the report's two bar charts, computed
// here so the page needs no script to draw them.
type reportChart struct {
	Width, LabelW, BarW            int
	DomainsHeight, DurationsHeight int
	Domains                        []chartBar
	Durations                      []durationBar
}

type chartBar struct {
	Label       string
	Value       float64
	Y, TextY, W int
	EndX        int
}

type durationBar struct {
	Label                              string
	Total, Sandbox, Setup, Agent, Eval int64
	Y, TextY, EndX                     int
	Segs                               []chartSeg
}

type chartSeg struct {
	X, Y, W int
	Class   string
}

// chartRows bounds the bars of the durations chart: the slowest tasks.
const chartRows = 40

func makeChart(sums []DomainSummary, tasks []reportTask) reportChart {
	c := reportChart{Width: 640, LabelW: 200, BarW: 360}
	for i, s := range sums {
		y := 4 + 20*i
		w := int(float64(c.BarW) * s.SuccessRate)
		c.Domains = append(c.Domains, chartBar{Label: s.Domain, Value: s.SuccessRate, Y: y, TextY: y + 12, W: w, EndX: c.LabelW + c.BarW + 6})
	}
	c.DomainsHeight = 8 + 20*len(sums)
	rs := slices.Clone(tasks)
	slices.SortStableFunc(rs, func(a, b reportTask) int { return cmp.Compare(b.R.DurationMS, a.R.DurationMS) })
	rs = rs[:min(len(rs), chartRows)]
	var longest int64 = 1
	for _, t := range rs {
		longest = max(longest, t.R.DurationMS)
	}
	for i, t := range rs {
		y := 4 + 20*i
		d := durationBar{Label: t.R.Key(), Total: t.R.DurationMS, Sandbox: t.R.SandboxMS, Setup: t.R.SetupMS, Agent: t.R.AgentMS + t.R.ToolsMS + t.R.ObserveMS + t.R.SettleMS, Eval: t.R.EvalMS, Y: y, TextY: y + 12}
		x := c.LabelW
		for _, seg := range []struct {
			ms    int64
			class string
		}{{d.Sandbox, "sb"}, {d.Setup, "su"}, {d.Agent, "ag"}, {d.Eval, "ev"}} {
			w := int(float64(c.BarW) * float64(seg.ms) / float64(longest))
			if w > 0 {
				d.Segs = append(d.Segs, chartSeg{X: x, Y: y, W: w, Class: seg.class})
				x += w
			}
		}
		d.EndX = c.LabelW + int(float64(c.BarW)*float64(d.Total)/float64(longest)) + 6
		c.Durations = append(c.Durations, d)
	}
	c.DurationsHeight = 8 + 20*len(rs)
	return c
}

// rows groups the report's results by task, trials side by side.
func rows(tasks []reportTask) []reportRow {
	var out []reportRow
	at := map[string]int{}
	for _, t := range tasks {
		i, ok := at[t.R.ID]
		if !ok {
			i = len(out)
			at[t.R.ID] = i
			out = append(out, reportRow{ID: t.R.ID, Domain: t.R.Domain, Instruction: t.R.Instruction})
		}
		out[i].Results = append(out[i].Results, t)
		if s := t.R.TaskSHA256; s != "" && !slices.Contains(out[i].SHA256, s) {
			out[i].SHA256 = append(out[i].SHA256, s)
		}
	}
	for i := range out {
		r := &out[i]
		var why []string
		for _, t := range r.Results {
			r.Mean += t.R.Score
			r.MeanMS += t.R.DurationMS
			w := t.R.Detail
			if t.R.Status != StatusPassed && t.R.Status != StatusFailed {
				w = t.R.Status + ": " + t.R.Error
			}
			if w != "" && !slices.Contains(why, w) {
				why = append(why, w)
			}
		}
		r.Mean /= float64(len(r.Results))
		r.MeanMS /= int64(len(r.Results))
		r.Why = oneLine(strings.Join(why, "; "), 400)
	}
	return out
}

// WriteReport writes <out>/report.html: the OSWorld tree and task files
// the run was graded against ([GradingOf]), the summary per domain, charts
// of success by domain and of where each task's time went, a table of
// the tasks (trials side by side, the task file's SHA-256, the
// instruction, why a task did not pass) and every task's trajectory as
// screenshots, read from the task folders of out.
// The page is self-contained (no network resources) and refers to the
// screenshots by relative paths, so the run directory can be moved or
// served as a whole. Tasks are ordered by domain, then id.
func WriteReport(out string, results []Result) error {
	data := reportData{Summary: Summarize(results), Written: time.Now().Format(time.RFC1123)}
	if len(results) > 0 {
		g := GradingOf(results)
		data.Grading = &g
	}
	if n := len(data.Summary); n > 0 {
		all := data.Summary[n-1]
		data.Trials = all.Trials
		if all.InputTokens+all.OutputTokens+all.CacheReadTokens+all.CacheWriteTokens > 0 {
			data.Cost = &all
		}
	}
	rs := slices.Clone(results)
	slices.SortFunc(rs, func(a, b Result) int {
		return cmp.Or(cmp.Compare(a.Domain, b.Domain), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Trial, b.Trial))
	})
	for _, r := range rs {
		rt := reportTask{R: r, Dir: r.Dir()}
		if st, err := os.Stat(filepath.Join(out, rt.Dir, RecordingFile)); err == nil && st.Size() > 0 {
			rt.Video = RecordingFile
		}
		steps, _ := ReadTrajectory(filepath.Join(out, rt.Dir))
		for _, s := range steps {
			rt.Steps = append(rt.Steps, reportStep{ID: r.ID, Dir: rt.Dir, S: s})
			if s.Screenshot != "" {
				rt.Thumb = s.Screenshot
			}
		}
		data.Tasks = append(data.Tasks, rt)
	}
	data.Rows = rows(data.Tasks)
	data.TaskCount = len(data.Rows)
	data.Chart = makeChart(data.Summary, data.Tasks)
	tmp, err := os.CreateTemp(out, ".report-*.html")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	if err := reportTmpl.Execute(w, data); err != nil {
		tmp.Close()
		return fmt.Errorf("write report: %w", err)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("write report: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(out, ReportFile)); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
