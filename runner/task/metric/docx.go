package metric

import (
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/office"
	"github.com/deskrun/deskrun/runner/task/internal/pil"
)

// Writer document metrics, on python-docx's view of a .docx (and
// OSWorld's odfpy view of an .odt where its metric reads one).

// twoDocx opens the result and expected documents; a detail explains a
// failure (OSWorld scores 0).
func twoDocx(result, expected any) (*office.Docx, *office.Docx, string) {
	if !py.Truthy(result) || !py.Truthy(expected) {
		return nil, nil, "no result or expected file"
	}
	a, err := office.OpenDOCX(result)
	if err != nil {
		return nil, nil, "result: " + err.Error()
	}
	b, err := office.OpenDOCX(expected)
	if err != nil {
		return nil, nil, "expected: " + err.Error()
	}
	return a, b, ""
}

func joinCollapsed(ps []string) string { return py.Strip(collapseSpace(strings.Join(ps, "\n"))) }

// docParagraphs reads the paragraph texts of a .docx or .odt by its name.
func docParagraphs(p any, ext string) ([]string, error) {
	if ext == ".docx" {
		d, err := office.OpenDOCX(p)
		if err != nil {
			return nil, err
		}
		return d.Texts(), nil
	}
	pk, err := office.Open(p.(string))
	if err != nil {
		return nil, err
	}
	ps, _, err := office.OdtParagraphs(pk)
	return ps, err
}

// docxFilesScore is OSWorld's compare_docx_files.
func docxFilesScore(ctx context.Context, result, expected any, opts map[string]any) (float64, string) {
	// Under a done ctx the ratio is meaningless; the caller answers ctx's
	// error (withDeadline).
	fuzz := func(a, b string) float64 {
		r, _ := py.FuzzRatioContext(ctx, a, b)
		return r / 100
	}
	ignoreBlanks := true
	if v, ok := opts["ignore_blanks"]; ok {
		ignoreBlanks = py.Truthy(v)
	}
	ignoreCase := py.Truthy(opts["ignore_case"])
	if !py.Truthy(result) || !py.Truthy(expected) {
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
	if py.Truthy(opts["ignore_order"]) {
		sort.Strings(p1)
		sort.Strings(p2)
	}
	if py.Truthy(opts["delete_empty_lines"]) {
		p1, p2 = nonBlank(p1), nonBlank(p2)
	}
	fuzzy := py.Truthy(opts["fuzzy_match"])
	if py.Truthy(opts["content_only"]) {
		t1, t2 := joinCollapsed(p1), joinCollapsed(p2)
		if ignoreCase {
			t1, t2 = py.Lower(t1), py.Lower(t2)
		}
		return fuzz(t1, t2), ""
	}
	if ignoreBlanks {
		t1, t2 := joinCollapsed(p1), joinCollapsed(p2)
		if ignoreCase {
			t1, t2 = py.Lower(t1), py.Lower(t2)
		}
		if fuzzy {
			return fuzz(t1, t2), ""
		}
		if t1 != t2 {
			return 0, "texts differ: " + firstDiff(t1, t2)
		}
		return 1, ""
	}
	if len(p1) != len(p2) {
		return 0, fmt.Sprintf("%d paragraphs, want %d", len(p1), len(p2))
	}
	if fuzzy {
		// The mean of the paragraphs' ratios; no paragraphs score 1.
		if len(p1) == 0 {
			return 1, ""
		}
		total := 0.0
		for i := range p1 {
			a, b := p1[i], p2[i]
			if ignoreCase {
				a, b = py.Lower(a), py.Lower(b)
			}
			total += fuzz(a, b)
		}
		return total / float64(len(p1)), ""
	}
	for i := range p1 {
		a, b := p1[i], p2[i]
		if ignoreCase {
			a, b = py.Lower(a), py.Lower(b)
		}
		if a != b {
			return 0, fmt.Sprintf("paragraph %d: %q, want %q", i+1, py.Truncate(a, 100), py.Truncate(b, 100))
		}
	}
	return 1, ""
}

// nonBlank keeps the paragraphs that are not blank (OSWorld's
// delete_empty_lines).
func nonBlank(ps []string) []string {
	var out []string
	for _, p := range ps {
		if py.Strip(p) != "" {
			out = append(out, p)
		}
	}
	return out
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

// compareDocxFiles implements OSWorld's compare_docx_files
// (desktop_env/evaluators/metrics/docs.py).
func compareDocxFiles(ctx context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	s, d := docxFilesScore(ctx, result, expected, opts)
	return s, d, nil
}

// compareDocxTables implements OSWorld's compare_docx_tables
// (desktop_env/evaluators/metrics/docs.py).
func compareDocxTables(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	if len(a.Tables) != len(b.Tables) {
		return 0, fmt.Sprintf("%d tables, want %d", len(a.Tables), len(b.Tables)), nil
	}
	for k := range a.Tables {
		t1, t2 := office.ReadTable(a.Tables[k]), office.ReadTable(b.Tables[k])
		if t1.Rows != t2.Rows || t1.Cols != t2.Cols {
			return 0, fmt.Sprintf("table %d is %dx%d, want %dx%d", k+1, t1.Rows, t1.Cols, t2.Rows, t2.Cols), nil
		}
		for i := 0; i < t1.Rows; i++ {
			for j := 0; j < t1.Cols; j++ {
				if j >= len(t1.Cells[i]) || j >= len(t2.Cells[i]) {
					return 0, fmt.Sprintf("table %d row %d has fewer cells than columns", k+1, i+1), nil
				}
				c1, c2 := py.Strip(t1.Cell(i, j)), py.Strip(t2.Cell(i, j))
				if c1 != c2 {
					return 0, fmt.Sprintf("table %d cell (%d, %d): %q, want %q", k+1, i+1, j+1, py.Truncate(c1, 100), py.Truncate(c2, 100)), nil
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

// compareLineSpacing implements OSWorld's compare_line_spacing
// (desktop_env/evaluators/metrics/docs.py).
func compareLineSpacing(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if s, why := docxFilesScore(ctx, result, expected, nil); s == 0 {
		return 0, why, nil
	}
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	if len(a.Paras) != len(b.Paras) {
		return 0, fmt.Sprintf("%d paragraphs, want %d", len(a.Paras), len(b.Paras)), nil
	}
	for i := range a.Paras {
		s1, s2 := office.LineSpacing(a.Paras[i]), office.LineSpacing(b.Paras[i])
		if !spacingEqual(s1, s2) {
			return 0, fmt.Sprintf("paragraph %d: line spacing %v, want %v", i+1, s1, s2), nil
		}
	}
	return 1, "", nil
}

// zipRuns calls fn on the runs of paired paragraphs, stopping at the
// shorter list each time (Python's zip); fn returning true stops.
func zipRuns(a, b *office.Docx, fn func(r1, r2 *office.Node) bool) bool {
	for i := 0; i < min(len(a.Paras), len(b.Paras)); i++ {
		r1, r2 := office.Runs(a.Paras[i]), office.Runs(b.Paras[i])
		for j := 0; j < min(len(r1), len(r2)); j++ {
			if fn(r1[j], r2[j]) {
				return true
			}
		}
	}
	return false
}

// compareInsertEquation implements OSWorld's compare_insert_equation
// (desktop_env/evaluators/metrics/docs.py).
func compareInsertEquation(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if s, why := docxFilesScore(ctx, result, expected, nil); s == 0 {
		return 0, why, nil
	}
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	if zipRuns(a, b, func(r1, r2 *office.Node) bool { return r1.Has("object") && r2.Has("object") }) {
		return 1, "", nil
	}
	return 0, "no paired runs both hold an equation object", nil
}

// compareFontNames implements OSWorld's compare_font_names
// (desktop_env/evaluators/metrics/docs.py).
func compareFontNames(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if !py.Truthy(result) {
		return 0, "no result file", nil
	}
	d, err := office.OpenDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	want := rules["font_name"]
	for i, p := range d.Paras {
		for _, r := range office.Runs(p) {
			var name any
			if v, ok := office.RProp(r, "rFonts").Attribute("ascii"); ok {
				name = v
			}
			if !py.Equal(name, want) {
				return 0, fmt.Sprintf("paragraph %d: a run in font %s, want %s", i+1, py.Repr(name), py.Repr(want)), nil
			}
		}
	}
	return 1, "", nil
}

func subscript(r *office.Node) bool {
	v, ok := office.RProp(r, "vertAlign").Attribute("val")
	return ok && v == "subscript"
}

// compareSubscriptContains implements OSWorld's
// compare_subscript_contains (desktop_env/evaluators/metrics/docs.py).
func compareSubscriptContains(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	if zipRuns(a, b, func(r1, r2 *office.Node) bool { return subscript(r1) && subscript(r2) }) {
		return 1, "", nil
	}
	return 0, "no paired runs are both subscript", nil
}

// hasPageNumbersInFooters implements OSWorld's
// has_page_numbers_in_footers (desktop_env/evaluators/metrics/docs.py).
func hasPageNumbersInFooters(_ context.Context, result, _ any, _ map[string]any) (float64, string, error) {
	if !py.Truthy(result) {
		return 0, "no result file", nil
	}
	d, err := office.OpenDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	for i, t := range d.FooterTexts() {
		if !strings.ContainsFunc(t, unicode.IsDigit) {
			return 0, fmt.Sprintf("section %d: no page number in the footer (%q)", i+1, py.Truncate(t, 100)), nil
		}
	}
	return 1, "", nil
}

// isFirstLineCentered implements OSWorld's is_first_line_centered
// (desktop_env/evaluators/metrics/docs.py).
func isFirstLineCentered(_ context.Context, result, _ any, _ map[string]any) (float64, string, error) {
	if !py.Truthy(result) {
		return 0, "no result file", nil
	}
	d, err := office.OpenDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if len(d.Paras) == 0 {
		return 0, "result: no paragraph", nil
	}
	if v, _ := d.Paras[0].Path("pPr", "jc").Attribute("val"); v == "center" {
		return 1, "", nil
	}
	return 0, "the first paragraph is not centered", nil
}

type tabStop struct {
	align string
	pos   int
}

func tabStops(p *office.Node) []tabStop {
	var out []tabStop
	for _, t := range p.Path("pPr", "tabs").ChildrenNamed("tab") {
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

// checkTabstops implements OSWorld's check_tabstops
// (desktop_env/evaluators/metrics/docs.py).
func checkTabstops(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	nonEmpty := func(d *office.Docx) []*office.Node {
		var out []*office.Node
		for _, p := range d.Paras {
			if py.Strip(office.ParaText(p)) != "" {
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
		want, _ := py.AsInt(n)
		idx := 0
		if v, ok := opts["index"]; ok {
			idx, _ = py.AsInt(v)
		}
		for i, p := range p1 {
			splits := strings.Split(office.ParaText(p), "\t")
			j := idx
			if j < 0 {
				j += len(splits)
			}
			if j < 0 || j >= len(splits) {
				return 0, fmt.Sprintf("paragraph %d: no part %d between tab stops", i+1, idx), nil
			}
			words := 0
			for _, w := range pyWhitespace.Split(splits[j], -1) {
				if py.Strip(w) != "" {
					words++
				}
			}
			if words != want {
				return 0, fmt.Sprintf("paragraph %d: %d words before the tab, want %d", i+1, words, want), nil
			}
		}
	}
	if len(b.Sections) == 0 {
		return 0, "expected: no section", nil
	}
	sec := b.Sections[0]
	w, okW := sec.Path("pgSz").Attribute("w")
	l, okL := sec.Path("pgMar").Attribute("left")
	r, okR := sec.Path("pgMar").Attribute("right")
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

// compareContainsImage implements OSWorld's compare_contains_image
// (desktop_env/evaluators/metrics/docs.py).
func compareContainsImage(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	if zipRuns(a, b, func(r1, r2 *office.Node) bool { return r1.Has("graphicData") != r2.Has("graphicData") }) {
		return 0, "a run holds an image where the expected one does not, or the reverse", nil
	}
	return 1, "", nil
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

// evaluateColoredWordsInTables implements OSWorld's
// evaluate_colored_words_in_tables
// (desktop_env/evaluators/metrics/docs.py).
func evaluateColoredWordsInTables(ctx context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	if s, why := docxFilesScore(ctx, result, expected, nil); s == 0 {
		return 0, why, nil
	}
	d, err := office.OpenDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	threshold := 3.5
	if v, ok := py.Number(opts["threshold"]); ok {
		threshold = v
	}
	red := pil.RGBToLab(1, 0, 0)
	blue := pil.RGBToLab(0, 0, 1)
	for _, t := range d.Tables {
		for _, tr := range t.ChildrenNamed("tr") {
			for _, tc := range tr.ChildrenNamed("tc") {
				for _, p := range tc.ChildrenNamed("p") {
					for _, r := range office.Runs(p) {
						word := office.RunText(r)
						if word == "" {
							continue
						}
						v, _ := office.RProp(r, "color").Attribute("val")
						c, ok := hexColor(v)
						if !ok {
							return 0, fmt.Sprintf("word %q has no RGB colour", py.Truncate(word, 50)), nil
						}
						lab := pil.RGBToLab(c[0], c[1], c[2])
						first := strings.ToLower(string([]rune(word)[0]))
						want, name := blue, "blue"
						if strings.Contains("aeiou", first) {
							want, name = red, "red"
						}
						if pil.CIEDE2000(lab, want) > threshold {
							return 0, fmt.Sprintf("word %q is #%s, want %s", py.Truncate(word, 50), v, name), nil
						}
					}
				}
			}
		}
	}
	return 1, "", nil
}

// checkHighlightedWords implements OSWorld's check_highlighted_words
// (desktop_env/evaluators/metrics/docs.py).
func checkHighlightedWords(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if s, why := docxFilesScore(ctx, result, expected, nil); s == 0 {
		return 0, why, nil
	}
	pk, err := office.Open(result.(string))
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	_, root, err := office.OdtParagraphs(pk)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	yellow := map[string]bool{}
	for _, st := range root.Path("automatic-styles").ChildrenNamed("style") {
		for _, prop := range st.Children {
			if prop.Attr["background-color"] == "#ffff00" {
				yellow[st.Attr["name"]] = true
			}
		}
	}
	highlighted := false
	root.Walk(func(n *office.Node) bool {
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

// evaluateStrikeThroughLastParagraph implements OSWorld's
// evaluate_strike_through_last_paragraph
// (desktop_env/evaluators/metrics/docs.py).
func evaluateStrikeThroughLastParagraph(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if s, why := docxFilesScore(ctx, result, expected, nil); s == 0 {
		return 0, why, nil
	}
	d, err := office.OpenDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if len(d.Paras) == 0 {
		return 0, "result: no paragraph", nil
	}
	for _, r := range office.Runs(d.Paras[len(d.Paras)-1]) {
		if v := office.RunBool(r, "strike"); v != true {
			return 0, fmt.Sprintf("%q is not struck through", py.Truncate(office.RunText(r), 50)), nil
		}
	}
	return 1, "", nil
}

// checkItalicFontSize14 implements OSWorld's check_italic_font_size_14
// (desktop_env/evaluators/metrics/docs.py).
func checkItalicFontSize14(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if s, why := docxFilesScore(ctx, result, expected, nil); s == 0 {
		return 0, why, nil
	}
	d, err := office.OpenDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	for _, p := range d.Paras {
		for _, r := range office.Runs(p) {
			if office.RunBool(r, "i") != true {
				continue
			}
			v, ok := office.RProp(r, "sz").Attribute("val")
			n, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil || n/2 != 14 {
				return 0, fmt.Sprintf("italic %q is not 14 pt", py.Truncate(office.RunText(r), 50)), nil
			}
		}
	}
	return 1, "", nil
}

// findDefaultFont implements OSWorld's find_default_font
// (desktop_env/evaluators/metrics/docs.py).
func findDefaultFont(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	want := rules["font_name"]
	if !py.Truthy(result) {
		return 0, "no configuration file", nil
	}
	p, ok := result.(string)
	if !ok {
		return 0, "result: want a file path", nil
	}
	var font any
	if data, err := os.ReadFile(p); err == nil {
		if root, err := office.Parse(data); err == nil {
			for _, item := range root.Find("item") {
				if item.Attr["path"] != "/org.openoffice.Office.Writer/DefaultFont" {
					continue
				}
				for _, prop := range item.Find("prop") {
					if prop.Attr["name"] != "Standard" {
						continue
					}
					for _, v := range prop.ChildrenNamed("value") {
						font = v.Text
					}
				}
			}
		}
	}
	if py.Equal(font, want) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("default font %s, want %s", py.Repr(font), py.Repr(want)), nil
}

// containsPageBreak implements OSWorld's contains_page_break
// (desktop_env/evaluators/metrics/docs.py).
func containsPageBreak(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if !py.Truthy(result) {
		return 0, "no result file", nil
	}
	d, err := office.OpenDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	n := 0
	for _, p := range d.Paras {
		for _, r := range office.Runs(p) {
			for _, br := range r.Find("br") {
				if br.Attr["type"] == "page" {
					n++
				}
			}
		}
	}
	// OSWorld: with rules.page_break_count, exactly that many; else any.
	if rules, ok := expected.(map[string]any); ok {
		if want, ok := rules["page_break_count"]; ok && !py.Equal(want, json.Number(strconv.Itoa(n))) {
			return 0, fmt.Sprintf("%d page breaks, want %s", n, py.Repr(want)), nil
		}
	}
	if n == 0 {
		return 0, "no page break", nil
	}
	return 1, "", nil
}

// compareUniqueTrainRecords implements OSWorld's
// compare_unique_train_records (desktop_env/evaluators/metrics/docs.py):
// expected is [gold, initial]; every non-blank line of the result must be
// in the initial file, the train IDs (second field of 4-field lines) unique
// and the gold's set, and the line count the gold's.
func compareUniqueTrainRecords(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	files, ok := expected.([]any)
	if !py.Truthy(result) || !ok || len(files) < 2 || !py.Truthy(files[0]) || !py.Truthy(files[1]) {
		return 0, "want a result file and [gold, initial] files", nil
	}
	read := func(f any) (lines, ids []string, err error) {
		name, ok := f.(string)
		if !ok {
			return nil, nil, fmt.Errorf("want a file path, got %s", py.TypeName(f))
		}
		ps, err := docParagraphs(name, ".docx")
		if err != nil {
			return nil, nil, err
		}
		for _, p := range ps {
			if t := py.Strip(p); t != "" {
				lines = append(lines, t)
				if fs := strings.Split(t, ","); len(fs) == 4 {
					ids = append(ids, py.Strip(fs[1]))
				}
			}
		}
		return lines, ids, nil
	}
	got, gotIDs, err := read(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	gold, goldIDs, err := read(files[0])
	if err != nil {
		return 0, "gold: " + err.Error(), nil
	}
	initial, _, err := read(files[1])
	if err != nil {
		return 0, "initial: " + err.Error(), nil
	}
	inInitial := map[string]bool{}
	for _, l := range initial {
		inInitial[l] = true
	}
	for _, l := range got {
		if !inInitial[l] {
			return 0, fmt.Sprintf("line %q is not in the initial file", py.Truncate(l, 80)), nil
		}
	}
	seen := map[string]bool{}
	for _, id := range gotIDs {
		if seen[id] {
			return 0, fmt.Sprintf("train ID %q appears twice", id), nil
		}
		seen[id] = true
	}
	want := map[string]bool{}
	for _, id := range goldIDs {
		want[id] = true
	}
	if len(want) != len(seen) {
		return 0, fmt.Sprintf("%d distinct train IDs, want %d", len(seen), len(want)), nil
	}
	for id := range want {
		if !seen[id] {
			return 0, fmt.Sprintf("train ID %q missing", id), nil
		}
	}
	if len(got) != len(gold) {
		return 0, fmt.Sprintf("%d lines, want %d", len(got), len(gold)), nil
	}
	return 1, "", nil
}

// compareInitLines implements OSWorld's compare_init_lines
// (desktop_env/evaluators/metrics/docs.py): the paragraphs the two
// documents both have are equal (the longer one's extra paragraphs are not
// read).
func compareInitLines(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	f1, ok1 := result.(string)
	f2, ok2 := expected.(string)
	if !ok1 || !ok2 || f1 == "" || f2 == "" {
		return 0, "no result or expected file", nil
	}
	p1, err := docParagraphs(f1, ".docx")
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	p2, err := docParagraphs(f2, ".docx")
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	for i := 0; i < min(len(p1), len(p2)); i++ {
		if p1[i] != p2[i] {
			return 0, fmt.Sprintf("paragraph %d: %q, want %q", i+1, py.Truncate(p1[i], 100), py.Truncate(p2[i], 100)), nil
		}
	}
	return 1, "", nil
}

// compareDocxLines implements OSWorld's compare_docx_lines
// (desktop_env/evaluators/metrics/docs.py).
func compareDocxLines(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	set := func(d *office.Docx) map[string]bool {
		m := map[string]bool{}
		for _, t := range d.Texts() {
			if t = py.Strip(t); t != "" {
				m[t] = true
			}
		}
		return m
	}
	s1, s2 := set(a), set(b)
	for k := range s2 {
		if !s1[k] {
			return 0, fmt.Sprintf("missing line %q", py.Truncate(k, 100)), nil
		}
	}
	for k := range s1 {
		if !s2[k] {
			return 0, fmt.Sprintf("unexpected line %q", py.Truncate(k, 100)), nil
		}
	}
	return 1, "", nil
}

// compareDocxFilesIgnoreNewLines implements OSWorld's
// compare_docx_files_and_ignore_new_lines
// (desktop_env/evaluators/metrics/docs.py).
func compareDocxFilesIgnoreNewLines(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	ignoreBlanks := true
	if v, ok := opts["ignore_blanks"]; ok {
		ignoreBlanks = py.Truthy(v)
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
	nonEmpty := func(d *office.Docx) []string {
		var out []string
		for _, t := range d.Texts() {
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
			return 0, fmt.Sprintf("paragraph %d: %q, want %q", i+1, py.Truncate(p1[i], 100), py.Truncate(p2[i], 100)), nil
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

// compareDocxImages implements OSWorld's compare_docx_images
// (desktop_env/evaluators/metrics/docs.py).
func compareDocxImages(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, why := twoDocx(result, expected)
	if why != "" {
		return 0, why, nil
	}
	i1, err := a.Images()
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	i2, err := b.Images()
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
	d, err := office.OpenDOCX(p)
	if err != nil {
		return nil, err
	}
	root, _ := d.Pk.XML(d.Part)
	out := map[string]bool{}
	for _, r := range root.Find("r") {
		hs := r.Find("highlight")
		if len(hs) == 0 || hs[0].Attr["val"] == "none" {
			continue
		}
		if ts := r.Find("t"); len(ts) > 0 {
			out[ts[0].Text] = true
		}
	}
	return out, nil
}

// compareHighlightedText implements OSWorld's compare_highlighted_text
// (desktop_env/evaluators/metrics/docs.py).
func compareHighlightedText(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if !py.Truthy(result) || !py.Truthy(expected) {
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
	if py.Equal(office.SortedSet(h1), office.SortedSet(h2)) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("highlighted %q, want %q", office.SortedSet(h1), office.SortedSet(h2)), nil
}

// compareReferences implements OSWorld's compare_references
// (desktop_env/evaluators/metrics/docs.py).
func compareReferences(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	indicator := "References"
	if v, ok := opts["reference_indicator"].(string); ok {
		indicator = v
	}
	base := 0.5
	if v, ok := py.Number(opts["reference_base_result"]); ok {
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
	t1, t2 := a.Texts(), b.Texts()
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
			if py.Strip(t) != "" {
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
		total += py.FuzzRatio(r1[i], r2[i]) / 100
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
