package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
)

// TestViewerDecodesTight opens the viewer page in headless Chromium on a
// desktop with text, a photograph-like picture and a scrolling terminal:
// its canvas (Tight with JPEG, CopyRect, inflated by the browser) shows
// the session's screenshot, exactly where the desktop has few colours
// and within JPEG's error on the picture.
func TestViewerDecodesTight(t *testing.T) {
	_, base := localServer(t)
	a := call(t, base, "POST", "/v1/sessions", testToken, `{"provider":"local","screen":{"width":1024,"height":700}}`)
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	var s api.Session
	json.Unmarshal(a.body, &s)
	exec := func(script string) {
		body, _ := json.Marshal(map[string]any{"cmd": []string{"sh", "-c", script}})
		a := call(t, base, "POST", "/v1/sessions/"+s.ID+"/exec", testToken, string(body))
		var r api.ExecResult
		json.Unmarshal(a.body, &r)
		if a.status != 200 || r.ExitCode != 0 {
			t.Fatalf("exec: %d %s", a.status, a.body)
		}
	}
	// A picture of gradients and noise (a PPM ImageMagick's display shows)
	// beside an xterm.
	var ppm bytes.Buffer
	fmt.Fprintf(&ppm, "P6 320 240 255\n")
	for y := range 240 {
		for x := range 320 {
			n := (x*7 + y*13) % 23
			ppm.Write([]byte{byte(x*255/320 + n), byte(y*255/240 - n), byte((x+y)/3 + n/2)})
		}
	}
	photo := t.TempDir() + "/photo.ppm"
	if a := call(t, base, "PUT", "/v1/sessions/"+s.ID+"/files?path="+photo, testToken, ppm.String()); a.status/100 != 2 {
		t.Fatalf("write the picture: %d %s", a.status, a.body)
	}
	exec("xsetroot -solid '#3366cc'; (xterm -geometry 70x20+40+40 -e sh -c 'ls -l /usr/bin | head -40; sleep 600' >/dev/null 2>&1 &); " +
		"(display -geometry +650+380 " + photo + " >/dev/null 2>&1 &)")
	time.Sleep(2 * time.Second)

	b := openBrowser(t, base+"/v1/sessions/"+s.ID+"/view?ticket="+newTicket(t, base, s.ID))
	var last string
	deadline := time.Now().Add(40 * time.Second)
	for {
		var frames, status, data string
		b.eval("document.body.dataset.frames || ''", &frames)
		b.eval(`document.getElementById("status").textContent`, &status)
		if frames != "" {
			b.eval(`document.getElementById("screen").toDataURL("image/png")`, &data)
		}
		if d, ok := strings.CutPrefix(data, "data:image/png;base64,"); ok {
			raw, _ := base64.StdEncoding.DecodeString(d)
			got, err := png.Decode(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			a := call(t, base, "GET", "/v1/sessions/"+s.ID+"/screenshot", testToken, "")
			want, err := png.Decode(bytes.NewReader(a.body))
			if err != nil {
				t.Fatal(err)
			}
			if r, g, b, _ := want.At(1000, 690).RGBA(); r>>8 != 0x33 || g>>8 != 0x66 || b>>8 != 0xcc {
				t.Fatalf("the desktop's root is %02x%02x%02x, want 3366cc", r>>8, g>>8, b>>8)
			}
			exact, sum, n := 0, 0, 0
			for y := range 700 {
				for x := range 1024 {
					r1, g1, b1, _ := want.At(x, y).RGBA()
					r2, g2, b2, _ := got.At(x, y).RGBA()
					d := int(absDiff(r1>>8, r2>>8) + absDiff(g1>>8, g2>>8) + absDiff(b1>>8, b2>>8))
					if d == 0 {
						exact++
					}
					sum += d
					n++
				}
			}
			fe, mean := float64(exact)/float64(n), float64(sum)/float64(3*n)
			last = fmt.Sprintf("%s frames, %.4f of pixels exact, mean error %.2f", frames, fe, mean)
			// The picture's tiles (a sixth of the screen) are JPEG.
			if fe > 0.8 && mean < 2 && got.Bounds() == image.Rect(0, 0, 1024, 700) {
				t.Logf("viewer: %s (status %q)", last, status)
				if p := os.Getenv("DESKRUN_VIEW_SHOT"); p != "" {
					os.WriteFile(p, raw, 0o644)
				}
				return
			}
		} else {
			last = "no frame yet; status " + status
		}
		if time.Now().After(deadline) {
			t.Fatalf("the viewer never showed the desktop: %s", last)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func absDiff(a, b uint32) uint32 { return max(a, b) - min(a, b) }
