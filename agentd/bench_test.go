package agentd

import (
	"testing"

	"github.com/deskrun/deskrun/api"
)

// BenchmarkHTTP measures calls a client makes through HTTP on a real
// Xvfb of 1280x800 showing xterm.
func BenchmarkHTTP(b *testing.B) {
	_, c := start(b)
	ctx := b.Context()
	sh(b, c, "xsetroot -solid '#336699'; xterm -geometry 120x40+10+10 -e 'ls -lR /usr; sleep 600' >/dev/null 2>&1 &")
	for _, bc := range []struct {
		name string
		o    api.ScreenshotOptions
	}{
		{"screenshot/png", api.ScreenshotOptions{}},
		{"screenshot/jpeg", api.ScreenshotOptions{Format: api.FormatJPEG}},
		{"screenshot/png_1024", api.ScreenshotOptions{MaxWidth: 1024}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				s, err := c.Screenshot(ctx, bc.o)
				if err != nil {
					b.Fatal(err)
				}
				n = len(s.Data)
			}
			b.ReportMetric(float64(n), "bytes")
		})
	}
	b.Run("input/move", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			if _, err := c.Input(ctx, []api.Action{{Type: api.ActionMove, X: api.Int(i % 1000), Y: api.Int(i % 700)}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cursor", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Cursor(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("exec/true", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Exec(ctx, api.ExecRequest{Cmd: []string{"true"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
