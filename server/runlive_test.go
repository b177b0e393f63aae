package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
)

// browserPage is a page of headless Chromium driven through the DevTools
// protocol.
type browserPage struct {
	t        *testing.T
	ctx      context.Context
	hostport string // of the browser's DevTools
	ws       *websocket.Conn
	mu       sync.Mutex
	n        int
}

// openBrowser starts headless Chromium on url.
func openBrowser(t *testing.T, url string) *browserPage {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	profile := t.TempDir()
	cmd := exec.CommandContext(ctx, chromiumBinary(t), "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,900",
		"--remote-debugging-port=0", "--user-data-dir="+profile, url)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	// the browser's helpers can outlive it and write in its profile
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); agentdtest.KillUsing(profile) })
	sc := bufio.NewScanner(stderr)
	var browser string
	for sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok {
			browser = u
			break
		}
	}
	if browser == "" {
		t.Fatal("chromium printed no DevTools address")
	}
	go io.Copy(io.Discard, stderr)
	hostport := strings.Split(strings.TrimPrefix(browser, "ws://"), "/")[0]
	return attachPage(t, ctx, hostport, "")
}

// attachPage connects to the page target id ("" for any) of the browser
// at hostport.
func attachPage(t *testing.T, ctx context.Context, hostport, id string) *browserPage {
	t.Helper()
	var page string
	for range 200 {
		var pages []struct{ ID, Type, WebSocketDebuggerURL string }
		if resp, err := http.Get("http://" + hostport + "/json/list"); err == nil {
			json.NewDecoder(resp.Body).Decode(&pages)
			resp.Body.Close()
		}
		for _, p := range pages {
			if p.Type == "page" && p.WebSocketDebuggerURL != "" && (id == "" || p.ID == id) {
				page = p.WebSocketDebuggerURL
			}
		}
		if page != "" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if page == "" {
		t.Fatal("chromium has no page")
	}
	ws, _, err := websocket.Dial(ctx, page, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(-1)
	t.Cleanup(func() { ws.CloseNow() })
	return &browserPage{t: t, ctx: ctx, hostport: hostport, ws: ws}
}

func (b *browserPage) call(method string, params any) json.RawMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n++
	msg, _ := json.Marshal(map[string]any{"id": b.n, "method": method, "params": params})
	if err := b.ws.Write(b.ctx, websocket.MessageText, msg); err != nil {
		b.t.Fatal(err)
	}
	for {
		_, m, err := b.ws.Read(b.ctx)
		if err != nil {
			b.t.Fatal(err)
		}
		var r struct {
			ID     int
			Result json.RawMessage
		}
		if json.Unmarshal(m, &r) == nil && r.ID == b.n {
			return r.Result
		}
	}
}

// eval evaluates expr in the page and decodes its JSON value into out.
func (b *browserPage) eval(expr string, out any) {
	var r struct{ Result struct{ Value string } }
	json.Unmarshal(b.call("Runtime.evaluate", map[string]any{"expression": "JSON.stringify(" + expr + ")", "returnByValue": true}), &r)
	json.Unmarshal([]byte(r.Result.Value), out)
}

// liveCard is a task as the run's page shows it.
type liveCard struct {
	Task, Instruction, Phase, Step string
	Img                            string
	W, H                           int
}

const cardsJS = `[...document.querySelectorAll(".task")].map(e => ({task: e.dataset.task, phase: e.dataset.phase, step: e.dataset.step,
	instruction: e.querySelector(".instruction").textContent, img: e.querySelector("img").src,
	w: e.querySelector("img").naturalWidth, h: e.querySelector("img").naturalHeight}))`

// TestRunWatchPage runs three tasks two at a time with an agent server
// that takes its time, opens the run's page in headless Chromium with a
// run ticket, and checks that it shows each running task's desktop as a
// live picture with its id, instruction, step and phase, follows the
// tasks as they start and end, and that a picture opens that session's
// viewer.
func TestRunWatchPage(t *testing.T) {
	s := newRunServer(t)
	// The agent: a step of nothing every 400 ms, done at step 6.
	agentSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Step int }
		json.NewDecoder(r.Body).Decode(&req)
		time.Sleep(400 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"done":%t}`, req.Step >= 6)
	}))
	defer agentSrv.Close()
	body := fmt.Sprintf(`{"tasks":%q,"agent":%q,"parallel":2,"max_steps":10,"timeout_ms":120000,"retries":0,"provider":"local",
		"screen":{"width":1024,"height":768},"only":["files-copy-notes","files-move-todo","files-count-lines"]}`, shippedTasks(t, "files"), agentSrv.URL)
	a := call(t, s.url, "POST", "/v1/runs", s.token, body)
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	var run api.Run
	json.Unmarshal(a.body, &run)

	// Without a ticket or the token, the page and its calls are refused.
	for _, p := range []string{"watch", "live", "live/x/screen", "live/x/view"} {
		if a := call(t, s.url, "GET", "/v1/runs/"+run.ID+"/"+p, "", ""); a.status != http.StatusUnauthorized {
			t.Errorf("%s without a ticket: %d", p, a.status)
		}
	}
	conform(t, "RunLive", call(t, s.url, "GET", "/v1/runs/"+run.ID+"/live", s.token, "").body)
	if a := call(t, s.url, "GET", "/v1/runs/"+run.ID+"/live/nosuch/screen", s.token, ""); a.status != http.StatusNotFound {
		t.Errorf("screen of a task not running: %d %s", a.status, a.body)
	}
	tk, err := s.c.RunTicket(t.Context(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	b := openBrowser(t, s.url+"/v1/runs/"+run.ID+"/watch?ticket="+tk.Ticket)

	seen := map[string]liveCard{} // tasks shown with a picture
	most, maxStep, linked := 0, 0, false
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var cards []liveCard
		b.eval(cardsJS, &cards)
		var status string
		b.eval("document.body.dataset.status || ''", &status)
		most = max(most, len(cards))
		for _, c := range cards {
			if c.W > 0 {
				seen[c.Task] = c
			}
			var n int
			fmt.Sscan(c.Step, &n)
			maxStep = max(maxStep, n)
		}
		if status == api.RunFinished && len(cards) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page never showed the run's end: status %q, cards %+v", status, cards)
		}
		if d := os.Getenv("DESKRUN_WATCH_SHOT"); d != "" && len(cards) == 2 && cards[0].W > 0 && cards[1].W > 0 {
			var shot struct{ Data []byte }
			json.Unmarshal(b.call("Page.captureScreenshot", map[string]any{"format": "png"}), &shot)
			os.WriteFile(d, shot.Data, 0o644)
		}
		if !linked && len(cards) > 0 && cards[0].W > 0 {
			// A picture opens that session's viewer: checked once, in a
			// second tab of the same browser (the page's pass cookie).
			checkViewerLink(t, s, b, run.ID, cards[0].Task)
			linked = true
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(seen) != 3 || most != 2 || maxStep < 3 {
		t.Fatalf("the page showed %d tasks with pictures (want 3), %d at once (want 2), steps up to %d", len(seen), most, maxStep)
	}
	for _, c := range seen {
		// 1024x768 desktops as 384x288 pictures.
		if c.W != 384 || c.H != 288 || c.Instruction == "" || !strings.Contains(c.Img, "/live/"+c.Task+"/screen") {
			t.Errorf("card %+v", c)
		}
	}
	var summary string
	b.eval(`document.getElementById("summary").textContent`, &summary)
	if !strings.Contains(summary, "finished: 3 of 3 tasks done") {
		t.Errorf("summary %q", summary)
	}
}

// checkViewerLink follows a task's picture link with the browser's
// cookie: it leads to the viewer of the task's session, which draws the
// desktop.
func checkViewerLink(t *testing.T, s *runServer, b *browserPage, runID, task string) {
	t.Helper()
	var href string
	b.eval(fmt.Sprintf(`document.querySelector('.task[data-task=%q] a').href`, task), &href)
	var live api.RunLive
	if err := func() (err error) { live, err = s.c.RunLive(t.Context(), runID); return }(); err != nil {
		t.Fatal(err)
	}
	var sid string
	for _, lt := range live.Tasks {
		if lt.Task == task {
			sid = lt.Session
		}
	}
	// The link in a new tab of the same browser (it has the page's
	// cookie), as a click with target=_blank opens it.
	var target struct{ TargetID string }
	json.Unmarshal(b.call("Target.createTarget", map[string]any{"url": href}), &target)
	defer b.call("Target.closeTarget", map[string]any{"targetId": target.TargetID})
	tab := attachPage(t, b.ctx, b.hostport, target.TargetID)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var where, frames string
		tab.eval("location.pathname + location.search", &where)
		tab.eval("document.body ? document.body.dataset.frames || '' : ''", &frames)
		if sid != "" && strings.HasPrefix(where, "/v1/sessions/"+sid+"/view?view_only=1&ticket=") && frames != "" {
			t.Logf("the picture of %s opens the viewer of session %s, which drew %s frames", task, sid, frames)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the link %s did not lead to a viewer of session %q drawing: at %q, frames %q", href, sid, where, frames)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
