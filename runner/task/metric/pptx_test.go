package metric

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/office"
)

const (
	deckPath   = "testdata/metrics/deck.pptx"
	deckLOPath = "testdata/metrics/deck-lo.pptx"
)

// edit is one change to a part of a package: old replaced by new n times
// (all when n is 0); the test fails if old is not there.
type edit struct {
	part, old, new string
	n              int
}

// editedCopy writes src with the edits applied to a temporary file and
// returns its path.
func editedCopy(t testing.TB, src string, edits ...edit) string {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range edits {
			if e.part != f.Name {
				continue
			}
			if !bytes.Contains(data, []byte(e.old)) {
				t.Fatalf("%s: %q not found", e.part, e.old)
			}
			n := e.n
			if n == 0 {
				n = -1
			}
			data = []byte(strings.Replace(string(data), e.old, e.new, n))
		}
		w, err := zw.Create(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func testEnv(t testing.TB) context.Context { return context.Background() }

func TestComparePptxFiles(t *testing.T) {
	const s1 = "ppt/slides/slide1.xml"
	tests := []struct {
		name  string
		src   string
		edits []edit
		opts  map[string]any
		want  float64
	}{
		{name: "identical LibreOffice deck", src: deckLOPath, want: 1},
		{name: "identical hand-written deck", src: deckPath, want: 1},
		{name: "font name", src: deckLOPath, edits: []edit{{s1, `typeface="Arial"`, `typeface="Liberation Serif"`, 1}}, want: 0},
		{name: "font name not examined", src: deckLOPath, edits: []edit{{s1, `typeface="Arial"`, `typeface="Liberation Serif"`, 1}}, opts: map[string]any{"examine_font_name": false}, want: 1},
		{name: "font size", src: deckLOPath, edits: []edit{{s1, `sz="2400"`, `sz="2600"`, 1}}, want: 0},
		{name: "font size not examined", src: deckLOPath, edits: []edit{{s1, `sz="2400"`, `sz="2600"`, 1}}, opts: map[string]any{"examine_font_size": false}, want: 1},
		{name: "bold", src: deckLOPath, edits: []edit{{s1, `b="1"`, `b="0"`, 1}}, want: 0},
		{name: "bold not examined", src: deckLOPath, edits: []edit{{s1, `b="1"`, `b="0"`, 1}}, opts: map[string]any{"examine_font_bold": false}, want: 1},
		{name: "italic", src: deckLOPath, edits: []edit{{s1, `i="1"`, `i="0"`, 1}}, want: 0},
		{name: "italic not examined", src: deckLOPath, edits: []edit{{s1, `i="1"`, `i="0"`, 1}}, opts: map[string]any{"examine_font_italic": false}, want: 1},
		{name: "colour", src: deckLOPath, edits: []edit{{s1, `<a:solidFill><a:srgbClr val="1f4e79"/>`, `<a:solidFill><a:srgbClr val="ff0000"/>`, 1}}, want: 0},
		{name: "colour case", src: deckLOPath, edits: []edit{{s1, `<a:solidFill><a:srgbClr val="1f4e79"/>`, `<a:solidFill><a:srgbClr val="1F4E79"/>`, 1}}, want: 1},
		{name: "colour not examined", src: deckLOPath, edits: []edit{{s1, `<a:solidFill><a:srgbClr val="1f4e79"/>`, `<a:solidFill><a:srgbClr val="ff0000"/>`, 1}}, opts: map[string]any{"examine_color_rgb": false}, want: 1},
		{name: "scheme colour has no rgb", src: deckLOPath, edits: []edit{{s1, `<a:solidFill><a:srgbClr val="1f4e79"/></a:solidFill>`, `<a:solidFill><a:schemeClr val="accent1"/></a:solidFill>`, 1}}, want: 1},
		{name: "underline", src: deckLOPath, edits: []edit{{s1, `u="sng"`, `u="dbl"`, 1}}, want: 0},
		{name: "underline not examined", src: deckLOPath, edits: []edit{{s1, `u="sng"`, `u="dbl"`, 1}}, opts: map[string]any{"examine_font_underline": false}, want: 1},
		{name: "strike", src: deckLOPath, edits: []edit{{s1, `strike="noStrike"`, `strike="sngStrike"`, 1}}, want: 0},
		{name: "strike not examined", src: deckLOPath, edits: []edit{{s1, `strike="noStrike"`, `strike="sngStrike"`, 1}}, opts: map[string]any{"examine_strike_through": false}, want: 1},
		{name: "alignment", src: deckLOPath, edits: []edit{{s1, `<a:pPr indent="0">`, `<a:pPr indent="0" algn="ctr">`, 1}}, want: 0},
		{name: "alignment not examined", src: deckLOPath, edits: []edit{{s1, `<a:pPr indent="0">`, `<a:pPr indent="0" algn="ctr">`, 1}}, opts: map[string]any{"examine_alignment": false}, want: 1},
		{name: "misspelt option is ignored", src: deckLOPath, edits: []edit{{s1, `<a:pPr indent="0">`, `<a:pPr indent="0" algn="ctr">`, 1}}, opts: map[string]any{"examine_aligment": false}, want: 0},
		{name: "level", src: deckLOPath, edits: []edit{{s1, `lvl="1"`, `lvl="2"`, 1}}, want: 0},
		{name: "level not examined (bullets see it too)", src: deckLOPath, edits: []edit{{s1, `lvl="1"`, `lvl="2"`, 1}}, opts: map[string]any{"examine_indent": false, "examine_bullets": false}, want: 1},
		{name: "text", src: deckLOPath, edits: []edit{{s1, "Revenue grew", "Revenue fell", 1}}, want: 0},
		{name: "text not examined (bullets see it too)", src: deckLOPath, edits: []edit{{s1, "Revenue grew", "Revenue fell", 1}}, opts: map[string]any{"examine_text": false, "examine_bullets": false}, want: 1},
		{name: "text surrounding space", src: deckPath, edits: []edit{{"ppt/slides/slide2.xml", "<a:t>Details</a:t>", "<a:t>Details </a:t>", 1}}, opts: map[string]any{"examine_bullets": false}, want: 0},
		{name: "bullet character", src: deckLOPath, edits: []edit{{s1, `<a:buChar char="-"/>`, `<a:buChar char="+"/>`, 1}}, want: 0},
		{name: "bullet character not examined", src: deckLOPath, edits: []edit{{s1, `<a:buChar char="-"/>`, `<a:buChar char="+"/>`, 1}}, opts: map[string]any{"examine_bullets": false}, want: 1},
		{name: "shape moved", src: deckLOPath, edits: []edit{{s1, `<a:off x="457200" y="1600200"/>`, `<a:off x="457200" y="1700200"/>`, 1}}, want: 0},
		{name: "shape moved not examined", src: deckLOPath, edits: []edit{{s1, `<a:off x="457200" y="1600200"/>`, `<a:off x="457200" y="1700200"/>`, 1}}, opts: map[string]any{"examine_shape": false}, want: 1},
		{name: "notes", src: deckLOPath, edits: []edit{{"ppt/notesSlides/notesSlide1.xml", "Mention the new office.", "Something else.", 1}}, want: 0},
		{name: "notes surrounding space", src: deckLOPath, edits: []edit{{"ppt/notesSlides/notesSlide1.xml", "Mention the new office.", " Mention the new office. ", 1}}, want: 1},
		{name: "notes not examined", src: deckLOPath, edits: []edit{{"ppt/notesSlides/notesSlide1.xml", "Mention the new office.", "Something else.", 1}}, opts: map[string]any{"examine_note": false}, want: 1},
		{name: "background colour", src: deckLOPath, edits: []edit{{s1, `<a:srgbClr val="ffffff"/></a:solidFill></p:bgPr>`, `<a:srgbClr val="000000"/></a:solidFill></p:bgPr>`, 1}}, want: 0},
		{name: "background colour not examined", src: deckLOPath, edits: []edit{{s1, `<a:srgbClr val="ffffff"/></a:solidFill></p:bgPr>`, `<a:srgbClr val="000000"/></a:solidFill></p:bgPr>`, 1}}, opts: map[string]any{"examine_background_color": false}, want: 1},
		{name: "slide removed", src: deckPath, edits: []edit{{"ppt/presentation.xml", `<p:sldId id="257" r:id="rId3"/>`, ``, 1}}, want: 0},
		{name: "slide removed not examined", src: deckPath, edits: []edit{{"ppt/presentation.xml", `<p:sldId id="257" r:id="rId3"/>`, ``, 1}}, opts: map[string]any{"examine_number_of_slides": false}, want: 1},
		{name: "placeholder position inherited from the layout", src: deckPath, edits: []edit{{"ppt/slideLayouts/slideLayout1.xml", `<a:off x="457200" y="274638"/>`, `<a:off x="457200" y="300000"/>`, 1}}, want: 0},
		{name: "picture resized, image size examined", src: deckPath, edits: []edit{{s1, `<a:ext cx="914400" cy="914400"/>`, `<a:ext cx="914400" cy="1000000"/>`, 1}}, opts: map[string]any{"examine_shape": false, "examine_image_size": true}, want: 0},
		{name: "picture moved, image size examined", src: deckPath, edits: []edit{{s1, `<a:off x="6400800" y="457200"/>`, `<a:off x="6000000" y="457200"/>`, 1}}, opts: map[string]any{"examine_shape": false, "examine_image_size": true}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.src
			if len(tt.edits) > 0 {
				got = editedCopy(t, tt.src, tt.edits...)
			}
			opts := tt.opts
			if opts == nil {
				opts = map[string]any{}
			}
			s, detail, err := comparePptxFiles(testEnv(t), got, tt.src, opts)
			if err != nil {
				t.Fatal(err)
			}
			if s != tt.want {
				t.Errorf("score %v (%s), want %v", s, detail, tt.want)
			}
			if s == 0 && detail == "" {
				t.Error("a 0 without a detail")
			}
		})
	}
}

func TestComparePptxFilesUnreadable(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pptx")
	os.WriteFile(garbage, []byte("not a zip at all"), 0o644)
	data, _ := os.ReadFile(deckLOPath)
	truncated := filepath.Join(dir, "truncated.pptx")
	os.WriteFile(truncated, data[:len(data)/2], 0o644)
	noSlide := editedCopy(t, deckPath, edit{part: "ppt/_rels/presentation.xml.rels", old: `Target="slides/slide2.xml"`, new: `Target="slides/slide9.xml"`})
	badXML := editedCopy(t, deckPath, edit{part: "ppt/slides/slide1.xml", old: `</p:sld>`, new: ``})
	for _, tt := range []struct {
		name             string
		result, expected any
		detail           string
	}{
		{"missing result", filepath.Join(dir, "nope.pptx"), deckPath, "file not found"},
		{"missing expected", deckPath, filepath.Join(dir, "nope.pptx"), "expected:"},
		{"no result", nil, deckPath, "no result"},
		{"not a path", 3.0, deckPath, "want a file path"},
		{"garbage", garbage, deckPath, "not an OOXML package"},
		{"truncated", truncated, deckPath, "not an OOXML package"},
		{"slide part missing", noSlide, deckPath, "slide9.xml"},
		{"malformed slide XML", badXML, deckPath, "slide1.xml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, detail, err := comparePptxFiles(testEnv(t), tt.result, tt.expected, map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			if s != 0 || !strings.Contains(detail, tt.detail) {
				t.Errorf("got %v %q, want 0 with %q", s, detail, tt.detail)
			}
		})
	}
}

func TestPptxPlaceholderInheritance(t *testing.T) {
	d, err := office.OpenPptx(context.Background(), deckPath)
	if err != nil {
		t.Fatal(err)
	}
	title := d.Slides[0].Shapes[0]
	if title.ShapeType != office.ShapePlaceholder || optInt(title.Left) != "457200" || optInt(title.Top) != "274638" || optInt(title.Width) != "8229600" || optInt(title.Height) != "1143000" {
		t.Errorf("title: type %d at %s", title.ShapeType, boxString(title))
	}
	if got := d.Slides[0].Shapes[1].ShapeType; got != office.ShapeTextBox {
		t.Errorf("text box type %d", got)
	}
	if got := d.Slides[1].Shapes[1].ShapeType; got != office.ShapeTable {
		t.Errorf("table type %d", got)
	}
	if d.Slides[0].Notes != "Mention the new office." || d.Slides[1].Notes != "" {
		t.Errorf("notes %q, %q", d.Slides[0].Notes, d.Slides[1].Notes)
	}
}

func TestCheckTransition(t *testing.T) {
	rules := func(idx int, typ string) map[string]any {
		return map[string]any{"slide_idx": py.IntNumber(idx), "transition_type": typ}
	}
	for _, tt := range []struct {
		name  string
		file  any
		rules map[string]any
		want  float64
	}{
		{"dissolve on the first slide", deckLOPath, rules(0, "dissolve"), 1},
		{"another transition", deckLOPath, rules(0, "fade"), 0},
		{"no transition", deckLOPath, rules(1, "dissolve"), 0},
		{"no such slide", deckLOPath, rules(7, "dissolve"), 0},
		{"missing file", "testdata/metrics/none.pptx", rules(0, "dissolve"), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, detail, err := checkTransition(testEnv(t), tt.file, tt.rules, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s != tt.want {
				t.Errorf("score %v (%s), want %v", s, detail, tt.want)
			}
		})
	}
}

func TestPresentationFillDistance(t *testing.T) {
	black := editedCopy(t, deckPath, edit{part: "ppt/slides/slide2.xml", old: `<a:srgbClr val="FFFFFF"/>`, new: `<a:srgbClr val="000000"/>`})
	inherit := editedCopy(t, deckPath,
		edit{part: "ppt/slides/slide1.xml", old: `<p:bg><p:bgPr><a:solidFill><a:srgbClr val="FFFFFF"/></a:solidFill><a:effectLst/></p:bgPr></p:bg>`, new: ``},
		edit{part: "ppt/slideMasters/slideMaster1.xml", old: `<a:srgbClr val="FFFFFF"/>`, new: `<a:srgbClr val="000000"/>`})
	for _, tt := range []struct {
		name string
		file string
		rgb  []any
		want float64
	}{
		{"all white, want white", deckLOPath, []any{255.0, 255.0, 255.0}, 1},
		{"all white, want black", deckPath, []any{0.0, 0.0, 0.0}, 0},
		{"half black", black, []any{255.0, 255.0, 255.0}, 0.5},
		{"slide without background takes the master's", inherit, []any{255.0, 255.0, 255.0}, 0.5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, detail, err := presentationFillDistance(testEnv(t), tt.file, map[string]any{"rgb": tt.rgb}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s != tt.want {
				t.Errorf("score %v (%s), want %v", s, detail, tt.want)
			}
		})
	}
}

func xcu(t *testing.T, items string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "registrymodifications.xcu")
	data := `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
` + items + "\n</oor:items>\n"
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRegistryMetrics(t *testing.T) {
	autosave := func(v string) string {
		return `<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="AutoSaveTimeIntervall" oor:op="fuse"><value>` + v + `</value></prop></item>`
	}
	presenter := func(v string) string {
		return `<item oor:path="/org.openoffice.Office.Impress/Misc/Start"><prop oor:name="EnablePresenterScreen" oor:op="fuse"><value>` + v + `</value></prop></item>`
	}
	for _, tt := range []struct {
		name string
		fn   Func
		file string
		exp  any
		want float64
	}{
		{"autosave 3", checkAutoSavingTime, xcu(t, autosave("3")), map[string]any{"minutes": json.Number("3")}, 1},
		{"autosave 10", checkAutoSavingTime, xcu(t, autosave("10")), map[string]any{"minutes": json.Number("3")}, 0},
		{"autosave unset", checkAutoSavingTime, xcu(t, ""), map[string]any{"minutes": json.Number("3")}, 0},
		{"autosave not a number", checkAutoSavingTime, xcu(t, autosave("x")), map[string]any{"minutes": json.Number("3")}, 0},
		{"autosave missing file", checkAutoSavingTime, "testdata/metrics/none.xcu", map[string]any{"minutes": json.Number("3")}, 0},
		{"presenter off", checkPresenterConsoleDisable, xcu(t, presenter("false")), nil, 1},
		{"presenter on", checkPresenterConsoleDisable, xcu(t, presenter("true")), nil, 0},
		{"presenter unset", checkPresenterConsoleDisable, xcu(t, ""), nil, 0},
		{"presenter malformed", checkPresenterConsoleDisable, xcu(t, "<item>"), nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, detail, err := tt.fn(testEnv(t), tt.file, tt.exp, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s != tt.want {
				t.Errorf("score %v (%s), want %v", s, detail, tt.want)
			}
		})
	}
}

func TestCheckPageNumberColors(t *testing.T) {
	master := func(colour string) string {
		return editedCopy(t, deckPath, edit{part: "ppt/slideMasters/slideMaster1.xml", old: `</p:spTree>`,
			new: `<p:sp><p:spPr><a:solidFill><a:srgbClr val="` + colour + `"/></a:solidFill></p:spPr></p:sp></p:spTree><p:txStyles><a:solidFill><a:srgbClr val="000000"/></a:solidFill></p:txStyles>`})
	}
	for _, tt := range []struct {
		name, file, colour string
		want               float64
	}{
		{"red wanted red", master("E02020"), "red", 1},
		{"blue wanted red", master("2020E0"), "red", 0},
		{"blue wanted blue", master("2020E0"), "blue", 1},
		{"green wanted green", master("20E020"), "green", 1},
		{"black wanted black", master("101010"), "black", 1},
		{"grey wanted black", master("808080"), "black", 0},
		{"too few colours", deckPath, "red", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, detail, err := checkPageNumberColors(testEnv(t), tt.file, map[string]any{"color": tt.colour}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s != tt.want {
				t.Errorf("score %v (%s), want %v", s, detail, tt.want)
			}
		})
	}
}

func TestCheckImageStretchAndCenter(t *testing.T) {
	const s1 = "ppt/slides/slide1.xml"
	stretched := editedCopy(t, deckPath, edit{part: s1, old: `<a:off x="6400800" y="457200"/><a:ext cx="914400" cy="914400"/>`, new: `<a:off x="100000" y="0"/><a:ext cx="9000000" cy="6858000"/>`})
	offCentre := editedCopy(t, deckPath, edit{part: s1, old: `<a:off x="6400800" y="457200"/><a:ext cx="914400" cy="914400"/>`, new: `<a:off x="700000" y="0"/><a:ext cx="9000000" cy="6858000"/>`})
	for _, tt := range []struct {
		name string
		file string
		want float64
	}{
		{"stretched and centred", stretched, 1},
		{"stretched, off centre", offCentre, 0},
		{"unchanged", deckPath, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, detail, err := checkImageStretchAndCenter(testEnv(t), tt.file, deckPath, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s != tt.want {
				t.Errorf("score %v (%s), want %v", s, detail, tt.want)
			}
		})
	}
}

func FuzzParsePptx(f *testing.F) {
	for _, p := range []string{deckPath, deckLOPath} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), metricDeadline)
		defer cancel()
		d, err := office.ParsePptx(ctx, data)
		if err != nil {
			return
		}
		// A readable deck compares with itself.
		if s, detail := comparePptx(d, d, newPptxOptions(nil), 0.005); s != 1 {
			t.Errorf("self comparison %v: %s", s, detail)
		}
	})
}

func FuzzParseXML(f *testing.F) {
	f.Add([]byte(`<a xmlns:p="x"><p:b c="1">t</p:b></a>`))
	f.Add([]byte(`<a><b>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		office.ParseStrict(context.Background(), data)
	})
}

func BenchmarkComparePptxFiles(b *testing.B) {
	env := context.Background()
	for b.Loop() {
		if s, detail, _ := comparePptxFiles(env, deckLOPath, deckLOPath, map[string]any{}); s != 1 {
			b.Fatal(detail)
		}
	}
}

func BenchmarkCheckTransition(b *testing.B) {
	env := context.Background()
	rules := map[string]any{"slide_idx": json.Number("0"), "transition_type": "dissolve"}
	for b.Loop() {
		if s, detail, _ := checkTransition(env, deckLOPath, rules, nil); s != 1 {
			b.Fatal(detail)
		}
	}
}
