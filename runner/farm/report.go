package farm

import (
	"bufio"
	"cmp"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// ReportFile is the name of the HTML report in a run directory.
const ReportFile = "report.html"

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":  func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"secs": seconds,
	"clip": func(s string) string { return oneLine(s, 600) },
	"str":  func(b []byte) string { return string(b) },
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
.steps{display:flex;flex-wrap:wrap;gap:10px}
.step{width:330px;font-size:12px}.step img{width:320px;border:1px solid #999}
pre{white-space:pre-wrap;word-break:break-word;font-size:12px;margin:2px 0;background:#f7f7f7;padding:2px 4px}
pre.err{background:#fde8e8}
</style>
<script>
function seen(ok) {
  var b = document.body, k = ok ? "loaded" : "broken";
  b.dataset[k] = (+b.dataset[k] || 0) + 1;
  if (!ok) { var m = document.getElementById("missing"); m.hidden = false; m.querySelector("b").textContent = b.dataset.broken; }
}
</script>
</head><body>
<h1>deskrun run report</h1>
<p class="meta">{{len .Tasks}} tasks, written {{.Written}}.</p>
<p id="missing" hidden><b>0</b> screenshots could not be shown: keep report.html beside the task folders of its run directory.</p>
<h2>Summary</h2>
<table id="summary"><tr><th class="l">domain</th><th>tasks</th><th>passed</th><th>errors</th><th>success</th><th>mean score</th><th>p50 time</th><th>p95 time</th><th>p50 steps</th><th>p95 steps</th></tr>
{{range .Summary}}<tr><td class="l">{{.Domain}}</td><td>{{.Tasks}}</td><td>{{.Passed}}</td><td>{{.Errors}}</td><td>{{pct .SuccessRate}}</td><td>{{printf "%.3f" .MeanScore}}</td><td>{{secs .P50MS}}</td><td>{{secs .P95MS}}</td><td>{{.P50Steps}}</td><td>{{.P95Steps}}</td></tr>
{{end}}</table>
<h2>Tasks</h2>
<table id="tasks"><tr><th class="l">task</th><th class="l">domain</th><th class="l">status</th><th>score</th><th>steps</th><th>time</th><th>attempts</th></tr>
{{range .Tasks}}<tr><td class="l"><a href="#{{.Dir}}">{{.R.ID}}</a></td><td class="l">{{.R.Domain}}</td><td class="l {{.R.Status}}">{{.R.Status}}</td><td>{{printf "%.2f" .R.Score}}</td><td>{{.R.Steps}}</td><td>{{secs .R.DurationMS}}</td><td>{{.R.Attempts}}</td></tr>
{{end}}</table>
{{range .Tasks}}
<section class="task" id="{{.Dir}}" data-task="{{.R.ID}}">
<h3>{{.R.ID}} <span class="{{.R.Status}}">{{.R.Status}}</span></h3>
<div>{{.R.Domain}}; score {{printf "%.2f" .R.Score}}; {{.R.Steps}} steps{{if .R.StepLimit}} (step limit){{end}}; {{secs .R.DurationMS}}{{if gt .R.Attempts 1}}; {{.R.Attempts}} attempts{{end}}{{if .R.LastAction}}; ended with {{.R.LastAction}}{{end}}</div>
{{if .R.Error}}<pre class="err">{{.R.Error}}</pre>{{end}}{{if .R.Detail}}<pre>{{.R.Detail}}</pre>{{end}}
{{if .Thumb}}<a href="{{.Dir}}/{{.Thumb}}"><img class="thumb" src="{{.Dir}}/{{.Thumb}}" alt="last screen of {{.R.ID}}" onload="seen(true)" onerror="seen(false)"></a>{{end}}
{{if .Steps}}<details><summary>trajectory: {{len .Steps}} screens</summary><div class="steps">
{{range .Steps}}<div class="step">{{if .S.Screenshot}}<a href="{{.Dir}}/{{.S.Screenshot}}"><img loading="lazy" src="{{.Dir}}/{{.S.Screenshot}}" alt="{{if .S.Final}}final screen{{else}}step {{.S.Step}}{{end}} of {{.ID}}" onload="seen(true)" onerror="seen(false)"></a>{{end}}
<div>{{if .S.Final}}graded screen{{else}}step {{.S.Step}} (agent {{.S.AgentMS}} ms, tools {{.S.ToolsMS}} ms){{end}}</div>
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
	Steps []reportStep
}

type reportData struct {
	Summary []DomainSummary
	Tasks   []reportTask
	Written string
}

// WriteReport writes <out>/report.html: the summary per domain and every
// task's trajectory as screenshots, read from the task folders of out.
// The page is self-contained (no network resources) and refers to the
// screenshots by relative paths, so the run directory can be moved or
// served as a whole. Tasks are ordered by domain, then id.
func WriteReport(out string, results []Result) error {
	data := reportData{Summary: Summarize(results), Written: time.Now().Format(time.RFC1123)}
	rs := slices.Clone(results)
	slices.SortFunc(rs, func(a, b Result) int { return cmp.Or(cmp.Compare(a.Domain, b.Domain), cmp.Compare(a.ID, b.ID)) })
	for _, r := range rs {
		rt := reportTask{R: r, Dir: DirName(r.ID)}
		steps, _ := ReadTrajectory(filepath.Join(out, rt.Dir))
		for _, s := range steps {
			rt.Steps = append(rt.Steps, reportStep{ID: r.ID, Dir: rt.Dir, S: s})
			if s.Screenshot != "" {
				rt.Thumb = s.Screenshot
			}
		}
		data.Tasks = append(data.Tasks, rt)
	}
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
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(out, ReportFile)); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
