package task

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif" // images of documents
	_ "image/jpeg"
	_ "image/png"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Writer document metrics, on python-docx's view of a .docx (and
// OSWorld's odfpy view of an .odt where its metric reads one).

func init() {
	addMetrics(map[string]metricSpec{
		"compare_docx_files":                      {fn: withDeadline(compareDocxFiles), needsExpected: true, checkOptions: anyOptions},
		"compare_docx_tables":                     {fn: withDeadline(compareDocxTables), needsExpected: true},
		"compare_line_spacing":                    {fn: withDeadline(compareLineSpacing), needsExpected: true},
		"compare_insert_equation":                 {fn: withDeadline(compareInsertEquation), needsExpected: true},
		"compare_font_names":                      {fn: withDeadline(compareFontNames), needsExpected: true, checkRules: needKeys("font_name")},
		"compare_subscript_contains":              {fn: withDeadline(compareSubscriptContains), needsExpected: true},
		"has_page_numbers_in_footers":             {fn: hasPageNumbersInFooters},
		"is_first_line_centered":                  {fn: isFirstLineCentered},
		"check_tabstops":                          {fn: withDeadline(checkTabstops), needsExpected: true, checkOptions: anyOptions},
		"compare_contains_image":                  {fn: withDeadline(compareContainsImage), needsExpected: true},
		"evaluate_colored_words_in_tables":        {fn: withDeadline(evaluateColoredWordsInTables), needsExpected: true, checkOptions: anyOptions},
		"check_highlighted_words":                 {fn: withDeadline(checkHighlightedWords), needsExpected: true},
		"evaluate_strike_through_last_paragraph":  {fn: withDeadline(evaluateStrikeThroughLastParagraph), needsExpected: true},
		"check_italic_font_size_14":               {fn: withDeadline(checkItalicFontSize14), needsExpected: true},
		"find_default_font":                       {fn: withDeadline(findDefaultFont), needsExpected: true, checkRules: needKeys("font_name")},
		"contains_page_break":                     {fn: containsPageBreak},
		"compare_docx_lines":                      {fn: withDeadline(compareDocxLines), needsExpected: true},
		"compare_docx_files_and_ignore_new_lines": {fn: withDeadline(compareDocxFilesIgnoreNewLines), needsExpected: true, checkOptions: anyOptions},
		"compare_docx_images":                     {fn: withDeadline(compareDocxImages), needsExpected: true},
		"compare_highlighted_text":                {fn: withDeadline(compareHighlightedText), needsExpected: true},
		"compare_references":                      {fn: withDeadline(compareReferences), needsExpected: true, checkOptions: anyOptions},
	})
}

// twoDocx opens the result and expected documents; a detail explains a
// failure (OSWorld scores 0).
func twoDocx(result, expected any) (*docxDoc, *docxDoc, string) {
	if !pyTruthy(result) || !pyTruthy(expected) {
		return nil, nil, "no result or expected file"
	}
	a, err := openDOCX(result)
	if err != nil {
		return nil, nil, "result: " + err.Error()
	}
	b, err := openDOCX(expected)
	if err != nil {
		return nil, nil, "expected: " + err.Error()
	}
	return a, b, ""
}

func joinCollapsed(ps []string) string { return pyStrip(collapseSpace(strings.Join(ps, "\n"))) }

// docParagraphs reads the paragraph texts of a .docx or .odt by its name.
func docParagraphs(p any, ext string) ([]string, error) {
	if ext == ".docx" {
		d, err := openDOCX(p)
		if err != nil {
			return nil, err
		}
		return d.texts(), nil
	}
	pk, err := openOfficePackage(p.(string))
	if err != nil {
		return nil, err
	}
	ps, _, err := odtParagraphs(pk)
	return ps, err
}

// docxFilesScore is OSWorld's compare_docx_files.
func docxFilesScore(result, expected any, opts map[string]any) (float64, string) {
	ignoreBlanks := true
	if v, ok := opts["ignore_blanks"]; ok {
		ignoreBlanks = pyTruthy(v)
	}
	ignoreCase := pyTruthy(opts["ignore_case"])
	if !pyTruthy(result) || !pyTruthy(expected) {
		return 0, "no result or expected file"
	}
	f1, ok1 := result.(string)
	f2, ok2 := expected.(string)
	if !ok1 || !ok2 {
		return 0, "result and expected must be file paths"
	}
	var ext string
	switch {
	case strings.HasSuffix(f1, ".docx") && strings.HasSuffix(f2, ".docx"):
		ext = ".docx"
	case strings.HasSuffix(f1, ".odt") && strings.HasSuffix(f2, ".odt"):
		ext = ".odt"
	default:
		return 0, "files are not both .docx or both .odt"
	}
	p1, err := docParagraphs(f1, ext)
	if err != nil {
		return 0, "result: " + err.Error()
	}
	p2, err := docParagraphs(f2, ext)
	if err != nil {
		return 0, "expected: " + err.Error()
	}
	if pyTruthy(opts["ignore_order"]) {
		sort.Strings(p1)
		sort.Strings(p2)
	}
	if pyTruthy(opts["content_only"]) {
		t1, t2 := joinCollapsed(p1), joinCollapsed(p2)
		if ignoreCase {
			t1, t2 = pyLower(t1), pyLower(t2)
		}
		return fuzzRatio(t1, t2) / 100, ""
	}
	if ignoreBlanks {
		t1, t2 := joinCollapsed(p1), joinCollapsed(p2)
		if ignoreCase {
			t1, t2 = pyLower(t1), pyLower(t2)
		}
		if t1 != t2 {
			return 0, "texts differ: " + firstDiff(t1, t2)
		}
		return 1, ""
	}
	if len(p1) != len(p2) {
		return 0, fmt.Sprintf("%d paragraphs, want %d", len(p1), len(p2))
	}
	for i := range p1 {
		a, b := p1[i], p2[i]
		if ignoreCase {
			a, b = pyLower(a), pyLower(b)
		}
		if a != b {
			return 0, fmt.Sprintf("paragraph %d: %q, want %q", i+1, truncate(a, 100), truncate(b, 100))
		}
	}
	return 1, ""
}

// firstDiff shows where two texts start to differ.
func firstDiff(a, b string) string {
	ra, rb := []rune(a), []rune(b)
	i := 0
	for i < len(ra) && i < len(rb) && ra[i] == rb[i] {
		i++
	}
	from := max(0, i-20)
	return fmt.Sprintf("at character %d: %q vs %q", i, string(ra[from:min(len(ra), i+40)]), string(rb[from:min(len(rb), i+40)]))
}

func compareDocxFiles(_ metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	s, d := docxFilesScore(result, expected, opts)
	return s, d, nil
}

func compareDocxTables(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	if len(a.tables) != len(b.tables) {
		return 0, fmt.Sprintf("%d tables, want %d", len(a.tables), len(b.tables)), nil
	}
	for k := range a.tables {
		t1, t2 := readTable(a.tables[k]), readTable(b.tables[k])
		if t1.rows != t2.rows || t1.cols != t2.cols {
			return 0, fmt.Sprintf("table %d is %dx%d, want %dx%d", k+1, t1.rows, t1.cols, t2.rows, t2.cols), nil
		}
		for i := 0; i < t1.rows; i++ {
			for j := 0; j < t1.cols; j++ {
				if j >= len(t1.cells[i]) || j >= len(t2.cells[i]) {
					return 0, fmt.Sprintf("table %d row %d has fewer cells than columns", k+1, i+1), nil
				}
				c1, c2 := pyStrip(t1.cell(i, j)), pyStrip(t2.cell(i, j))
				if c1 != c2 {
					return 0, fmt.Sprintf("table %d cell (%d, %d): %q, want %q", k+1, i+1, j+1, truncate(c1, 100), truncate(c2, 100)), nil
				}
			}
		}
	}
	return 1, "", nil
}

func spacingEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case float64:
		switch y := b.(type) {
		case float64:
			return x == y
		case int64:
			return x == float64(y)
		}
	case int64:
		switch y := b.(type) {
		case float64:
			return float64(x) == y
		case int64:
			return x == y
		}
	}
	return false
}

func compareLineSpacing(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	if s, why := docxFilesScore(result, expected, nil); s == 0 {
		return 0, why, nil
	}
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	if len(a.paras) != len(b.paras) {
		return 0, fmt.Sprintf("%d paragraphs, want %d", len(a.paras), len(b.paras)), nil
	}
	for i := range a.paras {
		s1, s2 := lineSpacing(a.paras[i]), lineSpacing(b.paras[i])
		if !spacingEqual(s1, s2) {
			return 0, fmt.Sprintf("paragraph %d: line spacing %v, want %v", i+1, s1, s2), nil
		}
	}
	return 1, "", nil
}

// zipRuns calls fn on the runs of paired paragraphs, stopping at the
// shorter list each time (Python's zip); fn returning true stops.
func zipRuns(a, b *docxDoc, fn func(r1, r2 *xmlNode) bool) bool {
	for i := 0; i < min(len(a.paras), len(b.paras)); i++ {
		r1, r2 := runs(a.paras[i]), runs(b.paras[i])
		for j := 0; j < min(len(r1), len(r2)); j++ {
			if fn(r1[j], r2[j]) {
				return true
			}
		}
	}
	return false
}

func compareInsertEquation(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	if s, why := docxFilesScore(result, expected, nil); s == 0 {
		return 0, why, nil
	}
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	if zipRuns(a, b, func(r1, r2 *xmlNode) bool { return r1.has("object") && r2.has("object") }) {
		return 1, "", nil
	}
	return 0, "no paired runs both hold an equation object", nil
}

func compareFontNames(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if !pyTruthy(result) {
		return 0, "no result file", nil
	}
	d, err := openDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	want := rules["font_name"]
	for i, p := range d.paras {
		for _, r := range runs(p) {
			var name any
			if v, ok := rProp(r, "rFonts").attr("ascii"); ok {
				name = v
			}
			if !pyEqual(name, want) {
				return 0, fmt.Sprintf("paragraph %d: a run in font %s, want %s", i+1, pyRepr(name), pyRepr(want)), nil
			}
		}
	}
	return 1, "", nil
}

func subscript(r *xmlNode) bool {
	v, ok := rProp(r, "vertAlign").attr("val")
	return ok && v == "subscript"
}

func compareSubscriptContains(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	if zipRuns(a, b, func(r1, r2 *xmlNode) bool { return subscript(r1) && subscript(r2) }) {
		return 1, "", nil
	}
	return 0, "no paired runs are both subscript", nil
}

func hasPageNumbersInFooters(_ metricEnv, result, _ any, _ map[string]any) (float64, string, error) {
	if !pyTruthy(result) {
		return 0, "no result file", nil
	}
	d, err := openDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	for i, t := range d.footerTexts() {
		if !strings.ContainsFunc(t, unicode.IsDigit) {
			return 0, fmt.Sprintf("section %d: no page number in the footer (%q)", i+1, truncate(t, 100)), nil
		}
	}
	return 1, "", nil
}

func isFirstLineCentered(_ metricEnv, result, _ any, _ map[string]any) (float64, string, error) {
	if !pyTruthy(result) {
		return 0, "no result file", nil
	}
	d, err := openDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if len(d.paras) == 0 {
		return 0, "result: no paragraph", nil
	}
	if v, _ := d.paras[0].path("pPr", "jc").attr("val"); v == "center" {
		return 1, "", nil
	}
	return 0, "the first paragraph is not centered", nil
}

type tabStop struct {
	align string
	pos   int
}

func tabStops(p *xmlNode) []tabStop {
	var out []tabStop
	for _, t := range p.path("pPr", "tabs").children("tab") {
		pos, _ := strconv.Atoi(t.Attr["pos"])
		al := t.Attr["val"]
		if al == "clear" || (al == "left" || al == "start") && pos == 0 {
			continue
		}
		out = append(out, tabStop{al, pos})
	}
	return out
}

var pyWhitespace = regexp.MustCompile(`\s`)

func checkTabstops(_ metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	nonEmpty := func(d *docxDoc) []*xmlNode {
		var out []*xmlNode
		for _, p := range d.paras {
			if pyStrip(paraText(p)) != "" {
				out = append(out, p)
			}
		}
		return out
	}
	p1, p2 := nonEmpty(a), nonEmpty(b)
	if len(p1) != len(p2) {
		return 0, fmt.Sprintf("%d non-empty paragraphs, want %d", len(p1), len(p2)), nil
	}
	if n, ok := opts["word_number_split_by_tabstop"]; ok && n != nil {
		want, _ := asInt(n)
		idx := 0
		if v, ok := opts["index"]; ok {
			idx, _ = asInt(v)
		}
		for i, p := range p1 {
			splits := strings.Split(paraText(p), "\t")
			j := idx
			if j < 0 {
				j += len(splits)
			}
			if j < 0 || j >= len(splits) {
				return 0, fmt.Sprintf("paragraph %d: no part %d between tab stops", i+1, idx), nil
			}
			words := 0
			for _, w := range pyWhitespace.Split(splits[j], -1) {
				if pyStrip(w) != "" {
					words++
				}
			}
			if words != want {
				return 0, fmt.Sprintf("paragraph %d: %d words before the tab, want %d", i+1, words, want), nil
			}
		}
	}
	if len(b.sections) == 0 {
		return 0, "expected: no section", nil
	}
	sec := b.sections[0]
	w, okW := sec.path("pgSz").attr("w")
	l, okL := sec.path("pgMar").attr("left")
	r, okR := sec.path("pgMar").attr("right")
	if !okW || !okL || !okR {
		return 0, "expected: no page size or margins", nil
	}
	wi, _ := strconv.Atoi(w)
	li, _ := strconv.Atoi(l)
	ri, _ := strconv.Atoi(r)
	width := float64(wi - li - ri)
	if width == 0 {
		return 0, "expected: zero paragraph width", nil
	}
	minus := 0.0
	for i := range p1 {
		t1, t2 := tabStops(p1[i]), tabStops(p2[i])
		if len(t1) != len(t2) {
			return 0, fmt.Sprintf("paragraph %d: %d tab stops, want %d", i+1, len(t1), len(t2)), nil
		}
		diff := 0.0
		for k := range t1 {
			if t1[k].align != t2[k].align {
				return 0, fmt.Sprintf("paragraph %d: tab stop %d aligned %s, want %s", i+1, k+1, t1[k].align, t2[k].align), nil
			}
			diff += math.Abs(float64(t1[k].pos - t2[k].pos))
		}
		minus += diff / width
	}
	if len(p1) == 0 {
		return 0, "no paragraph", nil
	}
	return 1 - minus/float64(len(p1)), "", nil
}

func compareContainsImage(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	if zipRuns(a, b, func(r1, r2 *xmlNode) bool { return r1.has("graphicData") != r2.has("graphicData") }) {
		return 0, "a run holds an image where the expected one does not, or the reverse", nil
	}
	return 1, "", nil
}

// srgbToLab is skimage's rgb2lab (sRGB, D65, 2° observer).
func srgbToLab(r, g, b float64) [3]float64 {
	lin := func(c float64) float64 {
		if c > 0.04045 {
			return math.Pow((c+0.055)/1.055, 2.4)
		}
		return c / 12.92
	}
	R, G, B := lin(r), lin(g), lin(b)
	x := (0.412453*R + 0.357580*G + 0.180423*B) / 0.95047
	y := (0.212671*R + 0.715160*G + 0.072169*B) / 1.0
	z := (0.019334*R + 0.119193*G + 0.950227*B) / 1.08883
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	fx, fy, fz := f(x), f(y), f(z)
	L := 116*fy - 16
	if y <= 0.008856 {
		L = 903.3 * y
	}
	return [3]float64{L, 500 * (fx - fy), 200 * (fy - fz)}
}

// ciede2000 is the CIEDE2000 colour difference (kL = kC = kH = 1).
func ciede2000(l1, l2 [3]float64) float64 {
	L1, a1, b1 := l1[0], l1[1], l1[2]
	L2, a2, b2 := l2[0], l2[1], l2[2]
	C1 := math.Hypot(a1, b1)
	C2 := math.Hypot(a2, b2)
	Cb := (C1 + C2) / 2
	G := 0.5 * (1 - math.Sqrt(math.Pow(Cb, 7)/(math.Pow(Cb, 7)+math.Pow(25, 7))))
	a1p, a2p := (1+G)*a1, (1+G)*a2
	C1p, C2p := math.Hypot(a1p, b1), math.Hypot(a2p, b2)
	hp := func(b, a float64) float64 {
		if a == 0 && b == 0 {
			return 0
		}
		h := math.Atan2(b, a) * 180 / math.Pi
		if h < 0 {
			h += 360
		}
		return h
	}
	h1p, h2p := hp(b1, a1p), hp(b2, a2p)
	dLp := L2 - L1
	dCp := C2p - C1p
	var dhp float64
	switch {
	case C1p*C2p == 0:
		dhp = 0
	case math.Abs(h2p-h1p) <= 180:
		dhp = h2p - h1p
	case h2p-h1p > 180:
		dhp = h2p - h1p - 360
	default:
		dhp = h2p - h1p + 360
	}
	dHp := 2 * math.Sqrt(C1p*C2p) * math.Sin(dhp*math.Pi/360)
	Lbp := (L1 + L2) / 2
	Cbp := (C1p + C2p) / 2
	var hbp float64
	switch {
	case C1p*C2p == 0:
		hbp = h1p + h2p
	case math.Abs(h1p-h2p) <= 180:
		hbp = (h1p + h2p) / 2
	case h1p+h2p < 360:
		hbp = (h1p + h2p + 360) / 2
	default:
		hbp = (h1p + h2p - 360) / 2
	}
	rad := math.Pi / 180
	T := 1 - 0.17*math.Cos((hbp-30)*rad) + 0.24*math.Cos(2*hbp*rad) + 0.32*math.Cos((3*hbp+6)*rad) - 0.20*math.Cos((4*hbp-63)*rad)
	dTheta := 30 * math.Exp(-math.Pow((hbp-275)/25, 2))
	Rc := 2 * math.Sqrt(math.Pow(Cbp, 7)/(math.Pow(Cbp, 7)+math.Pow(25, 7)))
	Sl := 1 + 0.015*math.Pow(Lbp-50, 2)/math.Sqrt(20+math.Pow(Lbp-50, 2))
	Sc := 1 + 0.045*Cbp
	Sh := 1 + 0.015*Cbp*T
	Rt := -math.Sin(2*dTheta*rad) * Rc
	return math.Sqrt(math.Pow(dLp/Sl, 2) + math.Pow(dCp/Sc, 2) + math.Pow(dHp/Sh, 2) + Rt*(dCp/Sc)*(dHp/Sh))
}

func hexColor(s string) ([3]float64, bool) {
	if len(s) != 6 {
		return [3]float64{}, false
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return [3]float64{}, false
	}
	return [3]float64{float64(v>>16&0xff) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255}, true
}

func evaluateColoredWordsInTables(_ metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	if s, why := docxFilesScore(result, expected, nil); s == 0 {
		return 0, why, nil
	}
	d, err := openDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	threshold := 3.5
	if v, ok := number(opts["threshold"]); ok {
		threshold = v
	}
	red := srgbToLab(1, 0, 0)
	blue := srgbToLab(0, 0, 1)
	for _, t := range d.tables {
		for _, tr := range t.children("tr") {
			for _, tc := range tr.children("tc") {
				for _, p := range tc.children("p") {
					for _, r := range runs(p) {
						word := runText(r)
						if word == "" {
							continue
						}
						v, _ := rProp(r, "color").attr("val")
						c, ok := hexColor(v)
						if !ok {
							return 0, fmt.Sprintf("word %q has no RGB colour", truncate(word, 50)), nil
						}
						lab := srgbToLab(c[0], c[1], c[2])
						first := strings.ToLower(string([]rune(word)[0]))
						want, name := blue, "blue"
						if strings.Contains("aeiou", first) {
							want, name = red, "red"
						}
						if ciede2000(lab, want) > threshold {
							return 0, fmt.Sprintf("word %q is #%s, want %s", truncate(word, 50), v, name), nil
						}
					}
				}
			}
		}
	}
	return 1, "", nil
}

func checkHighlightedWords(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	if s, why := docxFilesScore(result, expected, nil); s == 0 {
		return 0, why, nil
	}
	pk, err := openOfficePackage(result.(string))
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	_, root, err := odtParagraphs(pk)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	yellow := map[string]bool{}
	for _, st := range root.path("automatic-styles").children("style") {
		for _, prop := range st.Children {
			if prop.Attr["background-color"] == "#ffff00" {
				yellow[st.Attr["name"]] = true
			}
		}
	}
	highlighted := false
	root.walk(func(n *xmlNode) bool {
		if n.Name == "span" && yellow[n.Attr["style-name"]] {
			highlighted = true
		}
		return !highlighted
	})
	if highlighted {
		return 0, "some text is still highlighted in yellow", nil
	}
	return 1, "", nil
}

func evaluateStrikeThroughLastParagraph(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	if s, why := docxFilesScore(result, expected, nil); s == 0 {
		return 0, why, nil
	}
	d, err := openDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if len(d.paras) == 0 {
		return 0, "result: no paragraph", nil
	}
	for _, r := range runs(d.paras[len(d.paras)-1]) {
		if v := runBool(r, "strike"); v != true {
			return 0, fmt.Sprintf("%q is not struck through", truncate(runText(r), 50)), nil
		}
	}
	return 1, "", nil
}

func checkItalicFontSize14(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	if s, why := docxFilesScore(result, expected, nil); s == 0 {
		return 0, why, nil
	}
	d, err := openDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	for _, p := range d.paras {
		for _, r := range runs(p) {
			if runBool(r, "i") != true {
				continue
			}
			v, ok := rProp(r, "sz").attr("val")
			n, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil || n/2 != 14 {
				return 0, fmt.Sprintf("italic %q is not 14 pt", truncate(runText(r), 50)), nil
			}
		}
	}
	return 1, "", nil
}

func findDefaultFont(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	want := rules["font_name"]
	if !pyTruthy(result) {
		return 0, "no configuration file", nil
	}
	p, ok := result.(string)
	if !ok {
		return 0, "result: want a file path", nil
	}
	var font any
	if data, err := os.ReadFile(p); err == nil {
		if root, err := parseOfficeXML(data); err == nil {
			for _, item := range root.find("item") {
				if item.Attr["path"] != "/org.openoffice.Office.Writer/DefaultFont" {
					continue
				}
				for _, prop := range item.find("prop") {
					if prop.Attr["name"] != "Standard" {
						continue
					}
					for _, v := range prop.children("value") {
						font = v.Text
					}
				}
			}
		}
	}
	if pyEqual(font, want) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("default font %s, want %s", pyRepr(font), pyRepr(want)), nil
}

func containsPageBreak(_ metricEnv, result, _ any, _ map[string]any) (float64, string, error) {
	if !pyTruthy(result) {
		return 0, "no result file", nil
	}
	d, err := openDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	for _, p := range d.paras {
		for _, r := range runs(p) {
			for _, br := range r.find("br") {
				if br.Attr["type"] == "page" {
					return 1, "", nil
				}
			}
		}
	}
	return 0, "no page break", nil
}

func compareDocxLines(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	set := func(d *docxDoc) map[string]bool {
		m := map[string]bool{}
		for _, t := range d.texts() {
			if t = pyStrip(t); t != "" {
				m[t] = true
			}
		}
		return m
	}
	s1, s2 := set(a), set(b)
	for k := range s2 {
		if !s1[k] {
			return 0, fmt.Sprintf("missing line %q", truncate(k, 100)), nil
		}
	}
	for k := range s1 {
		if !s2[k] {
			return 0, fmt.Sprintf("unexpected line %q", truncate(k, 100)), nil
		}
	}
	return 1, "", nil
}

func compareDocxFilesIgnoreNewLines(_ metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	ignoreBlanks := true
	if v, ok := opts["ignore_blanks"]; ok {
		ignoreBlanks = pyTruthy(v)
	}
	f1, _ := result.(string)
	f2, _ := expected.(string)
	if f1 == "" || f2 == "" {
		return 0, "no result or expected file", nil
	}
	if !strings.HasSuffix(f1, ".docx") || !strings.HasSuffix(f2, ".docx") {
		return 0, "files are not both .docx", nil
	}
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	nonEmpty := func(d *docxDoc) []string {
		var out []string
		for _, t := range d.texts() {
			if t != "" {
				out = append(out, t)
			}
		}
		return out
	}
	p1, p2 := nonEmpty(a), nonEmpty(b)
	if ignoreBlanks {
		t1, t2 := joinCollapsed(p1), joinCollapsed(p2)
		if t1 != t2 {
			return 0, "texts differ: " + firstDiff(t1, t2), nil
		}
		return 1, "", nil
	}
	if len(p1) != len(p2) {
		return 0, fmt.Sprintf("%d paragraphs, want %d", len(p1), len(p2)), nil
	}
	for i := range p1 {
		if p1[i] != p2[i] {
			return 0, fmt.Sprintf("paragraph %d: %q, want %q", i+1, truncate(p1[i], 100), truncate(p2[i], 100)), nil
		}
	}
	return 1, "", nil
}

// decodePixels decodes an image to comparable pixels.
func decodePixels(data []byte) (image.Image, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if cfg.Width*cfg.Height > 100<<20 {
		return nil, fmt.Errorf("image of %dx%d pixels is too large", cfg.Width, cfg.Height)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	return img, err
}

func samePixels(a, b image.Image) bool {
	if a.Bounds().Size() != b.Bounds().Size() {
		return false
	}
	ba, bb := a.Bounds(), b.Bounds()
	for y := 0; y < ba.Dy(); y++ {
		for x := 0; x < ba.Dx(); x++ {
			r1, g1, b1, a1 := a.At(ba.Min.X+x, ba.Min.Y+y).RGBA()
			r2, g2, b2, a2 := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}

func compareDocxImages(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	i1, err := a.images()
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	i2, err := b.images()
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	if len(i1) != len(i2) {
		return 0, fmt.Sprintf("%d images, want %d", len(i1), len(i2)), nil
	}
	for k := range i1 {
		if bytes.Equal(i1[k], i2[k]) {
			continue
		}
		p1, err := decodePixels(i1[k])
		if err != nil {
			return 0, fmt.Sprintf("result image %d: %v", k+1, err), nil
		}
		p2, err := decodePixels(i2[k])
		if err != nil {
			return 0, fmt.Sprintf("expected image %d: %v", k+1, err), nil
		}
		if !samePixels(p1, p2) {
			return 0, fmt.Sprintf("image %d differs", k+1), nil
		}
	}
	return 1, "", nil
}

func highlightedTexts(p any) (map[string]bool, error) {
	d, err := openDOCX(p)
	if err != nil {
		return nil, err
	}
	root, _ := d.pk.xml(d.part)
	out := map[string]bool{}
	for _, r := range root.find("r") {
		hs := r.find("highlight")
		if len(hs) == 0 || hs[0].Attr["val"] == "none" {
			continue
		}
		if ts := r.find("t"); len(ts) > 0 {
			out[ts[0].Text] = true
		}
	}
	return out, nil
}

func compareHighlightedText(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	if !pyTruthy(result) || !pyTruthy(expected) {
		return 0, "no result or expected file", nil
	}
	h1, err := highlightedTexts(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	h2, err := highlightedTexts(expected)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	if pyEqual(sortedSet(h1), sortedSet(h2)) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("highlighted %q, want %q", sortedSet(h1), sortedSet(h2)), nil
}

func compareReferences(_ metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	indicator := "References"
	if v, ok := opts["reference_indicator"].(string); ok {
		indicator = v
	}
	base := 0.5
	if v, ok := number(opts["reference_base_result"]); ok {
		base = v
	}
	f1, _ := result.(string)
	f2, _ := expected.(string)
	if f1 == "" || f2 == "" {
		return 0, "no result or expected file", nil
	}
	if !strings.HasSuffix(f1, ".docx") || !strings.HasSuffix(f2, ".docx") {
		return 0, "files are not both .docx", nil
	}
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	t1, t2 := a.texts(), b.texts()
	idx := func(ts []string) int {
		for i, t := range ts {
			if t == indicator {
				return i
			}
		}
		return -1
	}
	i1, i2 := idx(t1), idx(t2)
	if i1 == -1 && i2 == -1 {
		return 1, "", nil
	}
	if i1 == -1 || i2 == -1 {
		return 0, fmt.Sprintf("only one document has a %q paragraph", indicator), nil
	}
	refs := func(ts []string) []string {
		var out []string
		for _, t := range ts {
			if pyStrip(t) != "" {
				out = append(out, t)
			}
		}
		return out
	}
	r1, r2 := refs(t1[i1+1:]), refs(t2[i2+1:])
	if len(r1) != len(r2) {
		return 0, fmt.Sprintf("%d references, want %d", len(r1), len(r2)), nil
	}
	if len(r1) == 0 {
		return 0, "no references", nil
	}
	total := 0.0
	for i := range r1 {
		total += fuzzRatio(r1[i], r2[i]) / 100
	}
	res := total / float64(len(r1))
	if res >= base {
		if base == 1 {
			return 0, "reference_base_result is 1", nil
		}
		return (res - base) / (1 - base), "", nil
	}
	return 0, fmt.Sprintf("references are %.2f similar, under %.2f", res, base), nil
}
