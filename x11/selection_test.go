package x11

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"
)

// needXclip skips a test when xclip is missing (scripts/install-deps.sh
// installs it).
func needXclip(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("xclip"); err != nil {
		t.Skip("xclip not installed")
	}
}

// xclipOut reads a selection through xclip, as another application would.
func xclipOut(t *testing.T, display, sel, target string) []byte {
	t.Helper()
	cmd := exec.Command("xclip", "-o", "-selection", sel, "-t", target)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xclip -o -selection %s -t %s: %v: %s", sel, target, err, stderr.String())
	}
	return out
}

// xclipIn makes xclip the owner of a selection with data, and waits until
// it owns it; xclip serves it until the test ends or another client takes
// the selection.
func xclipIn(t *testing.T, c *Conn, display, sel, target string, data []byte) {
	t.Helper()
	cmd := exec.Command("xclip", "-quiet", "-i", "-selection", sel, "-t", target)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	cmd.Stdin = bytes.NewReader(data)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	s, err := c.selections()
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "xclip to own "+sel, func() bool {
		owner, err := ownerOf(s, sel)
		return err == nil && owner != 0 && owner != uint32(s.win)
	})
}

func ownerOf(s *selections, sel string) (uint32, error) {
	r, err := xproto.GetSelectionOwner(s.x, s.atoms[strings.ToUpper(sel)]).Reply()
	if err != nil {
		return 0, err
	}
	return uint32(r.Owner), nil
}

func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSelectionsWithXclip(t *testing.T) {
	needXclip(t)
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)

	t.Run("nothing owned reads empty", func(t *testing.T) {
		got, err := c.ReadSelection(Clipboard, TargetText)
		if err != nil || got != nil {
			t.Fatalf("got %q, %v; want nothing", got, err)
		}
	})
	text := "grüße, 世界 → ✓\nline 2"
	for _, tt := range []struct {
		sel   Selection
		xname string
	}{{Clipboard, "clipboard"}, {Primary, "primary"}} {
		t.Run("xclip reads what we own in "+tt.xname, func(t *testing.T) {
			if err := c.SetSelection(tt.sel, TargetText, []byte(text)); err != nil {
				t.Fatal(err)
			}
			if got := string(xclipOut(t, d, tt.xname, "UTF8_STRING")); got != text {
				t.Errorf("xclip read %q, want %q", got, text)
			}
			if got := string(xclipOut(t, d, tt.xname, "STRING")); got != "gr\xfc\xdfe, ?? ? ?\nline 2" {
				t.Errorf("xclip read STRING %q", got)
			}
			if got := string(xclipOut(t, d, tt.xname, "TARGETS")); !strings.Contains(got, "UTF8_STRING") || !strings.Contains(got, "TIMESTAMP") {
				t.Errorf("TARGETS: %q", got)
			}
		})
		t.Run("we read what xclip owns in "+tt.xname, func(t *testing.T) {
			in := "from xclip: ½ ÿ 日本 " + tt.xname
			xclipIn(t, c, d, tt.xname, "UTF8_STRING", []byte(in))
			got, err := c.ReadSelection(tt.sel, TargetText)
			if err != nil || string(got) != in {
				t.Fatalf("got %q, %v; want %q", got, err, in)
			}
			if _, err := c.ReadSelection(tt.sel, TargetPNG); !errors.Is(err, ErrNoTarget) {
				t.Errorf("an image from a text owner: got %v, want ErrNoTarget", err)
			}
		})
	}
	t.Run("a Latin-1 STRING owner", func(t *testing.T) {
		xclipIn(t, c, d, "clipboard", "STRING", []byte("caf\xe9"))
		got, err := c.ReadSelection(Clipboard, TargetText)
		if err != nil || string(got) != "café" {
			t.Fatalf("got %q, %v; want café", got, err)
		}
	})
	t.Run("large text in increments both ways", func(t *testing.T) {
		big := []byte(strings.Repeat("0123456789abcdef€ü世\n", 60000)) // 1.5 MB
		if err := c.SetSelection(Clipboard, TargetText, big); err != nil {
			t.Fatal(err)
		}
		if got := xclipOut(t, d, "clipboard", "UTF8_STRING"); !bytes.Equal(got, big) {
			t.Fatalf("xclip read %d bytes, want %d", len(got), len(big))
		}
		back := append([]byte("back: "), big...)
		xclipIn(t, c, d, "clipboard", "UTF8_STRING", back)
		got, err := c.ReadSelection(Clipboard, TargetText)
		if err != nil || !bytes.Equal(got, back) {
			t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(back))
		}
	})
	t.Run("images as PNG both ways", func(t *testing.T) {
		img := testPNG(t, 300, 200)
		if err := c.SetSelection(Clipboard, TargetPNG, img); err != nil {
			t.Fatal(err)
		}
		if got := xclipOut(t, d, "clipboard", "image/png"); !bytes.Equal(got, img) {
			t.Fatalf("xclip read %d bytes of image/png, want %d", len(got), len(img))
		}
		big := testPNG(t, 1200, 900) // over one request: in increments
		xclipIn(t, c, d, "clipboard", "image/png", big)
		got, err := c.ReadSelection(Clipboard, TargetPNG)
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(big))
		}
		if _, err := png.DecodeConfig(bytes.NewReader(got)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ownership taken by another client", func(t *testing.T) {
		if err := c.SetSelection(Clipboard, TargetText, []byte("ours")); err != nil {
			t.Fatal(err)
		}
		xclipIn(t, c, d, "clipboard", "UTF8_STRING", []byte("theirs"))
		deadline := time.Now().Add(5 * time.Second)
		for {
			got, err := c.ReadSelection(Clipboard, TargetText)
			if err == nil && string(got) == "theirs" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("got %q, %v; want theirs", got, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}
