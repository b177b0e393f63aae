package metric

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/office"
)

// Impress metrics: compare_pptx_files and the slide checks of OSWorld's
// Impress tasks, on the pptx reader of pptx.go and LibreOffice's
// registrymodifications.xcu.

// pptxOptions are compare_pptx_files' examine_* switches with OSWorld's
// defaults; unknown options are ignored, as OSWorld's **options are.
type pptxOptions map[string]bool

var pptxOptionDefaults = map[string]bool{
	"examine_number_of_slides":      true,
	"examine_shape":                 true,
	"examine_text":                  true,
	"examine_indent":                true,
	"examine_font_name":             true,
	"examine_font_size":             true,
	"examine_font_bold":             true,
	"examine_font_italic":           true,
	"examine_color_rgb":             true,
	"examine_font_underline":        true,
	"examine_strike_through":        true,
	"examine_alignment":             true,
	"examine_title_bottom_position": false,
	"examine_table_bottom_position": false,
	"examine_right_position":        false,
	"examine_top_position":          false,
	"examine_shape_for_shift_size":  false,
	"examine_image_size":            false,
	"examine_modify_height":         false,
	"examine_bullets":               true,
	"examine_background_color":      true,
	"examine_note":                  true,
	"examine_run_count":             true,
}

func newPptxOptions(opts map[string]any) pptxOptions {
	o := pptxOptions{}
	for k, def := range pptxOptionDefaults {
		o[k] = def
		if v, ok := opts[k]; ok {
			o[k] = py.Truthy(v)
		}
	}
	return o
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func sameBox(a, b *office.Shape) bool {
	return eqPtr(a.Left, b.Left) && eqPtr(a.Top, b.Top) && eqPtr(a.Width, b.Width) && eqPtr(a.Height, b.Height)
}

// cmpLess is Python's a < b on two optional lengths; None against a
// number raises in Python, which scores 0: ok is false then.
func cmpLess(a, b *int64) (less, ok bool) {
	if a == nil || b == nil {
		return false, false
	}
	return *a < *b, true
}

// comparePptxFiles implements OSWorld's compare_pptx_files
// (desktop_env/evaluators/metrics/slides.py).
func comparePptxFiles(ctx context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	if result == nil && expected == nil {
		// python-pptx's Presentation(None) is its default template, so
		// OSWorld compares two empty decks alike.
		return 1, "no result and no expected file: two default decks", nil
	}
	if result == nil {
		return 0, "no result file", nil
	}
	d1, err := office.OpenPptx(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	d2, err := office.OpenPptx(ctx, expected)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	tol := 0.005
	if v, ok := opts["approximately_tolerance"]; ok {
		t, ok := py.Number(v)
		if !ok {
			return 0, "", fmt.Errorf("options.approximately_tolerance: want a number, got %s", py.TypeName(v))
		}
		tol = t
	}
	s, detail := comparePptx(d1, d2, newPptxOptions(opts), tol)
	return s, detail, nil
}

// comparePptx is OSWorld's compare_pptx_files on two read decks, in its
// order of checks; a comparison where python-pptx raises (a background
// colour that is not RGB, a size one shape lacks) scores 0 with the reason.
func comparePptx(d1, d2 *office.Deck, o pptxOptions, tol float64) (float64, string) {
	if len(d1.Slides) != len(d2.Slides) && o["examine_number_of_slides"] {
		return 0, fmt.Sprintf("%d slides, want %d", len(d1.Slides), len(d2.Slides))
	}
	approx := func(a, b *int64) (bool, error) {
		if a == nil || b == nil {
			if a == nil && b == nil {
				return true, nil
			}
			return false, errors.New("a shape has no position or size (python-pptx: None)")
		}
		x, y := float64(*a), float64(*b)
		if x == y {
			return true, nil
		}
		if x == 0 || y == 0 {
			return false, nil
		}
		return math.Abs(x-y)/math.Max(math.Abs(x), math.Abs(y)) <= tol, nil
	}
	box := func(a, b *office.Shape) (bool, error) {
		for _, p := range [][2]*int64{{a.Left, b.Left}, {a.Top, b.Top}, {a.Width, b.Width}, {a.Height, b.Height}} {
			ok, err := approx(p[0], p[1])
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	}
	for i := 0; i < min(len(d1.Slides), len(d2.Slides)); i++ {
		s1, s2 := d1.Slides[i], d2.Slides[i]
		idx := i + 1
		at := func(format string, a ...any) (float64, string) {
			return 0, fmt.Sprintf("slide %d: ", idx) + fmt.Sprintf(format, a...)
		}
		// The background colours are read whatever the option says.
		bg1, none1, err1 := d1.Background(s1)
		bg2, none2, err2 := d2.Background(s2)
		if err := errors.Join(err1, err2); err != nil {
			return at("%v", err)
		}
		if (bg1 != bg2 || none1 != none2) && o["examine_background_color"] {
			return at("background %s, want %s", bgString(bg1, none1), bgString(bg2, none2))
		}
		if o["examine_note"] && py.Strip(s1.Notes) != py.Strip(s2.Notes) {
			return at("notes %q, want %q", py.Truncate(s1.Notes, 80), py.Truncate(s2.Notes, 80))
		}
		text1, text2 := textShapes(s1.Shapes), textShapes(s2.Shapes)
		if len(s1.Shapes) != len(s2.Shapes) {
			return at("%d shapes, want %d", len(s1.Shapes), len(s2.Shapes))
		}
		var bullets1, bullets2 []office.BulletInfo
		bulletsRead := false
		for j := range s1.Shapes {
			a, b := s1.Shapes[j], s2.Shapes[j]
			shapeAt := func(format string, args ...any) (float64, string) {
				return at("shape %d: "+format, append([]any{j + 1}, args...)...)
			}
			sameBox := func() (bool, float64, string) {
				ok, err := box(a, b)
				if err != nil {
					s, d := shapeAt("%v", err)
					return false, s, d
				}
				if !ok {
					s, d := shapeAt("position or size differs (%s, want %s)", boxString(a), boxString(b))
					return false, s, d
				}
				return true, 0, ""
			}
			if o["examine_title_bottom_position"] {
				if a.HasText && b.HasText && a.Text == b.Text {
					if a.Text == "Product Comparison" {
						le, ok1 := cmpLess(b.Top, a.Top) // a.top <= b.top is !(b.top < a.top)
						lt, ok2 := cmpLess(a.Top, ptr(int64(3600000)))
						if !ok1 || !ok2 || !le || lt {
							return shapeAt("title not moved to the bottom")
						}
					}
				} else if ok, s, d := sameBox(); !ok {
					return s, d
				}
			}
			if o["examine_table_bottom_position"] {
				if idx == 3 && a.ShapeType == office.ShapeTable && b.ShapeType == office.ShapeTable {
					le, ok1 := cmpLess(b.Top, a.Top)
					lt, ok2 := cmpLess(a.Top, ptr(int64(3600000)))
					if !ok1 || !ok2 || !le || lt {
						return shapeAt("table not moved to the bottom")
					}
				} else if ok, s, d := sameBox(); !ok {
					return s, d
				}
			}
			if o["examine_right_position"] {
				if idx == 2 && !a.HasText && !b.HasText {
					gt, ok1 := cmpLess(b.Left, a.Left)
					lt, ok2 := cmpLess(a.Left, ptr(int64(4320000)))
					if !ok1 || !ok2 || !gt || lt {
						return shapeAt("not moved to the right")
					}
				}
			}
			if o["examine_top_position"] {
				if idx == 2 && a.ShapeType == office.ShapePicture && b.ShapeType == office.ShapePicture {
					lt, ok1 := cmpLess(a.Top, b.Top)
					gt, ok2 := cmpLess(ptr(int64(1980000)), a.Top)
					if !ok1 || !ok2 || !lt || gt {
						return shapeAt("picture not moved to the top")
					}
				}
			}
			if o["examine_shape_for_shift_size"] {
				if ok, s, d := sameBox(); !ok {
					if !(a.HasText && b.HasText && a.Text == b.Text && a.Text == "Elaborate on what you want to discuss.") {
						return s, d
					}
				}
			}
			// Shapes without text (or only blanks) are not compared by
			// position and size.
			bothEmpty := (!a.HasText || py.Strip(a.Text) == "") && (!b.HasText || py.Strip(b.Text) == "")
			if o["examine_shape"] && !bothEmpty {
				if ok, s, d := sameBox(); !ok {
					return s, d
				}
			}
			if o["examine_image_size"] {
				if a.ShapeType == office.ShapePicture && b.ShapeType == office.ShapePicture {
					okW, errW := approx(a.Width, b.Width)
					okH, errH := approx(a.Height, b.Height)
					if err := errors.Join(errW, errH); err != nil {
						return shapeAt("%v", err)
					}
					if !okW || !okH {
						return shapeAt("picture size differs")
					}
				} else if ok, s, d := sameBox(); !ok {
					return s, d
				}
			}
			if o["examine_modify_height"] {
				if (!a.HasText && !b.HasText) || (a.ShapeType == office.ShapeFreeform && b.ShapeType == office.ShapeFreeform) {
					ok, err := approx(a.Height, b.Height)
					if err != nil {
						return shapeAt("%v", err)
					}
					if !ok {
						return shapeAt("height differs")
					}
				} else if ok, s, d := sameBox(); !ok {
					return s, d
				}
			}
			if a.ShapeType == office.ShapeTable {
				if b.Table == nil {
					return shapeAt("a table against a %s (python-pptx raises)", "shape without one")
				}
				if s, d := compareTables(a.Table, b.Table, o); d != "" {
					return shapeAt("%s", d)
				} else if s == 0 {
					return 0, ""
				}
			}
			if !a.HasText || !b.HasText {
				continue
			}
			if o["examine_text"] && py.Strip(a.Text) != py.Strip(b.Text) {
				return shapeAt("text %q, want %q", py.Truncate(a.Text, 80), py.Truncate(b.Text, 80))
			}
			if len(a.Paras) != len(b.Paras) {
				return shapeAt("%d paragraphs, want %d", len(a.Paras), len(b.Paras))
			}
			for k := range a.Paras {
				p1, p2 := a.Paras[k], b.Paras[k]
				paraAt := func(format string, args ...any) (float64, string) {
					return shapeAt("paragraph %d: "+format, append([]any{k + 1}, args...)...)
				}
				if o["examine_alignment"] && alignOf(p1) != alignOf(p2) {
					return paraAt("alignment %s, want %s", alignOf(p1), alignOf(p2))
				}
				if o["examine_text"] && p1.Text != p2.Text {
					return paraAt("text %q, want %q", py.Truncate(p1.Text, 80), py.Truncate(p2.Text, 80))
				}
				// Levels 0 and 1 read alike.
				if o["examine_indent"] && p1.Level != p2.Level && !(p1.Level <= 1 && p2.Level <= 1) {
					return paraAt("level %d, want %d", p1.Level, p2.Level)
				}
				r1s, r2s := paraRuns(p1, p2)
				if len(r1s) != len(r2s) && o["examine_run_count"] {
					return paraAt("%d runs, want %d", len(r1s), len(r2s))
				}
				for m := 0; m < min(len(r1s), len(r2s)); m++ {
					r1, r2 := r1s[m], r2s[m]
					runAt := func(what string, got, want string) (float64, string) {
						return paraAt("run %d: %s %s, want %s", m+1, what, got, want)
					}
					if o["examine_font_name"] && !eqPtr(r1.Font, r2.Font) {
						return runAt("font", optString(r1.Font), optString(r2.Font))
					}
					if o["examine_font_size"] && !eqPtr(r1.Size, r2.Size) {
						return runAt("size", optInt(r1.Size), optInt(r2.Size))
					}
					if o["examine_font_bold"] && !sameFlag(r1.Bold, r2.Bold) {
						return runAt("bold", optBool(r1.Bold), optBool(r2.Bold))
					}
					if o["examine_font_italic"] && !sameFlag(r1.Italic, r2.Italic) {
						return runAt("italic", optBool(r1.Italic), optBool(r2.Italic))
					}
					if o["examine_color_rgb"] && r1.Rgb != nil && r2.Rgb != nil && *r1.Rgb != *r2.Rgb {
						return runAt("colour", *r1.Rgb, *r2.Rgb)
					}
					if o["examine_font_underline"] && !sameUnderline(r1.Underline, r2.Underline) {
						return runAt("underline", optString(r1.Underline), optString(r2.Underline))
					}
					if o["examine_strike_through"] && r1.Strike != r2.Strike {
						return runAt("strike", r1.Strike, r2.Strike)
					}
					if o["examine_bullets"] {
						if !bulletsRead {
							bullets1, bullets2 = office.SlideBullets(s1.Root), office.SlideBullets(s2.Root)
							bulletsRead = true
						}
						if !sameBullets(bullets1, bullets2) {
							return at("bullets differ")
						}
					}
				}
			}
		}
		// Every shape with a text frame, those in groups too.
		if o["examine_alignment"] && len(text1) == len(text2) {
			for j := range text1 {
				a, b := text1[j], text2[j]
				if py.Strip(a.Text) != py.Strip(b.Text) && o["examine_text"] {
					return at("text shape %d: text %q, want %q", j+1, py.Truncate(a.Text, 80), py.Truncate(b.Text, 80))
				}
				if len(a.Paras) != len(b.Paras) {
					return at("text shape %d: %d paragraphs, want %d", j+1, len(a.Paras), len(b.Paras))
				}
				for k := range a.Paras {
					if alignOf(a.Paras[k]) != alignOf(b.Paras[k]) {
						return at("text shape %d: paragraph %d: alignment %s, want %s", j+1, k+1, alignOf(a.Paras[k]), alignOf(b.Paras[k]))
					}
				}
			}
		} else if len(text1) != len(text2) {
			return at("%d text shapes, want %d", len(text1), len(text2))
		}
	}
	return 1, ""
}

// compareTables is OSWorld's table check: the same grid, paragraphs and
// runs, and runs alike in colour, bold, italic and underline (the last
// three whatever the options say). A detail says why it scores 0.
func compareTables(t1, t2 *office.SlideTable, o pptxOptions) (float64, string) {
	if len(t1.Cells) != len(t2.Cells) || t1.Cols != t2.Cols {
		return 0, fmt.Sprintf("table %dx%d, want %dx%d", len(t1.Cells), t1.Cols, len(t2.Cells), t2.Cols)
	}
	for r := range t1.Cells {
		for c := 0; c < t1.Cols; c++ {
			if c >= len(t1.Cells[r]) || c >= len(t2.Cells[r]) {
				return 0, fmt.Sprintf("table row %d has fewer cells than columns (python-pptx raises)", r+1)
			}
			c1, c2 := t1.Cells[r][c], t2.Cells[r][c]
			if len(c1.Paras) != len(c2.Paras) {
				return 0, fmt.Sprintf("cell [%d,%d]: %d paragraphs, want %d", r, c, len(c1.Paras), len(c2.Paras))
			}
			for k := range c1.Paras {
				r1s, r2s := paraRuns(c1.Paras[k], c2.Paras[k])
				if len(r1s) != len(r2s) && o["examine_run_count"] {
					return 0, fmt.Sprintf("cell [%d,%d]: paragraph %d: %d runs, want %d", r, c, k+1, len(r1s), len(r2s))
				}
				for m := 0; m < min(len(r1s), len(r2s)); m++ {
					a, b := r1s[m], r2s[m]
					if o["examine_color_rgb"] && a.Rgb != nil && b.Rgb != nil && *a.Rgb != *b.Rgb {
						return 0, fmt.Sprintf("cell [%d,%d]: run colour %s, want %s", r, c, *a.Rgb, *b.Rgb)
					}
					if !sameFlag(a.Bold, b.Bold) || !sameFlag(a.Italic, b.Italic) || !sameUnderline(a.Underline, b.Underline) {
						return 0, fmt.Sprintf("cell [%d,%d]: run %d: font style differs", r, c, m+1)
					}
				}
			}
		}
	}
	return 1, ""
}

// paraRuns returns the runs compared: all of them, or, where both
// paragraphs are blank, only runs with text.
func paraRuns(p1, p2 office.Para) ([]office.Run, []office.Run) {
	if py.Strip(p1.Text) != "" || py.Strip(p2.Text) != "" {
		return p1.Runs, p2.Runs
	}
	keep := func(rs []office.Run) []office.Run {
		var out []office.Run
		for _, r := range rs {
			if py.Strip(r.Text) != "" {
				out = append(out, r)
			}
		}
		return out
	}
	return keep(p1.Runs), keep(p2.Runs)
}

func textShapes(shapes []*office.Shape) []*office.Shape {
	var out []*office.Shape
	for _, s := range shapes {
		if s.HasText {
			out = append(out, s)
		}
		out = append(out, textShapes(s.Children)...)
	}
	return out
}

// alignOf is a paragraph's alignment with python-pptx's None read as
// LEFT ("l").
func alignOf(p office.Para) string {
	if p.Align == nil {
		return "l"
	}
	return *p.Align
}

// sameFlag compares python-pptx's bold or italic, None and False alike.
func sameFlag(a, b *bool) bool {
	return (a != nil && *a) == (b != nil && *b)
}

func bgString(rgb string, none bool) string {
	if none {
		return "None"
	}
	return rgb
}

func ptr[T any](v T) *T { return &v }

// sameUnderline is OSWorld's underline check on python-pptx's values
// (None, True for "sng", False for "none", else the MSO_UNDERLINE member):
// two set values must be equal, and None differs only from True.
func sameUnderline(a, b *string) bool {
	if a != nil && b != nil {
		return *a == *b
	}
	if a == nil && b == nil {
		return true
	}
	set := a
	if set == nil {
		set = b
	}
	return *set != "sng"
}

func sameBullets(a, b []office.BulletInfo) bool {
	a, b = office.VisibleBullets(a), office.VisibleBullets(b)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !office.SameBullet(a[i], b[i]) {
			return false
		}
	}
	return true
}

func boxString(s *office.Shape) string {
	return fmt.Sprintf("%s,%s %sx%s", optInt(s.Left), optInt(s.Top), optInt(s.Width), optInt(s.Height))
}

func optString(p *string) string {
	if p == nil {
		return "None"
	}
	return strconv.Quote(*p)
}

func optInt(p *int64) string {
	if p == nil {
		return "None"
	}
	return strconv.FormatInt(*p, 10)
}

func optBool(p *bool) string {
	if p == nil {
		return "None"
	}
	if *p {
		return "True"
	}
	return "False"
}

// checkTransition implements OSWorld's check_transition
// (desktop_env/evaluators/metrics/slides.py).
//
// checkTransition reads ppt/slides/slide<slide_idx+1>.xml by name, as
// OSWorld does, and looks for p:<transition_type> inside its first
// p:transition.
func checkTransition(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	idx, ok := py.AsInt(rules["slide_idx"])
	if !ok {
		return 0, "", fmt.Errorf("rules.slide_idx: want an integer, got %s", py.TypeName(rules["slide_idx"]))
	}
	typ, ok := py.AsString(rules["transition_type"])
	if !ok {
		return 0, "", fmt.Errorf("rules.transition_type: want a string, got %s", py.TypeName(rules["transition_type"]))
	}
	if result == nil {
		return 0, "no result file", nil
	}
	pkg, err := openPackageFile(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	name := fmt.Sprintf("ppt/slides/slide%d.xml", idx+1)
	if !pkg.Has(name) {
		return 0, name + " is not in the presentation", nil
	}
	root, err := pkg.XML(name)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	tr := root.FindNS(office.NSP, "transition")
	if tr == nil {
		return 0, fmt.Sprintf("slide %d has no transition", idx+1), nil
	}
	if tr.FindNS(office.NSP, typ) == nil {
		return 0, fmt.Sprintf("slide %d's transition is not %s", idx+1, typ), nil
	}
	return 1, "", nil
}

func openPackageFile(ctx context.Context, p any) (*office.Package, error) {
	name, ok := p.(string)
	if !ok {
		return nil, fmt.Errorf("want a file path, got %s", py.TypeName(p))
	}
	data, err := os.ReadFile(name)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, err
	}
	pkg, err := office.OpenOOXML(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return pkg, nil
}

// presentationFillDistance implements OSWorld's
// evaluate_presentation_fill_to_rgb_distance
// (desktop_env/evaluators/metrics/slides.py).
func presentationFillDistance(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	list, ok := rules["rgb"].([]any)
	if !ok || len(list) != 3 {
		return 0, "", fmt.Errorf("rules.rgb: want a list of three numbers, got %s", py.TypeName(rules["rgb"]))
	}
	var want [3]float64
	for i, v := range list {
		f, ok := py.Number(v)
		if !ok {
			return 0, "", fmt.Errorf("rules.rgb[%d]: want a number, got %s", i, py.TypeName(v))
		}
		want[i] = f
	}
	if result == nil {
		return 0, "no result file", nil
	}
	d, err := office.OpenPptx(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if len(d.Slides) == 0 {
		return 0, "the presentation has no slides", nil
	}
	dist := func(c []int) float64 {
		dr, dg, db := float64(c[0])-want[0], float64(c[1])-want[1], float64(c[2])-want[2]
		return math.Sqrt(dr*dr+dg*dg+db*db) / math.Sqrt(3*255*255)
	}
	sum := 0.0
	for i, s := range d.Slides {
		typ, c, err := office.BgFill(s.Bg)
		if err != nil {
			return 0, fmt.Sprintf("slide %d: %v", i+1, err), nil
		}
		switch typ {
		case 1:
			sum += dist(c)
		case 5:
			mt, c, err := d.MasterFill(s)
			if err != nil {
				return 0, fmt.Sprintf("slide %d: master: %v", i+1, err), nil
			}
			if mt == 1 {
				sum += dist(c)
			} else {
				sum++
			}
		default:
			sum++
		}
	}
	return 1 - sum/float64(len(d.Slides)), "", nil
}

// checkPageNumberColors implements OSWorld's check_page_number_colors
// (desktop_env/evaluators/metrics/slides.py).
func checkPageNumberColors(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	color, _ := py.AsString(rules["color"])
	if result == nil {
		return 0, "no result file", nil
	}
	pkg, err := openPackageFile(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	root, err := pkg.XML("ppt/slideMasters/slideMaster1.xml")
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	// The next to last sRGB colour inside a solid fill of the first
	// master, as OSWorld reads it.
	var colours []*office.Node
	for _, f := range root.FindAllNS(office.NSA, "solidFill", nil) {
		colours = f.FindAllNS(office.NSA, "srgbClr", colours)
	}
	if len(colours) < 2 {
		return 0, "the slide master has fewer than two sRGB fill colours", nil
	}
	v, ok := colours[len(colours)-2].AttrNS("", "val")
	if !ok {
		return 0, "the page number colour has no value", nil
	}
	n, err := strconv.ParseUint(v, 16, 32)
	if err != nil || len(v) != 6 {
		return 0, fmt.Sprintf("page number colour %q is not RRGGBB", v), nil
	}
	r, g, b := int(n>>16), int(n>>8&0xff), int(n&0xff)
	const t = 50
	var okColour bool
	switch color {
	case "red":
		okColour = r > g+t && r > b+t
	case "blue":
		okColour = b > g+t && b > r+t
	case "green":
		okColour = g > r+t && g > b+t
	case "black":
		okColour = r < t && g < t && b < t
	default:
		okColour = true
	}
	if !okColour {
		return 0, fmt.Sprintf("page numbers are #%s, not %s", v, color), nil
	}
	return 1, "", nil
}

const nsOOR = "http://openoffice.org/2001/registry"

// registryItems parses a LibreOffice registrymodifications.xcu.
func registryItems(ctx context.Context, p any) ([]*office.Node, error) {
	name, ok := p.(string)
	if !ok {
		return nil, fmt.Errorf("want a file path, got %s", py.TypeName(p))
	}
	data, err := os.ReadFile(name)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, err
	}
	root, err := office.ParseStrict(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var items []*office.Node
	if root.Name == "item" && root.Space == "" {
		items = append(items, root)
	}
	return root.FindAllNS("", "item", items), nil
}

// checkAutoSavingTime implements OSWorld's check_auto_saving_time
// (desktop_env/evaluators/metrics/slides.py).
func checkAutoSavingTime(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	minutes, ok := py.AsInt(rules["minutes"])
	if !ok {
		return 0, "", fmt.Errorf("rules.minutes: want an integer, got %s", py.TypeName(rules["minutes"]))
	}
	if result == nil {
		return 0, "no result file", nil
	}
	items, err := registryItems(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	var value *string
	for _, it := range items {
		if p, _ := it.AttrNS(nsOOR, "path"); p != "/org.openoffice.Office.Common/Save/Document" {
			continue
		}
		for _, prop := range it.FindAllNS("", "prop", nil) {
			if n, _ := prop.AttrNS(nsOOR, "name"); n == "AutoSaveTimeIntervall" {
				v := prop.FindNS("", "value").TextOrEmpty()
				value = &v
				break
			}
		}
	}
	if value == nil {
		return 0, "no AutoSaveTimeIntervall setting", nil
	}
	got, err := strconv.Atoi(strings.TrimSpace(*value))
	if err != nil {
		return 0, fmt.Sprintf("AutoSaveTimeIntervall %q is not an integer", *value), nil
	}
	if got != minutes {
		return 0, fmt.Sprintf("autosave every %d minutes, want %d", got, minutes), nil
	}
	return 1, "", nil
}

// checkPresenterConsoleDisable implements OSWorld's
// check_presenter_console_disable
// (desktop_env/evaluators/metrics/slides.py).
func checkPresenterConsoleDisable(ctx context.Context, result, _ any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	items, err := registryItems(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	for _, it := range items {
		if p, _ := it.AttrNS(nsOOR, "path"); p != "/org.openoffice.Office.Impress/Misc/Start" {
			continue
		}
		for _, prop := range it.Children {
			if prop.Name != "prop" || prop.Space != "" {
				continue
			}
			if n, _ := prop.AttrNS(nsOOR, "name"); n != "EnablePresenterScreen" {
				continue
			}
			v := prop.ChildNS("", "value")
			if v == nil {
				return 0, "EnablePresenterScreen has no value", nil
			}
			if strings.ToLower(v.OwnText()) == "false" {
				return 1, "", nil
			}
			return 0, "the presenter console is enabled", nil
		}
	}
	return 0, "no EnablePresenterScreen setting", nil
}

// checkImageStretchAndCenter implements OSWorld's
// check_image_stretch_and_center
// (desktop_env/evaluators/metrics/slides.py).
//
// checkImageStretchAndCenter finds the first slide's picture of the
// original among the modified deck's first-slide pictures (same image
// bytes) and wants it to fill the slide, centred, within half an inch.
func checkImageStretchAndCenter(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	mod, err := office.OpenPptx(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	orig, err := office.OpenPptx(ctx, expected)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	if len(orig.Slides) == 0 || len(mod.Slides) == 0 {
		return 0, "a presentation has no slides", nil
	}
	pics := func(d *office.Deck) []*office.Shape {
		var out []*office.Shape
		for _, s := range d.Slides[0].Shapes {
			if s.ShapeType == office.ShapePicture {
				out = append(out, s)
			}
		}
		return out
	}
	op := pics(orig)
	if len(op) == 0 {
		return 0, "the original's first slide has no picture", nil
	}
	want, err := orig.PictureBlob(orig.Slides[0], op[0])
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	var found *office.Shape
	for _, p := range pics(mod) {
		b, err := mod.PictureBlob(mod.Slides[0], p)
		if err == nil && string(b) == string(want) {
			found = p
		}
	}
	if found == nil {
		return 0, "the picture is not on the first slide", nil
	}
	if found.Left == nil || found.Top == nil || found.Width == nil || found.Height == nil || orig.Width == nil || orig.Height == nil {
		return 0, "the picture or the slide has no size", nil
	}
	const half = 457200.0 // Inches(0.5) in EMU
	sw, sh := float64(*orig.Width), float64(*orig.Height)
	w, h, l, t := float64(*found.Width), float64(*found.Height), float64(*found.Left), float64(*found.Top)
	if math.Abs(w-sw) > half || math.Abs(h-sh) > half || math.Abs(l-(sw-w)/2) > half || math.Abs(t-(sh-h)/2) > half {
		return 0, fmt.Sprintf("picture at %.0f,%.0f %.0fx%.0f on a %.0fx%.0f slide", l, t, w, h, sw, sh), nil
	}
	return 1, "", nil
}

// checkSlideOrientationPortrait implements OSWorld's
// check_slide_orientation_Portrait
// (desktop_env/evaluators/metrics/slides.py).
//
// checkSlideOrientationPortrait wants slides taller than wide.
func checkSlideOrientationPortrait(ctx context.Context, result, _ any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	d, err := office.OpenPptx(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if d.Width == nil || d.Height == nil {
		return 0, "the presentation has no slide size", nil
	}
	if !(*d.Width < *d.Height) {
		return 0, fmt.Sprintf("slides are %dx%d, not portrait", *d.Width, *d.Height), nil
	}
	return 1, "", nil
}
