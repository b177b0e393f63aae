package agentd

import (
	"bytes"
	"context"
	"image"
	"image/draw"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
)

func startTerm(t testing.TB, display, script string) {
	t.Helper()
	ready := t.TempDir() + "/ready"
	term := exec.Command("xterm", "-geometry", "60x10+0+0", "-fa", "DejaVu Sans Mono", "-fs", "14",
		"-e", "sh", "-c", `touch "$1"; `+script, "sh", ready)
	term.Env = append(os.Environ(), "DISPLAY="+display)
	term.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := term.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Process.Kill(); term.Wait() })
	waitFor(t, "the terminal", func() bool { _, err := os.Stat(ready); return err == nil })
}

func pixels(t *testing.T, shot api.Screenshot) []byte {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba.Pix
}

// TestSettledScreenshotAfterTyping types into a terminal with a
// wait_idle action and takes a settled screenshot: it shows the text
// (it equals a screenshot taken long after), and the answer says the
// screen settled.
func TestSettledScreenshotAfterTyping(t *testing.T) {
	s, c := start(t)
	ctx := context.Background()
	startTerm(t, s.Display(), "exec cat")
	area := &api.Rect{X0: 0, Y0: 0, X1: 500, Y1: 200}
	before, err := c.Screenshot(ctx, api.ScreenshotOptions{Region: area, SettleMS: 200, TimeoutMS: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if before.Settled == nil || !*before.Settled {
		t.Fatalf("the new terminal did not settle: %+v", before.Settled)
	}
	res, err := c.Input(ctx, []api.Action{
		{Type: api.ActionMove, X: api.Int(100), Y: api.Int(60)},
		{Type: api.ActionType, Text: "settled observations\n"},
		{Type: api.ActionWaitIdle, MS: 100, TimeoutMS: 2000},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Results[2]; r.Settled == nil || !*r.Settled {
		t.Fatalf("wait_idle result %+v, want settled", r)
	}
	after, err := c.Screenshot(ctx, api.ScreenshotOptions{Region: area, SettleMS: 50, TimeoutMS: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if after.Settled == nil || !*after.Settled || after.SettleMS < 50 || after.SettleMS > 500 {
		t.Fatalf("settled %v after %d ms, want settled in about 50 ms", after.Settled, after.SettleMS)
	}
	if bytes.Equal(pixels(t, before), pixels(t, after)) {
		t.Fatal("the screenshot after wait_idle does not show the typed text")
	}
	sh(t, c, "sleep 1")
	later, err := c.Screenshot(ctx, api.ScreenshotOptions{Region: area})
	if err != nil {
		t.Fatal(err)
	}
	if later.Settled != nil {
		t.Errorf("a screenshot without settle_ms says settled=%v", *later.Settled)
	}
	if !bytes.Equal(pixels(t, after), pixels(t, later)) {
		t.Fatal("the settled screenshot differs from one taken a second later")
	}
}

func TestSettledScreenshotTimesOut(t *testing.T) {
	s, c := start(t)
	startTerm(t, s.Display(), `while :; do date +%N; done`)
	// The terminal may take a moment to start drawing on a busy machine.
	var shot api.Screenshot
	waitFor(t, "the terminal to redraw continuously", func() bool {
		var err error
		shot, err = c.Screenshot(context.Background(), api.ScreenshotOptions{SettleMS: 300, TimeoutMS: 600})
		if err != nil {
			t.Fatal(err)
		}
		return shot.Settled != nil && !*shot.Settled
	})
	if shot.SettleMS < 600 || shot.SettleMS > 1000 {
		t.Fatalf("timed out after %d ms, want about 600 ms", shot.SettleMS)
	}
	res, err := c.Input(context.Background(), []api.Action{{Type: api.ActionWaitIdle, MS: 300, TimeoutMS: 600}})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Results[0]; r.Settled == nil || *r.Settled || r.Micros < 600_000 {
		t.Fatalf("wait_idle on a changing screen: %+v, want settled=false after 600 ms", r)
	}
	if _, err := c.Input(context.Background(), []api.Action{{Type: api.ActionWaitIdle}}); err == nil {
		t.Error("wait_idle without ms: want an error")
	}
}

// BenchmarkActionToSettledScreenshot types a line into a terminal and
// takes the screenshot that shows it: settled (wait_idle 100ms quiet,
// at most 2s, then capture) against the fixed 2s pause it replaces.
// settled-ms is the time from the action's answer to the screenshot.
//
//	go test -run '^$' -bench ActionToSettled -benchtime 10x ./agentd/
func BenchmarkActionToSettledScreenshot(b *testing.B) {
	s, c := start(b)
	startTerm(b, s.Display(), "exec cat")
	ctx := context.Background()
	for _, fixed := range []bool{false, true} {
		name := "settled"
		if fixed {
			name = "fixed2s"
		}
		b.Run(name, func(b *testing.B) {
			var total, settledN float64
			n := 0
			for b.Loop() {
				if _, err := c.Input(ctx, []api.Action{{Type: api.ActionType, Text: "echo settled\n"}}); err != nil {
					b.Fatal(err)
				}
				began := time.Now()
				o := api.ScreenshotOptions{SettleMS: 100, TimeoutMS: 2000}
				if fixed {
					time.Sleep(2 * time.Second)
					o = api.ScreenshotOptions{}
				}
				shot, err := c.Screenshot(ctx, o)
				if err != nil {
					b.Fatal(err)
				}
				total += float64(time.Since(began).Milliseconds())
				if shot.Settled != nil && *shot.Settled {
					settledN++
				}
				n++
			}
			b.ReportMetric(total/float64(n), "action-to-shot-ms")
			if !fixed {
				b.ReportMetric(settledN/float64(n), "settled-frac")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// TestWaitIdleForCommands types a command into a terminal's shell: a
// wait_idle with commands returns after the command wrote its file (a
// plain wait_idle returns while it still runs), and a command left
// running in the background keeps the wait going until its timeout.
func TestWaitIdleForCommands(t *testing.T) {
	s, c := start(t)
	ctx := context.Background()
	dir := t.TempDir()
	term := exec.Command("xterm", "-geometry", "60x10+0+0", "-e", "bash", "--norc", "--noprofile")
	term.Env = append(os.Environ(), "DISPLAY="+s.Display(), "PS1=$ ")
	term.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := term.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Process.Kill(); term.Wait() })
	ready := dir + "/ready"
	waitFor(t, "the shell", func() bool {
		c.Input(ctx, []api.Action{{Type: api.ActionMove, X: api.Int(100), Y: api.Int(60)}, {Type: api.ActionType, Text: "touch " + ready + "\n"}})
		time.Sleep(200 * time.Millisecond)
		_, err := os.Stat(ready)
		return err == nil
	})

	wait := func(commands bool, timeoutMS int) api.ActionResult {
		t.Helper()
		res, err := c.Input(ctx, []api.Action{{Type: api.ActionWaitIdle, MS: 100, TimeoutMS: timeoutMS, Commands: commands}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Results[0]
	}
	typeLine := func(line string) {
		t.Helper()
		if _, err := c.Input(ctx, []api.Action{{Type: api.ActionType, Text: line + "\n"}}); err != nil {
			t.Fatal(err)
		}
	}

	plain, done := dir+"/plain", dir+"/done"
	typeLine("sleep 1.5; echo ok > " + plain)
	if r := wait(false, 5000); r.Settled == nil || !*r.Settled {
		t.Fatalf("plain wait_idle: %+v", r)
	}
	if _, err := os.Stat(plain); err == nil {
		t.Fatal("a plain wait_idle waited for the command; the test shows nothing")
	}
	typeLine("sleep 1.5; echo ok > " + done)
	r := wait(true, 10000)
	if r.Settled == nil || !*r.Settled {
		t.Fatalf("wait_idle with commands: %+v, want settled", r)
	}
	if b, err := os.ReadFile(done); err != nil || string(b) != "ok\n" {
		t.Fatalf("after wait_idle with commands the command's file is %q, %v", b, err)
	}

	typeLine("sleep 30 &")
	if r := wait(true, 800); r.Settled == nil || *r.Settled || r.Micros < 800_000 {
		t.Fatalf("with a background command: %+v, want settled=false after 800 ms", r)
	}
	if _, err := c.Input(ctx, []api.Action{{Type: api.ActionWait, MS: 10, Commands: true}}); err == nil || !strings.Contains(err.Error(), "commands") {
		t.Errorf("commands on a wait action: %v, want an error naming commands", err)
	}
}

// TestWaitIdleForProcesses starts a program on the desktop that works
// the processor for 1.5 s, drawing nothing, then writes a file (the test
// binary itself, which starts at once on a loaded machine): a
// wait_idle with processes returns after the file is there (a plain
// wait_idle returns at once, the screen being quiet), and one whose
// timeout comes first answers settled=false.
func TestWaitIdleForProcesses(t *testing.T) {
	s, c := start(t)
	ctx := context.Background()
	dir := t.TempDir()
	display := "DISPLAY=" + s.Display()
	wait := func(processes bool, timeoutMS int) api.ActionResult {
		t.Helper()
		res, err := c.Input(ctx, []api.Action{{Type: api.ActionWaitIdle, MS: 100, TimeoutMS: timeoutMS, Processes: processes}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Results[0]
	}

	plain := dir + "/plain"
	agentdtest.Spin(t, 1500*time.Millisecond, plain, display)
	if r := wait(false, 5000); r.Settled == nil || !*r.Settled {
		t.Fatalf("plain wait_idle: %+v", r)
	}
	if _, err := os.Stat(plain); err == nil {
		t.Fatal("a plain wait_idle waited for the program; the test shows nothing")
	}
	done := dir + "/done"
	agentdtest.Spin(t, 1500*time.Millisecond, done, display)
	r := wait(true, 10000)
	if r.Settled == nil || !*r.Settled {
		t.Fatalf("wait_idle with processes: %+v, want settled", r)
	}
	if b, err := os.ReadFile(done); err != nil || string(b) != "ok" {
		t.Fatalf("after wait_idle with processes the program's file is %q, %v", b, err)
	}

	agentdtest.Spin(t, 0, "", display)
	if r := wait(true, 800); r.Settled == nil || *r.Settled || r.Micros < 800_000 {
		t.Fatalf("with a program at work: %+v, want settled=false after 800 ms", r)
	}
	if _, err := c.Input(ctx, []api.Action{{Type: api.ActionWait, MS: 10, Processes: true}}); err == nil || !strings.Contains(err.Error(), "processes") {
		t.Errorf("processes on a wait action: %v, want an error naming processes", err)
	}
}
