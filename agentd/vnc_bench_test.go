package agentd

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/rfb/rfbtest"
	"github.com/deskrun/deskrun/api"
)

// BenchmarkVNCScreenshot is the agent's screenshot (PNG, full screen,
// 1280x800) with 0 and 3 live viewers attached, each asking for an
// update as soon as the last one arrived, on a screen that changes:
// viewers asking for Tight as noVNC does, and for Raw.
func BenchmarkVNCScreenshot(b *testing.B) {
	for _, tt := range []struct {
		name string
		n    int
		encs []int32
	}{
		{"viewers=0", 0, nil},
		{"viewers=3/tight", 3, liveEncodings[1].encs},
		{"viewers=3/raw", 3, liveEncodings[0].encs},
	} {
		n := tt.n
		b.Run(tt.name, func(b *testing.B) {
			s, c := start(b)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range n {
				v := dialVNC(b, s, "?view_only=1")
				v.SetEncodings(tt.encs...)
				v.Request(false)
				wg.Go(func() {
					for ctx.Err() == nil {
						if _, err := v.Read(); err != nil {
							return
						}
						v.Request(true)
					}
				})
				b.Cleanup(func() { v.Close() })
			}
			// A clock in an xterm changes the screen every 100 ms.
			sh(b, c, "xterm -geometry 40x5+0+0 -e sh -c 'while :; do date +%T.%N; sleep 0.1; done' >/dev/null 2>&1 &")
			time.Sleep(500 * time.Millisecond)
			b.ResetTimer()
			for b.Loop() {
				if _, err := c.Screenshot(ctx, api.ScreenshotOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			cancel()
		})
	}
}

// BenchmarkVNCTyping is a typing scene: each op types one character into
// an xterm and waits until a viewer has the incremental update showing
// it. It reports the latency per frame and the bytes each update carried.
func BenchmarkVNCTyping(b *testing.B) {
	s, c := start(b)
	sh(b, c, "xterm -geometry 80x24+0+0 >/dev/null 2>&1 &")
	waitFor(b, "the xterm", func() bool {
		ws, err := c.Windows(context.Background())
		return err == nil && len(ws) > 0
	})
	ctx := context.Background()
	// Without a window manager the focus follows the pointer.
	if _, err := c.Input(ctx, []api.Action{{Type: "move", X: api.Int(60), Y: api.Int(60)}}); err != nil {
		b.Fatal(err)
	}
	v := dialVNC(b, s, "?view_only=1")
	settle(b, v)
	var bytes, rects int
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		v.Request(true)
		if _, err := c.Input(ctx, []api.Action{{Type: "type", Text: string(rune('a' + i%26))}}); err != nil {
			b.Fatal(err)
		}
		got := make(chan error, 1)
		var u rfbtest.Update
		go func() {
			var err error
			u, err = v.Read()
			got <- err
		}()
		select {
		case err := <-got:
			if err != nil {
				b.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			b.Fatal("no update after typing")
		}
		bytes += u.Bytes
		rects += len(u.Rects)
	}
	b.ReportMetric(float64(bytes)/float64(b.N), "bytes/frame")
	b.ReportMetric(float64(rects)/float64(b.N), "rects/frame")
	b.ReportMetric(float64(1280*800*4), "full-frame-bytes")
}

// settle waits for the screen to be still and takes a full frame.
func settle(b *testing.B, v *rfbtest.Client) {
	time.Sleep(500 * time.Millisecond)
	v.Request(false)
	if _, err := v.Read(); err != nil {
		b.Fatal(err)
	}
}
