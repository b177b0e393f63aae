package x11

import (
	"image"
	"testing"
)

func BenchmarkCapture(b *testing.B) {
	d := startXvfb(b, "1280x800x24")
	c := dial(b, d)
	for _, shm := range []bool{true, false} {
		name := "GetImage"
		if shm {
			name = "MIT-SHM"
		}
		b.Run(name+"/1280x800", func(b *testing.B) {
			c.capMu.Lock()
			s := c.shm
			if !shm {
				c.shm = nil
			}
			c.capMu.Unlock()
			defer func() { c.capMu.Lock(); c.shm = s; c.capMu.Unlock() }()
			if shm && s == nil {
				b.Skip("MIT-SHM unavailable")
			}
			b.SetBytes(1280 * 800 * 4)
			for b.Loop() {
				if _, err := c.Capture(image.Rectangle{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMoveBatch is a pointer move queued in batches of 100, each
// batch sent in one write and checked in one round trip.
func BenchmarkMoveBatch(b *testing.B) {
	d := startXvfb(b, "1280x800x24")
	c := dial(b, d)
	i := 0
	for b.Loop() {
		i++
		if err := c.Move(i%1280, i%800); err != nil {
			b.Fatal(err)
		}
		if i%100 == 0 {
			if err := c.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := c.Sync(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkType(b *testing.B) {
	d := startXvfb(b, "1280x800x24")
	c := dial(b, d)
	for _, s := range []struct{ name, text string }{
		{"ascii", "The quick brown fox jumps over the lazy dog 0123456789"},
		{"unicode", "Straße café € — “quoted” 中文 Ελληνικά"},
	} {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.Type(s.text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMoveSync is one checked pointer move: the XTEST request and
// the request that answers for it, written together, and the round trip
// that reports whether the server refused it (what agentd does for each
// action).
func BenchmarkMoveSync(b *testing.B) {
	d := startXvfb(b, "1280x800x24")
	c := dial(b, d)
	i := 0
	for b.Loop() {
		i++
		if err := c.Move(i%1280, i%800); err != nil {
			b.Fatal(err)
		}
		if err := c.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCursor is one QueryPointer round trip.
func BenchmarkCursor(b *testing.B) {
	d := startXvfb(b, "1280x800x24")
	c := dial(b, d)
	for b.Loop() {
		if _, _, err := c.Cursor(); err != nil {
			b.Fatal(err)
		}
	}
}
