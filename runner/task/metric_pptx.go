package task

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// Impress metrics: compare_pptx_files and the slide checks of OSWorld's
// Impress tasks, on the pptx reader of pptx.go and LibreOffice's
// registrymodifications.xcu.

func init() {
	addMetrics(map[string]metricSpec{
		"compare_pptx_files":                         {fn: comparePptxFiles, needsExpected: true, checkOptions: anyOptions},
		"check_transition":                           {fn: checkTransition, needsExpected: true, checkRules: needKeys("slide_idx", "transition_type")},
		"evaluate_presentation_fill_to_rgb_distance": {fn: presentationFillDistance, needsExpected: true, checkRules: needKeys("rgb")},
		"check_page_number_colors":                   {fn: checkPageNumberColors, needsExpected: true, checkRules: needKeys("color")},
		"check_auto_saving_time":                     {fn: checkAutoSavingTime, needsExpected: true, checkRules: needKeys("minutes")},
		"check_presenter_console_disable":            {fn: checkPresenterConsoleDisable},
		"check_image_stretch_and_center":             {fn: checkImageStretchAndCenter, needsExpected: true},
		"check_slide_orientation_Portrait":           {fn: checkSlideOrientationPortrait},
	})
}

// documentDeadline bounds one metric's reading of documents.
const documentDeadline = 30 * time.Second

func metricContext(env metricEnv) (context.Context, context.CancelFunc) {
	ctx := env.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithTimeout(ctx, documentDeadline)
}

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
}

func newPptxOptions(opts map[string]any) pptxOptions {
	o := pptxOptions{}
	for k, def := range pptxOptionDefaults {
		o[k] = def
		if v, ok := opts[k]; ok {
			o[k] = pyTruthy(v)
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

func sameBox(a, b *pptxShape) bool {
	return eqPtr(a.left, b.left) && eqPtr(a.top, b.top) && eqPtr(a.width, b.width) && eqPtr(a.height, b.height)
}

// cmpLess is Python's a < b on two optional lengths; None against a
// number raises in Python, which scores 0: ok is false then.
func cmpLess(a, b *int64) (less, ok bool) {
	if a == nil || b == nil {
		return false, false
	}
	return *a < *b, true
}

func comparePptxFiles(env metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	ctx, cancel := metricContext(env)
	defer cancel()
	d1, err := openPptx(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	d2, err := openPptx(ctx, expected)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	s, detail := comparePptx(d1, d2, newPptxOptions(opts))
	return s, detail, nil
}

// comparePptx is OSWorld's compare_pptx_files on two read decks. The
// background check is a no-op there (its background colour helper
// compares None with None for every slide) and is one here too.
func comparePptx(d1, d2 *pptxDeck, o pptxOptions) (float64, string) {
	if len(d1.slides) != len(d2.slides) && o["examine_number_of_slides"] {
		return 0, fmt.Sprintf("%d slides, want %d", len(d1.slides), len(d2.slides))
	}
	for i := 0; i < min(len(d1.slides), len(d2.slides)); i++ {
		s1, s2 := d1.slides[i], d2.slides[i]
		idx := i + 1
		at := func(format string, a ...any) (float64, string) {
			return 0, fmt.Sprintf("slide %d: ", idx) + fmt.Sprintf(format, a...)
		}
		if o["examine_note"] && pyStrip(s1.notes) != pyStrip(s2.notes) {
			return at("notes %q, want %q", truncate(s1.notes, 80), truncate(s2.notes, 80))
		}
		var bullets1, bullets2 []bulletInfo
		bulletsRead := false
		for j := 0; j < min(len(s1.shapes), len(s2.shapes)); j++ {
			a, b := s1.shapes[j], s2.shapes[j]
			shapeAt := func(format string, args ...any) (float64, string) {
				return at("shape %d: "+format, append([]any{j + 1}, args...)...)
			}
			if o["examine_title_bottom_position"] {
				if a.hasText && b.hasText && a.text == b.text {
					if a.text == "Product Comparison" {
						le, ok1 := cmpLess(b.top, a.top) // a.top <= b.top is !(b.top < a.top)
						lt, ok2 := cmpLess(a.top, ptr(int64(3600000)))
						if !ok1 || !ok2 || !le || lt {
							return shapeAt("title not moved to the bottom")
						}
					}
				} else if !sameBox(a, b) {
					return shapeAt("position or size differs")
				}
			}
			if o["examine_table_bottom_position"] {
				if idx == 3 && a.shapeType == shapeTable && b.shapeType == shapeTable {
					le, ok1 := cmpLess(b.top, a.top)
					lt, ok2 := cmpLess(a.top, ptr(int64(3600000)))
					if !ok1 || !ok2 || !le || lt {
						return shapeAt("table not moved to the bottom")
					}
				} else if !sameBox(a, b) {
					return shapeAt("position or size differs")
				}
			}
			if o["examine_right_position"] {
				if idx == 2 && !a.hasText && !b.hasText {
					gt, ok1 := cmpLess(b.left, a.left)
					lt, ok2 := cmpLess(a.left, ptr(int64(4320000)))
					if !ok1 || !ok2 || !gt || lt {
						return shapeAt("not moved to the right")
					}
				}
			}
			if o["examine_top_position"] {
				if idx == 2 && a.shapeType == shapePicture && b.shapeType == shapePicture {
					lt, ok1 := cmpLess(a.top, b.top)
					gt, ok2 := cmpLess(ptr(int64(1980000)), a.top)
					if !ok1 || !ok2 || !lt || gt {
						return shapeAt("picture not moved to the top")
					}
				} else if !sameBox(a, b) {
					return shapeAt("position or size differs")
				}
			}
			if o["examine_shape_for_shift_size"] && !sameBox(a, b) {
				if !(a.hasText && b.hasText && a.text == b.text && a.text == "Elaborate on what you want to discuss.") {
					return shapeAt("position or size differs")
				}
			}
			if o["examine_shape"] && !sameBox(a, b) {
				return shapeAt("position or size differs (%s, want %s)", boxString(a), boxString(b))
			}
			if o["examine_image_size"] {
				if a.shapeType == shapePicture && b.shapeType == shapePicture {
					if !eqPtr(a.width, b.width) || !eqPtr(a.height, b.height) {
						return shapeAt("picture size differs")
					}
				} else if !sameBox(a, b) {
					return shapeAt("position or size differs")
				}
			}
			if o["examine_modify_height"] {
				if (!a.hasText && !b.hasText) || (a.shapeType == shapeFreeform && b.shapeType == shapeFreeform) {
					if !eqPtr(a.height, b.height) {
						return shapeAt("height differs")
					}
				} else if !sameBox(a, b) {
					return shapeAt("position or size differs")
				}
			}
			if !a.hasText || !b.hasText {
				continue
			}
			if o["examine_text"] && pyStrip(a.text) != pyStrip(b.text) {
				return shapeAt("text %q, want %q", truncate(a.text, 80), truncate(b.text, 80))
			}
			for k := 0; k < min(len(a.paras), len(b.paras)); k++ {
				p1, p2 := a.paras[k], b.paras[k]
				paraAt := func(format string, args ...any) (float64, string) {
					return shapeAt("paragraph %d: "+format, append([]any{k + 1}, args...)...)
				}
				if o["examine_alignment"] && !eqPtr(p1.align, p2.align) {
					return paraAt("alignment %s, want %s", optString(p1.align), optString(p2.align))
				}
				if o["examine_text"] && p1.text != p2.text {
					return paraAt("text %q, want %q", truncate(p1.text, 80), truncate(p2.text, 80))
				}
				if o["examine_indent"] && p1.level != p2.level {
					return paraAt("level %d, want %d", p1.level, p2.level)
				}
				for m := 0; m < min(len(p1.runs), len(p2.runs)); m++ {
					r1, r2 := p1.runs[m], p2.runs[m]
					runAt := func(what string, got, want string) (float64, string) {
						return paraAt("run %d: %s %s, want %s", m+1, what, got, want)
					}
					if o["examine_font_name"] && !eqPtr(r1.font, r2.font) {
						return runAt("font", optString(r1.font), optString(r2.font))
					}
					if o["examine_font_size"] && !eqPtr(r1.size, r2.size) {
						return runAt("size", optInt(r1.size), optInt(r2.size))
					}
					if o["examine_font_bold"] && !eqPtr(r1.bold, r2.bold) {
						return runAt("bold", optBool(r1.bold), optBool(r2.bold))
					}
					if o["examine_font_italic"] && !eqPtr(r1.italic, r2.italic) {
						return runAt("italic", optBool(r1.italic), optBool(r2.italic))
					}
					if o["examine_color_rgb"] && r1.rgb != nil && r2.rgb != nil && *r1.rgb != *r2.rgb {
						return runAt("colour", *r1.rgb, *r2.rgb)
					}
					if o["examine_font_underline"] && !sameUnderline(r1.underline, r2.underline) {
						return runAt("underline", optString(r1.underline), optString(r2.underline))
					}
					if o["examine_strike_through"] && r1.strike != r2.strike {
						return runAt("strike", r1.strike, r2.strike)
					}
					if o["examine_bullets"] {
						if !bulletsRead {
							bullets1, bullets2 = slideBullets(s1.root), slideBullets(s2.root)
							bulletsRead = true
						}
						if !sameBullets(bullets1, bullets2) {
							return at("bullets differ")
						}
					}
				}
			}
		}
	}
	return 1, ""
}

func ptr[T any](v T) *T { return &v }

// sameUnderline compares python-pptx's underline values: None, False
// ("none"), True ("sng") or the MSO_UNDERLINE member of the attribute.
func sameUnderline(a, b *string) bool {
	norm := func(p *string) string {
		if p == nil {
			return "<None>"
		}
		return *p
	}
	return norm(a) == norm(b)
}

func sameBullets(a, b []bulletInfo) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func boxString(s *pptxShape) string {
	return fmt.Sprintf("%s,%s %sx%s", optInt(s.left), optInt(s.top), optInt(s.width), optInt(s.height))
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

// checkTransition reads ppt/slides/slide<slide_idx+1>.xml by name, as
// OSWorld does, and looks for p:<transition_type> inside its first
// p:transition.
func checkTransition(env metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	idx, ok := asInt(rules["slide_idx"])
	if !ok {
		return 0, "", fmt.Errorf("rules.slide_idx: want an integer, got %s", typeName(rules["slide_idx"]))
	}
	typ, ok := asString(rules["transition_type"])
	if !ok {
		return 0, "", fmt.Errorf("rules.transition_type: want a string, got %s", typeName(rules["transition_type"]))
	}
	if result == nil {
		return 0, "no result file", nil
	}
	ctx, cancel := metricContext(env)
	defer cancel()
	pkg, err := openPackageFile(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	name := fmt.Sprintf("ppt/slides/slide%d.xml", idx+1)
	if _, ok := pkg.files[name]; !ok {
		return 0, name + " is not in the presentation", nil
	}
	root, err := pkg.tree(name)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	tr := root.find(nsP, "transition")
	if tr == nil {
		return 0, fmt.Sprintf("slide %d has no transition", idx+1), nil
	}
	if tr.find(nsP, typ) == nil {
		return 0, fmt.Sprintf("slide %d's transition is not %s", idx+1, typ), nil
	}
	return 1, "", nil
}

func openPackageFile(ctx context.Context, p any) (*opcPackage, error) {
	name, ok := p.(string)
	if !ok {
		return nil, fmt.Errorf("want a file path, got %s", typeName(p))
	}
	data, err := os.ReadFile(name)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, err
	}
	pkg, err := openPackage(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return pkg, nil
}

// bgFill is python-pptx's fill of a background: its MSO_FILL type (1
// solid, 5 no fill, 0 others) and, for a solid sRGB fill, the colour. A
// background without bgPr reads as no fill (python-pptx adds one).
func bgFill(bg *xnode) (typ int, rgb []int, err error) {
	bgPr := bg.child(nsP, "bgPr")
	if bgPr == nil {
		return 5, nil, nil
	}
	for _, c := range bgPr.children {
		if c.name.Space != nsA {
			continue
		}
		switch c.name.Local {
		case "noFill":
			return 5, nil, nil
		case "solidFill":
			clr := c.child(nsA, "srgbClr")
			v, _ := clr.attrValue("", "val")
			if clr == nil || len(v) != 6 {
				return 1, nil, fmt.Errorf("solid background without an sRGB colour")
			}
			n, err := strconv.ParseUint(v, 16, 32)
			if err != nil {
				return 1, nil, fmt.Errorf("background colour %q: %w", v, err)
			}
			return 1, []int{int(n >> 16), int(n >> 8 & 0xff), int(n & 0xff)}, nil
		case "gradFill", "blipFill", "pattFill", "grpFill":
			return 0, nil, nil
		}
	}
	return 0, nil, nil
}

func presentationFillDistance(env metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	list, ok := rules["rgb"].([]any)
	if !ok || len(list) != 3 {
		return 0, "", fmt.Errorf("rules.rgb: want a list of three numbers, got %s", typeName(rules["rgb"]))
	}
	var want [3]float64
	for i, v := range list {
		f, ok := number(v)
		if !ok {
			return 0, "", fmt.Errorf("rules.rgb[%d]: want a number, got %s", i, typeName(v))
		}
		want[i] = f
	}
	if result == nil {
		return 0, "no result file", nil
	}
	ctx, cancel := metricContext(env)
	defer cancel()
	d, err := openPptx(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if len(d.slides) == 0 {
		return 0, "the presentation has no slides", nil
	}
	dist := func(c []int) float64 {
		dr, dg, db := float64(c[0])-want[0], float64(c[1])-want[1], float64(c[2])-want[2]
		return math.Sqrt(dr*dr+dg*dg+db*db) / math.Sqrt(3*255*255)
	}
	sum := 0.0
	for i, s := range d.slides {
		typ, c, err := bgFill(s.bg)
		if err != nil {
			return 0, fmt.Sprintf("slide %d: %v", i+1, err), nil
		}
		switch typ {
		case 1:
			sum += dist(c)
		case 5:
			mt, c, err := d.masterFill(s)
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
	return 1 - sum/float64(len(d.slides)), "", nil
}

func (d *pptxDeck) masterFill(s *pptxSlide) (int, []int, error) {
	if s.layout == "" {
		return 0, nil, nil
	}
	master, err := d.pkg.relByType(s.layout, relTypeMaster)
	if err != nil || master == "" {
		return 0, nil, err
	}
	mt, err := d.pkg.tree(master)
	if err != nil {
		return 0, nil, err
	}
	return bgFill(mt.path(nsP, "cSld", "bg"))
}

func checkPageNumberColors(env metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	color, _ := asString(rules["color"])
	if result == nil {
		return 0, "no result file", nil
	}
	ctx, cancel := metricContext(env)
	defer cancel()
	pkg, err := openPackageFile(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	root, err := pkg.tree("ppt/slideMasters/slideMaster1.xml")
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	// The next to last sRGB colour inside a solid fill of the first
	// master, as OSWorld reads it.
	var colours []*xnode
	for _, f := range root.findAll(nsA, "solidFill", nil) {
		colours = f.findAll(nsA, "srgbClr", colours)
	}
	if len(colours) < 2 {
		return 0, "the slide master has fewer than two sRGB fill colours", nil
	}
	v, ok := colours[len(colours)-2].attrValue("", "val")
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
func registryItems(env metricEnv, p any) ([]*xnode, error) {
	name, ok := p.(string)
	if !ok {
		return nil, fmt.Errorf("want a file path, got %s", typeName(p))
	}
	data, err := os.ReadFile(name)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, err
	}
	ctx, cancel := metricContext(env)
	defer cancel()
	root, err := parseXML(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var items []*xnode
	if root.name.Local == "item" && root.name.Space == "" {
		items = append(items, root)
	}
	return root.findAll("", "item", items), nil
}

func checkAutoSavingTime(env metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	minutes, ok := asInt(rules["minutes"])
	if !ok {
		return 0, "", fmt.Errorf("rules.minutes: want an integer, got %s", typeName(rules["minutes"]))
	}
	if result == nil {
		return 0, "no result file", nil
	}
	items, err := registryItems(env, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	var value *string
	for _, it := range items {
		if p, _ := it.attrValue(nsOOR, "path"); p != "/org.openoffice.Office.Common/Save/Document" {
			continue
		}
		for _, prop := range it.findAll("", "prop", nil) {
			if n, _ := prop.attrValue(nsOOR, "name"); n == "AutoSaveTimeIntervall" {
				v := prop.find("", "value").textOrEmpty()
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

func checkPresenterConsoleDisable(env metricEnv, result, _ any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	items, err := registryItems(env, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	for _, it := range items {
		if p, _ := it.attrValue(nsOOR, "path"); p != "/org.openoffice.Office.Impress/Misc/Start" {
			continue
		}
		for _, prop := range it.children {
			if prop.name.Local != "prop" || prop.name.Space != "" {
				continue
			}
			if n, _ := prop.attrValue(nsOOR, "name"); n != "EnablePresenterScreen" {
				continue
			}
			v := prop.child("", "value")
			if v == nil {
				return 0, "EnablePresenterScreen has no value", nil
			}
			if strings.ToLower(v.text) == "false" {
				return 1, "", nil
			}
			return 0, "the presenter console is enabled", nil
		}
	}
	return 0, "no EnablePresenterScreen setting", nil
}

// checkImageStretchAndCenter finds the first slide's picture of the
// original among the modified deck's first-slide pictures (same image
// bytes) and wants it to fill the slide, centred, within half an inch.
func checkImageStretchAndCenter(env metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	ctx, cancel := metricContext(env)
	defer cancel()
	mod, err := openPptx(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	orig, err := openPptx(ctx, expected)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	if len(orig.slides) == 0 || len(mod.slides) == 0 {
		return 0, "a presentation has no slides", nil
	}
	pics := func(d *pptxDeck) []*pptxShape {
		var out []*pptxShape
		for _, s := range d.slides[0].shapes {
			if s.shapeType == shapePicture {
				out = append(out, s)
			}
		}
		return out
	}
	op := pics(orig)
	if len(op) == 0 {
		return 0, "the original's first slide has no picture", nil
	}
	want, err := orig.pictureBlob(orig.slides[0], op[0])
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	var found *pptxShape
	for _, p := range pics(mod) {
		b, err := mod.pictureBlob(mod.slides[0], p)
		if err == nil && string(b) == string(want) {
			found = p
		}
	}
	if found == nil {
		return 0, "the picture is not on the first slide", nil
	}
	if found.left == nil || found.top == nil || found.width == nil || found.height == nil || orig.width == nil || orig.height == nil {
		return 0, "the picture or the slide has no size", nil
	}
	const half = 457200.0 // Inches(0.5) in EMU
	sw, sh := float64(*orig.width), float64(*orig.height)
	w, h, l, t := float64(*found.width), float64(*found.height), float64(*found.left), float64(*found.top)
	if math.Abs(w-sw) > half || math.Abs(h-sh) > half || math.Abs(l-(sw-w)/2) > half || math.Abs(t-(sh-h)/2) > half {
		return 0, fmt.Sprintf("picture at %.0f,%.0f %.0fx%.0f on a %.0fx%.0f slide", l, t, w, h, sw, sh), nil
	}
	return 1, "", nil
}

// pictureBlob returns the image bytes a picture shape shows.
func (d *pptxDeck) pictureBlob(s *pptxSlide, p *pptxShape) ([]byte, error) {
	rid, ok := p.elem.path(nsP, "blipFill").child(nsA, "blip").attrValue(nsR, "embed")
	if !ok {
		return nil, fmt.Errorf("picture without an embedded image")
	}
	rels, err := d.pkg.rels(s.part)
	if err != nil {
		return nil, err
	}
	for _, r := range rels {
		if r.id == rid {
			return d.pkg.part(r.target)
		}
	}
	return nil, fmt.Errorf("picture image %s: no relationship", rid)
}

// checkSlideOrientationPortrait wants slides taller than wide.
func checkSlideOrientationPortrait(env metricEnv, result, _ any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	ctx, cancel := metricContext(env)
	defer cancel()
	d, err := openPptx(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if d.width == nil || d.height == nil {
		return 0, "the presentation has no slide size", nil
	}
	if !(*d.width < *d.height) {
		return 0, fmt.Sprintf("slides are %dx%d, not portrait", *d.width, *d.height), nil
	}
	return 1, "", nil
}
