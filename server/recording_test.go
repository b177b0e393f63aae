package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/client"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/farm"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
)

// get asks path with the cookies given and no token.
func get(t *testing.T, url string, h http.Header, cookies ...*http.Cookie) answer {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a answer
	a.status, a.header = resp.StatusCode, resp.Header
	a.body = make([]byte, 0, 1<<16)
	buf := make([]byte, 1<<16)
	for {
		n, err := resp.Body.Read(buf)
		a.body = append(a.body, buf[:n]...)
		if err != nil {
			break
		}
	}
	_ = json.Unmarshal(a.body, &a.err)
	return a
}

// chromiumBinary is the headless browser; missing, it fails the test.
func chromiumBinary(t *testing.T) string {
	t.Helper()
	agentdtest.NeedProgram(t, "chromium")
	return "chromium"
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

// ffmpegChildren lists the ffmpeg processes whose parent is pid.
func ffmpegChildren(pid int) []int {
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(pid), "-x", "ffmpeg").Output()
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		n, _ := strconv.Atoi(f)
		pids = append(pids, n)
	}
	return pids
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && syscall.Kill(pid, 0) == nil
}

// TestRecordedSession records a real local session while text is typed
// into an xterm on a green desktop, through the HTTP API: the video is
// served while the session runs, with a ticket (spent once, then the
// cookie lets the player's range requests in), and after the session
// ended; it is a VP8 WebM of the screen lasting about the session's
// life, with several frames, whose last frame shows the green; the
// trajectory places each call in it; no ffmpeg is left.
func TestRecordedSession(t *testing.T) {
	agentdtest.NeedX(t, "openbox", "xsetroot", "xterm")
	agentdtest.NeedProgram(t, "ffmpeg")
	p, err := local.New(agentdtest.Agentd(t), "openbox")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	trajDir := t.TempDir()
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}, Logger: log, TrajectoryDir: trajDir})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(NewServer(Config{Manager: m, Token: testToken, Logger: log}))
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		m.Close(ctx)
		p.Close(ctx)
	})
	c := client.NewClient(ts.URL, testToken, testClient)
	ctx := t.Context()

	plain, err := c.CreateSession(ctx, api.CreateSessionRequest{Provider: "local"})
	if err != nil {
		t.Fatal(err)
	}
	checkError(t, call(t, ts.URL, "GET", "/v1/sessions/"+plain.ID+"/recording", testToken, ""), http.StatusNotFound, "not_found", "not recorded")
	c.DeleteSession(ctx, plain.ID)

	beforeCreate := time.Now()
	a := call(t, ts.URL, "POST", "/v1/sessions", testToken, `{"provider":"local","record":true}`)
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	conform(t, "Session", a.body)
	var sess api.Session
	json.Unmarshal(a.body, &sess)
	if !sess.Record || sess.RecordingStartedAt.IsZero() {
		t.Fatalf("session %+v: want record and recording_started_at", sess)
	}
	began := time.Now()
	agentdPid, _ := strconv.Atoi(strings.SplitN(sess.SandboxID, "-", 2)[0])
	encoders := ffmpegChildren(agentdPid)
	if len(encoders) != 1 {
		t.Fatalf("ffmpeg processes of agentd %d: %v, want one", agentdPid, encoders)
	}

	run := func(script string) {
		t.Helper()
		r, err := c.Exec(ctx, sess.ID, api.ExecRequest{Cmd: []string{"sh", "-c", script}})
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%s: %v %+v", script, err, r)
		}
	}
	time.Sleep(time.Second) // so the video shows the desktop before the green
	run("xsetroot -solid '#00c000'")
	run("xterm -geometry 60x10+0+0 >/dev/null 2>&1 &")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ws, _ := c.Windows(ctx, sess.ID)
		if len(ws) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no xterm window")
		}
	}
	for _, line := range []string{"echo one", "echo two", "ls /"} {
		if _, err := c.Input(ctx, sess.ID, []api.Action{{Type: api.ActionType, Text: line + "\n"}, {Type: api.ActionWait, MS: 300}}); err != nil {
			t.Fatal(err)
		}
	}

	// While it runs: the file as far as written, with the token or a
	// ticket; a ticket is spent once, and refused for another session.
	path := "/v1/sessions/" + sess.ID + "/recording"
	a = call(t, ts.URL, "GET", path, testToken, "")
	if a.status != 200 || a.header.Get(api.HeaderRecording) != "recording" || a.header.Get("Content-Type") != "video/webm" || len(a.body) == 0 {
		t.Fatalf("recording while running: %d %v %d bytes", a.status, a.header, len(a.body))
	}
	checkError(t, get(t, ts.URL+path, nil), http.StatusUnauthorized, "unauthorized", "")
	tk := newTicket(t, ts.URL, sess.ID)
	checkError(t, get(t, ts.URL+"/v1/sessions/"+plain.ID+"/recording?ticket="+tk, nil), http.StatusUnauthorized, "unauthorized", "ticket")
	a = get(t, ts.URL+path+"?ticket="+tk, nil)
	if a.status != 200 || len(a.body) == 0 {
		t.Fatalf("recording with a ticket: %d %s", a.status, a.body)
	}
	pass := (&http.Response{Header: a.header}).Cookies()
	if len(pass) != 1 || pass[0].Name != "deskrun_pass" || pass[0].Path != path || !pass[0].HttpOnly {
		t.Fatalf("cookies answered with the ticket: %+v", pass)
	}
	checkError(t, get(t, ts.URL+path+"?ticket="+tk, nil), http.StatusUnauthorized, "unauthorized", "already used")

	time.Sleep(500 * time.Millisecond)
	asked := time.Since(began).Seconds() // the recording began before: it is under way when the create answers
	if err := c.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	lived := time.Since(beforeCreate).Seconds()
	for _, pid := range encoders {
		if alive(pid) {
			t.Errorf("ffmpeg %d still runs after the session ended", pid)
		}
	}

	// After the end: the final file, by token or by the pass cookie, in
	// ranges.
	a = call(t, ts.URL, "GET", path, testToken, "")
	if a.status != 200 || a.header.Get(api.HeaderRecording) != "stopped" {
		t.Fatalf("recording after the end: %d %v", a.status, a.header)
	}
	file := filepath.Join(t.TempDir(), "rec.webm")
	os.WriteFile(file, a.body, 0o600)
	r := get(t, ts.URL+path, http.Header{"Range": {"bytes=0-99"}}, pass...)
	if r.status != http.StatusPartialContent || len(r.body) != 100 || string(r.body) != string(a.body[:100]) {
		t.Errorf("a range with the pass cookie: %d, %d bytes", r.status, len(r.body))
	}
	v := agentdtest.Probe(t, file)
	t.Logf("%+v, %d bytes; %.2fs from the create's answer to the delete, %.2fs from the create's call to the delete's answer", v, len(a.body), asked, lived)
	if v.Codec != "vp8" || !strings.Contains(v.Format, "webm") || v.Width != 1280 || v.Height != 800 {
		t.Errorf("video %+v, want vp8 in webm, 1280x800", v)
	}
	if v.Frames < 3 {
		t.Errorf("%d frames, want several (the xterm, the typing)", v.Frames)
	}
	if v.Duration < asked-1 || v.Duration > lived+0.5 {
		t.Errorf("duration %.2fs; %.2fs from the create's answer to the delete, %.2fs from the create's call to the delete's answer", v.Duration, asked, lived)
	}
	if r, g, b, _ := agentdtest.LastFrame(t, file).At(1000, 700).RGBA(); r>>8 > 40 || g>>8 < 160 || b>>8 > 40 {
		t.Errorf("pixel (1000,700) of the last frame is %d,%d,%d, want the desktop's green #00c000", r>>8, g>>8, b>>8)
	}

	// The trajectory places the calls in the video.
	f, err := os.Open(filepath.Join(trajDir, sess.ID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var inputs, saved int
	var green *runner.TrajectoryLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l runner.TrajectoryLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.VideoMS == nil {
			t.Errorf("line %d (%s) has no video_ms", l.N, l.Call)
			continue
		}
		want := l.Time.Sub(sess.RecordingStartedAt).Milliseconds()
		if *l.VideoMS != want {
			t.Errorf("line %d: video_ms %d, want %d", l.N, *l.VideoMS, want)
		}
		switch l.Call {
		case "exec":
			if green == nil && strings.Contains(string(l.Args), "#00c000") {
				green = &l
			}
		case "input":
			inputs++
			if *l.VideoMS <= 0 || float64(*l.VideoMS) > v.Duration*1000 {
				t.Errorf("input at %d ms, outside the %.2fs video", *l.VideoMS, v.Duration)
			}
		case "recording":
			saved++
		}
	}
	if inputs != 3 || saved != 1 {
		t.Errorf("%d input lines and %d recording lines, want 3 and 1", inputs, saved)
	}
	// The video shows the green from the time the trajectory says the
	// command ran, not before, and within 200 ms after it returned (a
	// frame is taken every 100 ms at most).
	if green == nil {
		t.Fatal("no exec line of the xsetroot")
	}
	isGreen := func(sec float64) bool {
		r, g, b, _ := agentdtest.FrameAt(t, file, sec).At(1000, 700).RGBA()
		return r>>8 < 40 && g>>8 > 160 && b>>8 < 40
	}
	before := float64(*green.VideoMS) / 1000
	after := (float64(*green.VideoMS)+green.DurationMS)/1000 + 0.2
	if before < 0 || isGreen(before) {
		t.Errorf("the frame at %.2fs, before the xsetroot at %d ms, is green", before, *green.VideoMS)
	}
	if !isGreen(after) {
		t.Errorf("the frame at %.2fs, after the xsetroot at %d ms, is not green", after, *green.VideoMS)
	}
}

// TestRecordedRun runs a task with "record": true: its folder holds a
// video, the steps carry video_ms, the report embeds it, and in a
// browser the report opened with a run ticket shows its screenshots and
// its video (the ticket's cookie lets them in); the ticket is spent once,
// expired or unknown ones and none are refused.
func TestRecordedRun(t *testing.T) {
	agentdtest.NeedProgram(t, "ffmpeg")
	s := newRunServer(t)
	body := fmt.Sprintf(`{"tasks":%q,"agent":"replay","max_steps":10,"timeout_ms":120000,"retries":0,"provider":"local","record":true,"only":["files-copy-notes"]}`, shippedTasks(t, "files"))
	a := call(t, s.url, "POST", "/v1/runs", s.token, body)
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	var run api.Run
	json.Unmarshal(a.body, &run)
	if !run.Request.Record {
		t.Errorf("request %+v: want record", run.Request)
	}
	run = waitRun(t, s.c, run.ID, 3*time.Minute)
	if run.Passed != 1 {
		t.Fatalf("run %+v", run)
	}
	file := filepath.Join(run.Out, "files-copy-notes", farm.RecordingFile)
	v := agentdtest.Probe(t, file)
	if v.Codec != "vp8" || v.Frames < 2 || v.Duration <= 0 {
		t.Errorf("the task's video: %+v", v)
	}
	steps, err := farm.ReadTrajectory(filepath.Join(run.Out, "files-copy-notes"))
	if err != nil || len(steps) < 2 {
		t.Fatalf("trajectory %+v %v", steps, err)
	}
	for _, st := range steps {
		if st.VideoMS == nil || *st.VideoMS < 0 || float64(*st.VideoMS) > v.Duration*1000 {
			t.Errorf("step %d at %v ms of a %.2fs video", st.Step, st.VideoMS, v.Duration)
		}
	}
	report := call(t, s.url, "GET", "/v1/runs/"+run.ID+"/report", s.token, "")
	if !strings.Contains(string(report.body), `<video class="rec" controls preload="metadata" src="files-copy-notes/recording.webm"`) {
		t.Errorf("the report embeds no video: %.2000s", report.body)
	}

	// Tickets: none, unknown, or for another run: refused.
	base := s.url + "/v1/runs/" + run.ID
	checkError(t, get(t, base+"/report", nil), http.StatusUnauthorized, "unauthorized", "")
	checkError(t, get(t, base+"/report?ticket=nope", nil), http.StatusUnauthorized, "unauthorized", "ticket")
	a = call(t, s.url, "POST", "/v1/runs/"+run.ID+"/tickets", s.token, "")
	if a.status != http.StatusCreated {
		t.Fatalf("ticket: %d %s", a.status, a.body)
	}
	conform(t, "Ticket", a.body)
	checkError(t, call(t, s.url, "POST", "/v1/runs/nope/tickets", s.token, ""), http.StatusNotFound, "not_found", "")
	checkError(t, call(t, s.url, "POST", "/v1/runs/"+run.ID+"/tickets", "", ""), http.StatusUnauthorized, "unauthorized", "")
	var tk api.Ticket
	json.Unmarshal(a.body, &tk)
	checkError(t, get(t, s.url+"/v1/sessions/x/recording?ticket="+tk.Ticket, nil), http.StatusUnauthorized, "unauthorized", "ticket")

	// A browser opens the report with a fresh ticket: every screenshot and
	// the video load.
	a = call(t, s.url, "POST", "/v1/runs/"+run.ID+"/tickets", s.token, "")
	json.Unmarshal(a.body, &tk)
	browser := chromiumBinary(t)
	cmd := exec.CommandContext(t.Context(), browser, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+t.TempDir(),
		"--autoplay-policy=no-user-gesture-required", "--virtual-time-budget=10000", "--dump-dom", base+"/report?ticket="+tk.Ticket)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dom := string(out)
	shots := strings.Count(string(report.body), `onload="seen(true)"`)
	if loaded := bodyCount(dom, "loaded"); loaded != shots+1 || bodyCount(dom, "broken") != 0 {
		t.Errorf("in the browser %d of %d screenshots and 1 video loaded, %d broken", loaded, shots, bodyCount(dom, "broken"))
	}
	// The ticket was spent by the page.
	checkError(t, get(t, base+"/report?ticket="+tk.Ticket, nil), http.StatusUnauthorized, "unauthorized", "already used")
}

// TestRecordedSessionUnderLoad records a local session through ten
// seconds of typing and settled screenshots with two busy processes
// beside it, sets the desktop red, deletes the session and fetches the
// video at once: the file is final when the DELETE answers, lasts from
// the recording's start to the stop (the encoder, behind on a loaded
// machine, is waited for while it makes progress), and its last frame
// shows the red.
func TestRecordedSessionUnderLoad(t *testing.T) {
	agentdtest.NeedX(t, "openbox", "xsetroot", "xterm")
	agentdtest.NeedProgram(t, "ffmpeg")
	p, err := local.New(agentdtest.Agentd(t), "openbox")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(NewServer(Config{Manager: m, Token: testToken, Logger: log}))
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		m.Close(ctx)
		p.Close(ctx)
	})
	// no client-side bound on the DELETE: it answers once the file is final
	c := client.NewClient(ts.URL, testToken, &http.Client{})
	ctx := t.Context()
	agentdtest.Load(t, 2)

	sess, err := c.CreateSession(ctx, api.CreateSessionRequest{Provider: "local", Record: true})
	if err != nil {
		t.Fatal(err)
	}
	run := func(script string) {
		t.Helper()
		r, err := c.Exec(ctx, sess.ID, api.ExecRequest{Cmd: []string{"sh", "-c", script}})
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%s: %v %+v", script, err, r)
		}
	}
	run("xterm -geometry 60x10+0+0 >/dev/null 2>&1 &")
	for busy := time.Now(); time.Since(busy) < 10*time.Second; {
		if _, err := c.Input(ctx, sess.ID, []api.Action{{Type: api.ActionType, Text: "echo deskrun\n"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Screenshot(ctx, sess.ID, api.ScreenshotOptions{SettleMS: 200, TimeoutMS: 2000}); err != nil {
			t.Fatal(err)
		}
	}
	run("xsetroot -solid '#e00000'")
	stopAt := time.Now()
	if err := c.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	deleted := time.Now()
	a := call(t, ts.URL, "GET", "/v1/sessions/"+sess.ID+"/recording", testToken, "")
	if a.status != 200 || a.header.Get(api.HeaderRecording) != "stopped" {
		t.Fatalf("recording after the end: %d %v", a.status, a.header)
	}
	file := filepath.Join(t.TempDir(), "rec.webm")
	os.WriteFile(file, a.body, 0o600)
	v := agentdtest.Probe(t, file)
	// The video runs from its first frame (written before the session's
	// recording_started_at) to the last one (taken at the stop, inside
	// the DELETE): at least until the stop was asked, at most until the
	// DELETE answered. A video cut short loses seconds; the second
	// allowed below is for the time stamps ffmpeg gives as it reads.
	least, most := stopAt.Sub(sess.RecordingStartedAt).Seconds(), deleted.Sub(sess.RecordingStartedAt).Seconds()
	t.Logf("%+v, %d bytes; recording from %v to the stop %.2fs, the DELETE answered at %.2fs", v, len(a.body), sess.RecordingStartedAt, least, most)
	if v.Duration < least-1 || v.Duration > most+1 {
		t.Errorf("duration %.2fs; the recording ran %.2fs to the stop and %.2fs to the DELETE's answer", v.Duration, least, most)
	}
	if r, g, b, _ := agentdtest.LastFrame(t, file).At(1000, 700).RGBA(); r>>8 < 160 || g>>8 > 40 || b>>8 > 40 {
		t.Errorf("pixel (1000,700) of the last frame is %d,%d,%d, want the red set before the DELETE", r>>8, g>>8, b>>8)
	}
}
