package agentd

import (
	"testing"

	"github.com/deskrun/deskrun/api/wire"
)

// BenchmarkHTTP measures calls a client makes through HTTP on a real
// Xvfb of 1280x800 showing xterm.
func BenchmarkHTTP(b *testing.B) {
	_, c := start(b)
	ctx := b.Context()
	sh(b, c, "xsetroot -solid '#336699'; xterm -geometry 120x40+10+10 -e 'ls -lR /usr; sleep 600' >/dev/null 2>&1 &")
	for _, bc := range []struct {
		name string
		o    wire.ScreenshotOptions
	}{
		{"screenshot/png", wire.ScreenshotOptions{}},
		{"screenshot/jpeg", wire.ScreenshotOptions{Format: wire.FormatJPEG}},
		{"screenshot/png_1024", wire.ScreenshotOptions{MaxWidth: 1024}},
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
			if _, err := c.Input(ctx, []wire.Action{{Type: wire.ActionMove, X: wire.Int(i % 1000), Y: wire.Int(i % 700)}}); err != nil {
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
			if _, err := c.Exec(ctx, wire.ExecRequest{Cmd: []string{"true"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
