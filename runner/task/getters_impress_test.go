package task

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/runner/task/internal/office"
)

// withParts returns the package base with parts replaced or added.
func withParts(t *testing.T, base []byte, parts map[string][]byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(base), int64(len(base)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if _, ok := parts[f.Name]; ok {
			continue
		}
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSlideMediaGetters fetches presentations from a real home and
// grades them as OSWorld's tasks do: the audio of a slide, embedded or
// linked, compared with compare_audios (solved 1, a slide without audio
// 0), and the background picture of a slide (None while the background
// is a colour, although the slide shows a picture).
func TestSlideMediaGetters(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Fatal("ffmpeg is not installed (scripts/install-deps.sh installs it)")
	}
	deck, err := os.ReadFile(fx("deck.pptx"))
	if err != nil {
		t.Fatal(err)
	}
	rels, err := readZipPart(deck, "ppt/slides/_rels/slide1.xml.rels")
	if err != nil {
		t.Fatal(err)
	}
	slide, err := readZipPart(deck, "ppt/slides/slide1.xml")
	if err != nil {
		t.Fatal(err)
	}
	const audioType = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/audio"
	addRel := func(rel string) []byte {
		return []byte(strings.Replace(string(rels), "</Relationships>", rel+"</Relationships>", 1))
	}
	home := t.TempDir()
	readTone := func(name string, hz int) []byte {
		b, err := os.ReadFile(tone(t, name, hz, 1))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tone, other := readTone("a.wav", 440), readTone("b.wav", 1500)
	files := map[string][]byte{
		"plain.pptx": deck,
		"embedded.pptx": withParts(t, deck, map[string][]byte{
			"ppt/media/media1.wav":             tone,
			"ppt/slides/_rels/slide1.xml.rels": addRel(`<Relationship Id="rIdA" Type="` + audioType + `" Target="../media/media1.wav"/>`),
		}),
		"linked.pptx": withParts(t, deck, map[string][]byte{
			"ppt/slides/_rels/slide1.xml.rels": addRel(`<Relationship Id="rIdA" Type="` + audioType + `" Target="file://` + filepath.Join(home, "sound.wav") + `" TargetMode="External"/>`),
		}),
		"wrong.pptx": withParts(t, deck, map[string][]byte{
			"ppt/media/media1.wav":             other,
			"ppt/slides/_rels/slide1.xml.rels": addRel(`<Relationship Id="rIdA" Type="` + audioType + `" Target="../media/media1.wav"/>`),
		}),
		"background.pptx": withParts(t, deck, map[string][]byte{
			"ppt/slides/slide1.xml": []byte(strings.Replace(string(slide), `<p:bgPr><a:solidFill><a:srgbClr val="FFFFFF"/></a:solidFill>`, `<p:bgPr><a:blipFill><a:blip r:embed="rIdImg"/></a:blipFill>`, 1)),
		}),
		"sound.wav": tone,
		"tone.wav":  tone,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(home, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, done, err := newRun(&hostSandbox{home: home}, &Task{ID: "slides"}, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	get := func(kind, file string, index any) any {
		t.Helper()
		g, err := buildGetter(map[string]any{"type": kind, "ppt_file_path": filepath.Join(home, file), "slide_index": index, "dest": "out.wav"}, "result")
		if err != nil {
			t.Fatal(err)
		}
		v, err := r.get(t.Context(), g)
		if err != nil {
			t.Fatalf("%s of %s: %v", kind, file, err)
		}
		return v
	}
	score := func(result any) float64 {
		t.Helper()
		s, detail, err := lookupMetricScore(t, "compare_audios", result, filepath.Join(home, "tone.wav"), map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("compare_audios(%v): %v %s", result, s, detail)
		return s
	}
	for _, c := range []struct {
		file  string
		index any
		want  float64
	}{{"embedded.pptx", jv(t, "0"), 1}, {"linked.pptx", "0", 1}, {"plain.pptx", jv(t, "0"), 0}, {"embedded.pptx", jv(t, "3"), 0}, {"missing.pptx", jv(t, "0"), 0}} {
		if got := score(get("audio_in_slide", c.file, c.index)); got != c.want {
			t.Errorf("%s slide %v: compare_audios %v, want %v", c.file, c.index, got, c.want)
		}
	}
	if got := score(get("audio_in_slide", "wrong.pptx", jv(t, "0"))); got >= 1 {
		t.Errorf("another tone in the slide: compare_audios %v, want under 1", got)
	}

	if v := get("background_image_in_slide", "plain.pptx", jv(t, "0")); v != nil {
		t.Errorf("a colour background: got %v, want None", v)
	}
	v := get("background_image_in_slide", "background.pptx", jv(t, "0"))
	p, ok := v.(string)
	if !ok {
		t.Fatalf("picture background: got %#v, want a path", v)
	}
	want, _ := readZipPart(deck, "ppt/media/image1.png")
	if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) || !strings.HasSuffix(p, filepath.FromSlash("ppt/media/image1.png")) {
		t.Errorf("background picture at %s: %d bytes, %v; want the package's image1.png", p, len(got), err)
	}

	for _, bad := range []string{
		`{"type":"audio_in_slide","slide_index":0,"dest":"a.wav"}`,
		`{"type":"audio_in_slide","ppt_file_path":"/x.pptx","slide_index":-1,"dest":"a.wav"}`,
		`{"type":"background_image_in_slide","ppt_file_path":"/x.pptx","slide_index":"first","dest":"a.png"}`,
		`{"type":"background_image_in_slide","ppt_file_path":"/x.pptx","slide_index":0,"dest":"../a.png"}`,
	} {
		if _, err := buildGetter(jv(t, bad), "result"); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func readZipPart(pkg []byte, name string) ([]byte, error) {
	pk, err := office.OpenBytes(pkg)
	if err != nil {
		return nil, err
	}
	return pk.Read(name)
}
