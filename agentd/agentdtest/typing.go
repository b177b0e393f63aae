package agentdtest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
)

// UnicodeLines are ten lines of text across scripts and symbols, most of
// whose characters have no key on a US keyboard map.
var UnicodeLines = []string{
	"hello world 0123456789",
	`Shifted: ~!@#$%^&*()_+{}|:"<>? QWERTY`,
	"Straße, café, naïve, Ångström, façade, Øresund, ñandú",
	"Ελληνικά: αβγδε ΑΒΓΔΕ",
	"Кириллица: съешь же ещё этих",
	"中文输入测试，日本語のテキスト",
	"한국어 텍스트",
	"€ — “quoted” ‘single’ … ± × ÷ ≠ ≤ ≥ → ★",
	"mixed: aß€中b Ωω ÿŸ ĳ œŒ replacement",
	"symbols: -=[]\\;',./`",
}

// Terminal is where TypeInTerminals types: an agentd's URL and token.
type Terminal struct {
	URL, Token string
}

// TypeInTerminals opens a terminal on each desktop at once, types
// UnicodeLines into every one of them concurrently (one input call per
// line, as an agent does) and fails the test for each line that did not
// arrive exactly; it returns how many of all the lines did.
func TypeInTerminals(t *testing.T, desks []Terminal) int {
	t.Helper()
	// A liveness bound: on a 2-core machine loaded to 20 by other work, 3
	// minutes ran out with one terminal of eight still empty (its xterm
	// starved, or the keys went elsewhere: the bound could not tell).
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	var mu sync.Mutex
	exact := 0
	var wg sync.WaitGroup
	for i, d := range desks {
		wg.Go(func() {
			c := agentdclient.NewClient(d.URL, d.Token, nil)
			got, err := typeInTerminal(ctx, c)
			if err != nil {
				t.Errorf("desk %d: %v", i, err)
				return
			}
			gl := strings.Split(got, "\n")
			for j, want := range UnicodeLines {
				g := ""
				if j < len(gl) {
					g = gl[j]
				}
				if g != want {
					t.Errorf("desk %d line %d: got %q, want %q", i, j, g, want)
					continue
				}
				mu.Lock()
				exact++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("%d of %d lines arrived exactly", exact, len(desks)*len(UnicodeLines))
	return exact
}

func typeInTerminal(ctx context.Context, c *agentdclient.Client) (string, error) {
	dir := fmt.Sprintf("/tmp/typing-%d", time.Now().UnixNano())
	out, ready := dir+"/typed.txt", dir+"/ready"
	r, err := c.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", `mkdir -p "$1" && (LC_ALL=C.UTF-8 LANG=C.UTF-8 xterm -geometry 100x20+0+0 -u8 -e sh -c 'stty -echo; touch "$1"; exec cat > "$2"' sh "$2" "$3" >/dev/null 2>&1 &)`, "sh", dir, ready, out}})
	if err != nil || r.ExitCode != 0 {
		return "", fmt.Errorf("start xterm: %+v %v", r, err)
	}
	for {
		if _, err := c.ReadFile(ctx, ready); err == nil {
			break
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("xterm did not start: %w", ctx.Err())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the window mapped
	if _, err := c.Input(ctx, []api.Action{{Type: api.ActionClick, X: api.Int(200), Y: api.Int(100), Button: "left", Count: 1}}); err != nil {
		return "", fmt.Errorf("click into the terminal: %w", err)
	}
	for _, l := range UnicodeLines {
		if _, err := c.Input(ctx, []api.Action{{Type: api.ActionType, Text: l + "\n"}}); err != nil {
			return "", fmt.Errorf("type %q: %w", l, err)
		}
	}
	for {
		b, _ := c.ReadFile(ctx, out)
		if strings.Count(string(b), "\n") >= len(UnicodeLines) || ctx.Err() != nil {
			return string(b), nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}
