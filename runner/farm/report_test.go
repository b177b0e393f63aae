package farm

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/task"
)

// pngOf is a w×h PNG of one colour.
func pngOf(t *testing.T, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fakeRun writes a run directory as a run leaves it: results and, for
// tasks that got a sandbox, a trajectory with screenshots.
func fakeRun(t *testing.T) (string, []Result) {
	t.Helper()
	out := t.TempDir()
	results := []Result{
		{ID: "files-copy", Domain: "files", Status: StatusPassed, Score: 1, Steps: 2, Attempts: 1, DurationMS: 1200, LastAction: task.ActionDone,
			Instruction: "Copy notes.txt to the Desktop", SandboxMS: 300, SetupMS: 200, AgentMS: 400, ToolsMS: 100, EvalMS: 150},
		{ID: `evil<script>alert("id")</script>`, Domain: "shell", Status: StatusFailed, Score: 0, Steps: 1, Attempts: 1, DurationMS: 800,
			Detail: "exact_match: got <b>no</b>"},
		{ID: "broken-start", Domain: "shell", Status: StatusInfraError, Attempts: 2, Error: "start sandbox: unavailable"},
	}
	dark := pngOf(t, 64, 40, color.RGBA{10, 10, 10, 255})
	for _, r := range results[:2] {
		dir := filepath.Join(out, DirName(r.ID))
		tr, err := newTrajectory(dir)
		if err != nil {
			t.Fatal(err)
		}
		for i := range r.Steps {
			s := shot{Data: dark, MIMEType: "image/png", Width: 64, Height: 40}
			tr.add(StepRecord{Step: i, Time: time.Now(), Screenshot: tr.screenshot("step-00"+strconv.Itoa(i), s), Width: 64, Height: 40,
				Text:    `I will type <script>alert("text")</script>`,
				Calls:   []task.Call{{Dialect: "osworld", Tool: "desktop_type", Args: json.RawMessage(`{"text":"</pre><img src=x onerror=alert(1)>"}`)}},
				Results: []agent.CallOutcome{{Text: "ok"}}, AgentMS: 5, ToolsMS: 7})
		}
		tr.final(r.Steps, shot{Data: dark, MIMEType: "image/png", Width: 64, Height: 40})
		tr.close()
	}
	return out, results
}

func TestWriteReport(t *testing.T) {
	out, results := fakeRun(t)
	sums := []string{
		"0f3c9a77d2e1b6c4a8e5f7d9c1b3a5e7f9d1c3b5a7e9f1d3c5b7a9e1f3d5c7b9",
		"1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef",
		"fedcba0987654321fedcba0987654321fedcba0987654321fedcba0987654321",
	}
	for i := range results {
		results[i].TaskSHA256, results[i].OSWorld = sums[i], task.OSWorldCommit
	}
	if err := WriteReport(out, results); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, s := range []string{
		"files-copy", "broken-start", "start sandbox: unavailable",
		`evil&lt;script&gt;alert(&#34;id&#34;)&lt;/script&gt;`,
		`I will type &lt;script&gt;alert(&#34;text&#34;)&lt;/script&gt;`,
		"exact_match: got &lt;b&gt;no&lt;/b&gt;",
		`<td class="l">all</td>`,
		// The OSWorld tree, the task files' SHA-256 and each file's.
		"Graded as OSWorld " + template.HTMLEscapeString(task.OSWorldCommit) + "; the run's 3 task files' SHA-256: <code>" + GradingOf(results).TasksSHA256 + "</code>",
		`<code title="SHA-256 ` + sums[0] + `">0f3c9a77d2e1</code>`,
		`<code title="SHA-256 ` + sums[2] + `">fedcba098765</code>`,
	} {
		if !strings.Contains(html, s) {
			t.Errorf("report lacks %q", s)
		}
	}
	for _, s := range []string{"<script>alert", "<img src=x", "<b>no</b>", "http://", "https://"} {
		if strings.Contains(html, s) {
			t.Errorf("report contains %q", s)
		}
	}
	// Every image is a relative path to a file of the run.
	srcs := regexp.MustCompile(`<img[^>]* src="([^"]+)"`).FindAllStringSubmatch(html, -1)
	if len(srcs) != 2+3+2 { // a thumbnail per task with a trajectory, then every screen
		t.Errorf("report has %d images, want 7", len(srcs))
	}
	for _, m := range srcs {
		if strings.HasPrefix(m[1], "/") || strings.Contains(m[1], ":") || strings.Contains(m[1], "..") {
			t.Errorf("image src %q is not relative to the run", m[1])
		}
		if _, err := os.Stat(filepath.Join(out, m[1])); err != nil {
			t.Errorf("image src %q: %v", m[1], err)
		}
	}
	// Rewriting replaces the report.
	if err := WriteReport(out, results[:1]); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(out, ReportFile))
	if strings.Contains(string(b), "broken-start") {
		t.Error("a rewritten report still shows a task it was not given")
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".report-") {
			t.Errorf("leftover temporary file %s", e.Name())
		}
	}
}

// chromium returns the headless browser, failing the test when it is
// missing (skipping only in -short mode).
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs chromium; skipped in -short mode")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed (apt-get install chromium)")
	return ""
}

// renderDOM opens page in headless Chromium and returns the DOM after
// its images loaded.
func renderDOM(t *testing.T, browser, page string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), browser, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=5000", "--dump-dom", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// bodyCount reads a counter the report's script keeps on <body>.
func bodyCount(dom, name string) int {
	m := regexp.MustCompile(`<body[^>]*\sdata-` + name + `="(\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func TestReportInChromium(t *testing.T) {
	browser := chromium(t)
	out, results := fakeRun(t)
	if err := WriteReport(out, results); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(out, ReportFile)
	dom := renderDOM(t, browser, page)
	checkReportDOM(t, dom, results, 2)
	// The instruction and the grader's detail are in the tasks table,
	// the charts drawn: a bar per domain (files passed all, shell none).
	for _, s := range []string{`<td class="l ins">Copy notes.txt to the Desktop</td>`, `<td class="l why">exact_match: got &lt;b&gt;no&lt;/b&gt;</td>`,
		`<rect x="200" y="4" width="360" height="14" class="ok">`, `<rect x="200" y="24" width="0" height="14" class="ok">`} {
		if !strings.Contains(dom, s) {
			t.Errorf("rendered report lacks %s", s)
		}
	}
	// And they are visible: the screen Chromium paints has the chart's
	// green and the setup segment's orange.
	shot := filepath.Join(t.TempDir(), "report.png")
	cmd := exec.CommandContext(t.Context(), browser, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+t.TempDir(),
		"--window-size=1280,1600", "--hide-scrollbars", "--screenshot="+shot, "file://"+page)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, b)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	count := map[color.RGBA]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			count[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}]++
		}
	}
	if n := count[color.RGBA{0x2e, 0x8b, 0x4a, 255}]; n < 360*10 {
		t.Errorf("%d pixels of the success chart's green painted, want a 360x14 bar", n)
	}
	if n := count[color.RGBA{0xe0, 0xa0, 0x40, 255}]; n < 50 {
		t.Errorf("%d pixels of the setup segment painted", n)
	}

	// A screenshot gone from the run shows the warning.
	if err := os.Remove(filepath.Join(out, DirName("files-copy"), "final.png")); err != nil {
		t.Fatal(err)
	}
	dom = renderDOM(t, browser, page)
	if bodyCount(dom, "broken") == 0 {
		t.Error("a missing screenshot is not counted as broken")
	}
	if regexp.MustCompile(`<p id="missing"[^>]*hidden`).MatchString(dom) {
		t.Error("the missing-screenshots warning stays hidden")
	}
}

// checkReportDOM checks a report as Chromium rendered it: every task is
// there by id, the images load (at least thumbs of them), none is broken.
func checkReportDOM(t *testing.T, dom string, results []Result, thumbs int) {
	t.Helper()
	for _, r := range results {
		if !strings.Contains(dom, `data-task="`+strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(r.ID)+`"`) {
			t.Errorf("rendered report lacks task %q", r.ID)
		}
	}
	if n := bodyCount(dom, "loaded"); n < thumbs {
		t.Errorf("%d images loaded, want at least %d", n, thumbs)
	}
	if n := bodyCount(dom, "broken"); n != 0 {
		t.Errorf("%d images broken", n)
	}
	if strings.Contains(dom, "alert(") && regexp.MustCompile(`<script[^>]*>[^<]*alert\(`).MatchString(dom) {
		t.Error("rendered report runs injected script")
	}
	if !regexp.MustCompile(`<p id="missing"[^>]*hidden`).MatchString(dom) {
		t.Error("the missing-screenshots warning shows although no image is missing")
	}
}

// TestReportVideo: a task folder holding a recording gets a <video> of
// it, and each step a link that seeks to its place in the video; a task
// without one gets none.
func TestReportVideo(t *testing.T) {
	out := t.TempDir()
	results := []Result{
		{ID: "recorded", Domain: "files", Status: StatusPassed, Score: 1, Steps: 1, Attempts: 1},
		{ID: "plain", Domain: "files", Status: StatusPassed, Score: 1, Steps: 1, Attempts: 1},
	}
	start := time.Now()
	for _, r := range results {
		tr, err := newTrajectory(filepath.Join(out, r.ID))
		if err != nil {
			t.Fatal(err)
		}
		if r.ID == "recorded" {
			tr.videoStart = start
			os.WriteFile(filepath.Join(out, r.ID, RecordingFile), []byte("webm"), 0o600)
		}
		tr.add(StepRecord{Step: 0, Time: start.Add(2345 * time.Millisecond)})
		tr.close()
	}
	steps, err := ReadTrajectory(filepath.Join(out, "recorded"))
	if err != nil || len(steps) != 1 || steps[0].VideoMS == nil || *steps[0].VideoMS != 2345 {
		t.Fatalf("recorded step %+v %v, want video_ms 2345", steps, err)
	}
	if err := WriteReport(out, results); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(out, ReportFile))
	html := string(b)
	if n := strings.Count(html, "<video "); n != 1 || !strings.Contains(html, `src="recorded/recording.webm"`) {
		t.Errorf("%d videos in the report, want one of recorded/recording.webm", n)
	}
	if !strings.Contains(html, `data-s="2.3" onclick="return seek(this)"`) {
		t.Errorf("no link seeking to 2.3 s in the report")
	}
}
