package agentdtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
)

// FreshTerminalTexts alternate text the keyboard map types with text
// none of whose letters have a key on a US map (accents, CJK, Hangul,
// Cyrillic, Greek, Hebrew), so that every second trial binds spare
// keycodes and the one after it starts while those bindings are undone.
var FreshTerminalTexts = []string{
	"plain ascii 0123456789 the quick brown fox",
	"Straße café naïve Ångström façade",
	`shifted ~!@#$%^&*()_+{}|:"<>? QWERTY`,
	"中文输入测试 日本語のテキスト",
	"lower and UPPER case, commas; and dots.",
	"한국어 텍스트 Кириллица съешь",
	"symbols -=[]\\;',./` and digits 42",
	"Ελληνικά αβγδε ΑΒΓΔΕ עברית שלום",
}

// FreshTerminalTrial is the outcome of one trial of [FreshTerminalTrials].
type FreshTerminalTrial struct {
	Text  string // what was typed
	Got   string // what the terminal's program received
	Input api.InputResult
	Err   error // the input call's error, if it answered one
	// Focus names the window that had the keyboard focus when the input
	// call answered, as xdotool reads it.
	Focus string
}

// Exact reports whether the terminal received the text exactly.
func (r FreshTerminalTrial) Exact() bool { return r.Err == nil && r.Got == r.Text+"\n" }

// Lost reports whether the input call answered ok for every action and
// the terminal did not receive the text: typed input lost without a word.
func (r FreshTerminalTrial) Lost() bool {
	if r.Err != nil || r.Exact() {
		return false
	}
	for _, a := range r.Input.Results {
		if !a.OK {
			return false
		}
	}
	return true
}

// FreshTerminalTrials runs n trials of what an agent does first on a
// desktop: it starts a terminal (xterm running cat into a file) through
// agentd's exec, waits until the window is listed and 300 ms more, then
// sends ONE input call that clicks into the window at (200, 60), types a
// line of [FreshTerminalTexts] (alternating), presses Return and ctrl+d.
// It returns each trial's outcome once the terminal's program ended or
// had the line; an input call that answers an error counts as refused,
// not lost. The terminal is an independent program: what it wrote is
// what the keyboard delivered.
func FreshTerminalTrials(t *testing.T, c *agentdclient.Client, n int) []FreshTerminalTrial {
	t.Helper()
	var out []FreshTerminalTrial
	start := time.Now()
	for i := range n {
		text := FreshTerminalTexts[i%len(FreshTerminalTexts)]
		r, err := freshTerminalTrial(t.Context(), c, i, text)
		if err != nil {
			t.Fatalf("trial %d: %v", i, err)
		}
		out = append(out, r)
	}
	t.Logf("%d trials in %v", n, time.Since(start).Round(time.Millisecond))
	return out
}

func freshTerminalTrial(ctx context.Context, c *agentdclient.Client, i int, text string) (FreshTerminalTrial, error) {
	r := FreshTerminalTrial{Text: text}
	dir := fmt.Sprintf("/tmp/fresh-%d-%d", time.Now().UnixNano(), i)
	title := fmt.Sprintf("fresh-terminal-%d", i)
	file, done := dir+"/typed.txt", dir+"/done"
	start := `mkdir -p "$1" && (LC_ALL=C.UTF-8 LANG=C.UTF-8 setsid xterm -T "$4" -geometry 80x10+40+40 -u8 -e sh -c 'cat > "$1"; touch "$2"' sh "$2" "$3" </dev/null >/dev/null 2>&1 &)`
	res, err := c.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", start, "sh", dir, file, done, title}})
	if err != nil || res.ExitCode != 0 {
		return r, fmt.Errorf("start xterm: %+v %v", res, err)
	}
	if err := waitUntil(ctx, 60*time.Second, func() bool {
		ws, err := c.Windows(ctx)
		for _, w := range ws {
			if w.Title == title {
				return true
			}
		}
		return err != nil && ctx.Err() != nil
	}); err != nil {
		return r, fmt.Errorf("the terminal's window was not listed: %w", err)
	}
	time.Sleep(300 * time.Millisecond)
	r.Input, r.Err = c.Input(ctx, []api.Action{
		{Type: api.ActionClick, X: api.Int(200), Y: api.Int(60), Button: "left", Count: 1},
		{Type: api.ActionType, Text: text},
		{Type: api.ActionKey, Keys: []string{"Return"}},
		{Type: api.ActionKey, Keys: []string{"ctrl", "d"}},
	})
	if f, err := c.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", "xdotool getwindowfocus getwindowname 2>&1 | head -1"}}); err == nil {
		r.Focus = strings.TrimSpace(f.Stdout)
	}
	if r.Err != nil {
		// the keys may not have reached the terminal: close it so it
		// does not take the next trial's input
		_, _ = c.Exec(ctx, api.ExecRequest{Cmd: []string{"pkill", "-f", "-x", "xterm -T " + title + " .*"}})
		return r, nil
	}
	// The line arrives at once on a quiet machine; under load the
	// terminal may run seconds behind. The program's end (ctrl+d) or the
	// whole line ends the wait, and a line that never arrives is waited
	// for 30 s: far past any lag seen, and only lost trials pay it.
	_ = waitUntil(ctx, 30*time.Second, func() bool {
		if _, err := c.ReadFile(ctx, done); err == nil {
			return true
		}
		b, _ := c.ReadFile(ctx, file)
		return strings.HasSuffix(string(b), "\n")
	})
	b, _ := c.ReadFile(ctx, file)
	r.Got = string(b)
	if _, err := c.ReadFile(ctx, done); err != nil {
		_, _ = c.Exec(ctx, api.ExecRequest{Cmd: []string{"pkill", "-f", "xterm -T " + title + " "}})
	}
	return r, nil
}

func waitUntil(ctx context.Context, limit time.Duration, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}
