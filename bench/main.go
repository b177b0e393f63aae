//go:build bench

// Command bench measures deskrun against the tools people use instead, side
// by side in one run, on one Xvfb display showing one fixed scene (a
// text-dense terminal over a colourful image, see scene/): screenshots
// (agentd over HTTP, in-process MIT-SHM capture, scrot, ImageMagick import),
// pointer moves (agentd over HTTP, in-process XTEST, xdotool), and typing
// fidelity (agentd vs xdotool type, exact matches over Unicode strings).
//
// It prints a Markdown table. Run it with `make bench`.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/x11"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	agentdPath string
	sceneDir   string
	shots      int
	moves      int
	trials     int
	a11yReads  int
	a11ySoak   time.Duration
	parts      string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.agentdPath, "agentd", "bin/agentd", "agentd binary")
	fs.StringVar(&o.sceneDir, "scene", "bench/scene", "folder of scene.png and scene.txt")
	fs.IntVar(&o.shots, "shots", 60, "screenshots per tool")
	fs.IntVar(&o.moves, "moves", 200, "pointer moves per tool (xdotool gets a quarter)")
	fs.IntVar(&o.trials, "trials", 50, "typing trials per tool")
	fs.IntVar(&o.a11yReads, "a11y-reads", 20, "accessibility tree reads per application")
	fs.DurationVar(&o.a11ySoak, "a11y-soak", time.Minute, "how long 16 concurrent tree readers run")
	fs.StringVar(&o.parts, "parts", "screenshots,moves,typing,a11y", "benchmarks to run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, tool := range []string{"xterm", "scrot", "import", "display", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s not installed (run scripts/install-deps.sh): %w", tool, err)
		}
	}

	d, err := startDesktop(ctx, o.agentdPath)
	if err != nil {
		return err
	}
	defer d.stop()
	fmt.Fprintf(stderr, "desktop on %s, agentd at %s\n", d.display, d.url)
	if err := d.showScene(ctx, o.sceneDir); err != nil {
		return err
	}

	var t table
	for _, p := range []struct {
		name string
		f    func(context.Context, *desktop, options, *table) error
	}{{"screenshots", benchScreenshots}, {"moves", benchMoves}, {"typing", benchTyping}, {"a11y", benchA11y}} {
		if !slices.Contains(strings.Split(o.parts, ","), p.name) {
			continue
		}
		if err := p.f(ctx, d, o, &t); err != nil {
			return err
		}
	}
	t.print(stdout)
	return nil
}

// desktop is an agentd with its own Xvfb, plus the programs of the scene.
type desktop struct {
	cmd     *exec.Cmd
	url     string
	display string
	client  *agentdclient.Client
	x       *x11.Conn
	procs   []*exec.Cmd
	tmp     string
}

func startDesktop(ctx context.Context, agentdPath string) (*desktop, error) {
	tmp, err := os.MkdirTemp("", "deskrun-bench-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(agentdPath, "--addr", "127.0.0.1:0", "--xvfb", "--screen", "1280x800x24")
	cmd.Env = append(os.Environ(), "AGENTD_TOKEN=bench")
	cmd.Stderr = io.Discard
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("start agentd: %w", err)
	}
	d := &desktop{cmd: cmd, tmp: tmp}
	var ready struct{ Addr, Display string }
	line, err := bufio.NewReader(out).ReadString('\n')
	if err == nil {
		err = json.Unmarshal([]byte(line), &ready)
	}
	if err != nil {
		d.stop()
		return nil, fmt.Errorf("read agentd ready line: %w", err)
	}
	go io.Copy(io.Discard, out)
	d.url, d.display = "http://"+ready.Addr, ready.Display
	d.client = agentdclient.NewClient(d.url, "bench", nil)
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := agentdclient.WaitHealthy(wctx, d.url, nil, 0); err != nil {
		d.stop()
		return nil, err
	}
	if d.x, err = x11.Dial(d.display); err != nil {
		d.stop()
		return nil, err
	}
	return d, nil
}

func (d *desktop) env() []string { return append(os.Environ(), "DISPLAY="+d.display, "LC_ALL=C.UTF-8") }

// spawn starts a program on the desktop that lives until stop.
func (d *desktop) spawn(name string, args ...string) error {
	c := exec.Command(name, args...)
	c.Env = d.env()
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := c.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	d.procs = append(d.procs, c)
	return nil
}

// runTool runs one command on the desktop to completion.
func (d *desktop) runTool(ctx context.Context, name string, args ...string) error {
	c := exec.CommandContext(ctx, name, args...)
	c.Env = d.env()
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", name, err, bytes.TrimSpace(out))
	}
	return nil
}

func (d *desktop) stop() {
	for _, p := range d.procs {
		_ = p.Process.Kill()
		_ = p.Wait()
	}
	if d.x != nil {
		_ = d.x.Close()
	}
	if d.cmd != nil && d.cmd.Process != nil {
		_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = d.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	_ = os.RemoveAll(d.tmp)
}

// showScene sets the wallpaper and opens the text-dense terminal, then
// waits until the terminal is on screen.
func (d *desktop) showScene(ctx context.Context, dir string) error {
	// The image fills the screen as a borderless window under the
	// terminal (ImageMagick's display cannot set the root of an Xvfb
	// without a window manager).
	if err := d.spawn("display", "-geometry", "+0+0", "-borderwidth", "0", "-title", "wallpaper", filepath.Join(dir, "scene.png")); err != nil {
		return err
	}
	if err := d.waitWindow(ctx, "wallpaper"); err != nil {
		return err
	}
	txt, err := filepath.Abs(filepath.Join(dir, "scene.txt"))
	if err != nil {
		return err
	}
	if err := d.spawn("xterm", "-geometry", "150x45+60+40", "-title", "scene",
		"-e", "sh", "-c", "cat '"+txt+"'; exec sleep 3600"); err != nil {
		return err
	}
	return d.waitWindow(ctx, "scene")
}

func (d *desktop) waitWindow(ctx context.Context, title string) error {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		wins, err := d.x.Windows()
		if err == nil {
			for _, w := range wins {
				if w.Title == title {
					time.Sleep(300 * time.Millisecond) // let it draw its text
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("window %q did not appear", title)
}

func (d *desktop) windowRect(title string) (image.Rectangle, error) {
	wins, err := d.x.Windows()
	if err != nil {
		return image.Rectangle{}, err
	}
	for _, w := range wins {
		if w.Title == title {
			return d.x.WindowGeometry(w.ID)
		}
	}
	return image.Rectangle{}, fmt.Errorf("no window %q", title)
}

// timeIt times n calls of f after one untimed call, which takes the
// start-up costs (buffers, the program's pages) out of the figures.
func timeIt(n int, f func() error) ([]time.Duration, error) {
	if err := f(); err != nil {
		return nil, err
	}
	ds := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := f(); err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(start))
	}
	return ds, nil
}

func benchScreenshots(ctx context.Context, d *desktop, o options, t *table) error {
	out := filepath.Join(d.tmp, "shot.png")
	var size int
	ours, err := timeIt(o.shots, func() error {
		s, err := d.client.Screenshot(ctx, api.ScreenshotOptions{})
		size = len(s.Data)
		return err
	})
	if err != nil {
		return fmt.Errorf("agentd screenshot: %w", err)
	}
	raw, err := timeIt(o.shots*3, func() error {
		_, err := d.x.Capture(image.Rectangle{})
		return err
	})
	if err != nil {
		return fmt.Errorf("in-process capture: %w", err)
	}
	scrot, err := timeIt(o.shots, func() error { return d.runTool(ctx, "scrot", "-o", out) })
	if err != nil {
		return err
	}
	scrotSize := fileSize(out)
	imp, err := timeIt(o.shots, func() error { return d.runTool(ctx, "import", "-window", "root", out) })
	if err != nil {
		return err
	}
	importSize := fileSize(out)

	shm := "GetImage"
	if d.x.SHM() {
		shm = "MIT-SHM"
	}
	base := median(ours)
	t.section("Screenshot of the whole 1280x800 scene", "per screenshot")
	t.row("agentd over HTTP, PNG", ours, base, fmt.Sprintf("%d KiB", size/1024))
	t.row("deskrun in-process capture ("+shm+"), raw RGBA", raw, base, "no encoding")
	t.row("scrot (one process per shot)", scrot, base, fmt.Sprintf("%d KiB", scrotSize/1024))
	t.row("ImageMagick import -window root", imp, base, fmt.Sprintf("%d KiB", importSize/1024))
	return nil
}

func benchMoves(ctx context.Context, d *desktop, o options, t *table) error {
	i := 0
	next := func() (int, int) { i++; return 100 + i%900, 100 + (i*7)%600 }
	ours, err := timeIt(o.moves, func() error {
		x, y := next()
		_, err := d.client.Input(ctx, []api.Action{{Type: api.ActionMove, X: api.Int(x), Y: api.Int(y)}})
		return err
	})
	if err != nil {
		return fmt.Errorf("agentd move: %w", err)
	}
	raw, err := timeIt(o.moves*4, func() error {
		x, y := next()
		if err := d.x.Move(x, y); err != nil {
			return err
		}
		return d.x.Sync()
	})
	if err != nil {
		return fmt.Errorf("in-process move: %w", err)
	}
	// The reference computer-use tool moves the pointer by running
	// `xdotool mousemove --sync X Y` through a shell, one process per
	// action: --sync waits until the pointer has moved, as agentd's answer
	// says the server took the move. The rows below time xdotool run that
	// way, run directly (no shell), and without --sync.
	xdoShell, err := timeIt(max(1, o.moves/4), func() error {
		x, y := next()
		return d.runTool(ctx, "sh", "-c", fmt.Sprintf("xdotool mousemove --sync %d %d", x, y))
	})
	if err != nil {
		return err
	}
	xdoSync, err := timeIt(max(1, o.moves/4), func() error {
		x, y := next()
		return d.runTool(ctx, "xdotool", "mousemove", "--sync", fmt.Sprint(x), fmt.Sprint(y))
	})
	if err != nil {
		return err
	}
	xdo, err := timeIt(max(1, o.moves/4), func() error {
		x, y := next()
		return d.runTool(ctx, "xdotool", "mousemove", fmt.Sprint(x), fmt.Sprint(y))
	})
	if err != nil {
		return err
	}
	base := median(ours)
	t.section("One pointer move", "per move")
	t.row("agentd over HTTP", ours, base, "checked by the X server")
	t.row("deskrun in-process XTEST", raw, base, "checked by the X server")
	t.row("sh -c 'xdotool mousemove --sync' (one shell and xdotool per move)", xdoShell, base, "as the reference computer-use tool runs it")
	t.row("xdotool mousemove --sync (one process per move)", xdoSync, base, "no shell")
	t.row("xdotool mousemove (one process per move)", xdo, base, "no shell, not waited for")
	return nil
}

// typingStrings are the strings of the fidelity trials: shifted ASCII,
// accented Latin, Greek, Cyrillic, CJK and typographic symbols.
var typingStrings = []string{
	`Hello, World! ~!@#$%^&*()_+{}|:"<>?`,
	"straße naïve café déjà vu",
	"Ελληνικά κείμενο",
	"Русский текст, ёжик",
	"日本語のテキスト",
	"中文输入测试",
	"한국어 문장",
	"€ — “quotes” ‘single’ … £ ¥ ©",
	"Zürich Ærø Łódź Çà",
	"mixed: abc 日本 Ωμέγα ß € 123",
}

func benchTyping(ctx context.Context, d *desktop, o options, t *table) error {
	out := filepath.Join(d.tmp, "typed.txt")
	if err := os.WriteFile(out, nil, 0o644); err != nil {
		return err
	}
	reader := `while IFS= read -r l; do printf '%s\n' "$l" >> '` + out + `'; done`
	if err := d.spawn("xterm", "-u8", "-geometry", "100x10+300+500", "-title", "typing", "-e", "sh", "-c", reader); err != nil {
		return err
	}
	if err := d.waitWindow(ctx, "typing"); err != nil {
		return err
	}
	r, err := d.windowRect("typing")
	if err != nil {
		return err
	}
	cx, cy := r.Min.X+r.Dx()/2, r.Min.Y+r.Dy()/2
	// Keyboard focus follows the pointer (no window manager): keep it on
	// the reader terminal.
	if err := d.x.Move(cx, cy); err != nil {
		return err
	}
	if err := d.x.Sync(); err != nil {
		return err
	}

	lines := 0
	trial := func(typeLine func(s string) error) (ok int, dur []time.Duration, err error) {
		for i := range o.trials {
			s := typingStrings[i%len(typingStrings)]
			start := time.Now()
			if err := typeLine(s); err != nil {
				return 0, nil, err
			}
			lines++
			got, err := waitLine(ctx, out, lines)
			if err != nil {
				// A lost newline: resynchronise on what the file holds.
				lines = countLines(out)
				continue
			}
			dur = append(dur, time.Since(start))
			if got == s {
				ok++
			}
		}
		return ok, dur, nil
	}
	oursOK, oursDur, err := trial(func(s string) error {
		_, err := d.client.Input(ctx, []api.Action{{Type: api.ActionType, Text: s + "\n"}})
		return err
	})
	if err != nil {
		return fmt.Errorf("agentd type: %w", err)
	}
	xdoOK, xdoDur, err := trial(func(s string) error {
		return d.runTool(ctx, "xdotool", "type", s+"\n")
	})
	if err != nil {
		return err
	}
	t.section(fmt.Sprintf("Typing fidelity: %d trials over %d Unicode strings", o.trials, len(typingStrings)), "per string")
	t.fidelity("agentd over HTTP (type action)", oursOK, o.trials, oursDur)
	t.fidelity("xdotool type", xdoOK, o.trials, xdoDur)
	return nil
}

// waitLine waits until file has n lines and returns line n.
func waitLine(ctx context.Context, file string, n int) (string, error) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(file)
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(data) > 0 && len(lines) >= n {
			return lines[n-1], nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return "", errors.New("timed out")
}

func countLines(file string) int {
	data, _ := os.ReadFile(file)
	return bytes.Count(data, []byte("\n"))
}

func fileSize(path string) int {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return int(fi.Size())
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// table collects Markdown rows.
type table struct{ b strings.Builder }

func (t *table) section(title, unit string) {
	fmt.Fprintf(&t.b, "\n### %s\n\n| tool | median %s | p90 | vs agentd | note |\n|---|---:|---:|---:|---|\n", title, unit)
}

func (t *table) row(name string, ds []time.Duration, base time.Duration, note string) {
	m := median(ds)
	ratio := "1.0x"
	if base > 0 && m != base {
		ratio = fmt.Sprintf("%.2fx", float64(m)/float64(base))
	}
	fmt.Fprintf(&t.b, "| %s | %s | %s | %s | %s |\n", name, short(m), short(percentile(ds, 0.9)), ratio, note)
}

func (t *table) fidelity(name string, ok, n int, ds []time.Duration) {
	fmt.Fprintf(&t.b, "| %s | %s | %s | | exact %d/%d (%.0f%%) |\n", name, short(median(ds)), short(percentile(ds, 0.9)), ok, n, 100*float64(ok)/float64(n))
}

func (t *table) print(w io.Writer) {
	fmt.Fprintln(w, "## deskrun benchmarks (same display, same scene, one run)")
	fmt.Fprint(w, t.b.String())
	fmt.Fprintln(w, "\nvs agentd: the tool's median divided by agentd's (above 1 means agentd is faster).")
}

func short(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
	default:
		return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1000)
	}
}
