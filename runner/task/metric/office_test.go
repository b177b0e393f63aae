package metric

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/internal/py"
)

// fx is the path of an office fixture (testdata/metrics, made by make.py).
func fx(name string) string { return filepath.Join("testdata", "metrics", name) }

// rules makes compare_table options from a JSON list of rules.
func rules(t *testing.T, s string) map[string]any {
	t.Helper()
	opts := map[string]any{"rules": jv(t, s)}
	if err := checkTableOptions(opts); err != nil {
		t.Fatalf("options %s: %v", s, err)
	}
	return opts
}

// corrupt writes bytes that are not a document under the given name.
func corruptFile(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("PK\x03\x04 not really a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompareTable(t *testing.T) {
	base := fx("table_base.xlsx")
	data := `[{"type":"sheet_data","sheet_idx0":0,"sheet_idx1":"EI0"}]`
	cases := []metricCase{
		{"identical", base, base, rules(t, data), 1},
		{"value changed", fx("table_value.xlsx"), base, rules(t, data), 0},
		{"case changed", fx("table_case.xlsx"), base, rules(t, data), 0},
		{"ignore_case is not read by sheet_data", fx("table_case.xlsx"), base, rules(t, `[{"type":"sheet_data","sheet_idx0":0,"sheet_idx1":"EI0","ignore_case":true}]`), 0},
		{"under precision", fx("table_round.xlsx"), base, rules(t, data), 1},
		{"precision 5", fx("table_round.xlsx"), base, rules(t, `[{"type":"sheet_data","sheet_idx0":"RNSheet1","sheet_idx1":"ENSheet1","precision":5}]`), 0},
		{"second sheet", base, fx("table_value.xlsx"), rules(t, `[{"type":"sheet_data","sheet_idx0":"RI1","sheet_idx1":"EI1"}]`), 1},
		{"missing sheet", base, base, rules(t, `[{"type":"sheet_data","sheet_idx0":"RNnope","sheet_idx1":"EI0"}]`), 0},
		{"sheet names", base, base, rules(t, `[{"type":"sheet_name"}]`), 1},
		{"sheet renamed", fx("table_sheetname.xlsx"), base, rules(t, `[{"type":"sheet_name"}]`), 0},
		{"formula cached by Calc", base, nil, rules(t, `[{"type":"check_cell","sheet_idx":0,"coordinate":"E2","props":{"value":{"method":"approx:0.1","ref":15}}}]`), 1},
		{"openpyxl inline string read", fx("table_openpyxl.xlsx"), nil, rules(t, `[{"type":"check_cell","sheet_idx":0,"coordinate":"A1","props":{"value":{"method":"eq","ref":"Name"}}}]`), 1},
		{"openpyxl formula not cached", fx("table_openpyxl.xlsx"), base, rules(t, data), 0},
		{"cell value", base, nil, rules(t, `[{"type":"check_cell","sheet_idx":0,"coordinate":"B3","props":{"value":{"method":"eq","ref":5}}}]`), 1},
		{"cell value wrong", fx("table_value.xlsx"), nil, rules(t, `[{"type":"check_cell","sheet_idx":0,"coordinate":"B3","props":{"value":{"method":"eq","ref":5}}}]`), 0},
		{"cell style", base, nil, rules(t, `[{"type":"check_cell","sheet_idx":0,"coordinate":"A1","props":{"font_bold":{"method":"eq","ref":true},"font_color":{"method":"eq","ref":"FF0000FF"},"value":{"method":"eq","ref":"Name"}}}]`), 1},
		{"cell not bold", fx("table_bold.xlsx"), nil, rules(t, `[{"type":"check_cell","sheet_idx":0,"coordinate":"A1","props":{"font_bold":{"method":"eq","ref":true}}}]`), 0},
		{"cell fill", base, nil, rules(t, `[{"type":"check_cell","sheet_idx":0,"coordinate":"B1","props":{"fgcolor":{"method":"eq","ref":"FFFFFF00"}}}]`), 1},
		{"style same", base, base, rules(t, `[{"type":"style","sheet_idx0":0,"sheet_idx1":"EI0","props":["font_bold","font_color","bgcolor","fgcolor","font_name","font_italic","font_underline"]}]`), 1},
		{"style bold", fx("table_bold.xlsx"), base, rules(t, `[{"type":"style","sheet_idx0":0,"sheet_idx1":"EI0","props":["font_bold"]}]`), 0},
		{"style fill", fx("table_fill.xlsx"), base, rules(t, `[{"type":"style","sheet_idx0":0,"sheet_idx1":"EI0","props":["fgcolor"]}]`), 0},
		{"style fill not asked", fx("table_fill.xlsx"), base, rules(t, `[{"type":"style","sheet_idx0":0,"sheet_idx1":"EI0","props":["font_bold"]}]`), 1},
		{"freeze same", fx("table_freeze.xlsx"), fx("table_freeze.xlsx"), rules(t, `[{"type":"freeze","sheet_idx0":0,"sheet_idx1":"EI0"}]`), 1},
		{"freeze missing", fx("table_openpyxl.xlsx"), fx("table_freeze.xlsx"), rules(t, `[{"type":"freeze","sheet_idx0":0,"sheet_idx1":"EI0"}]`), 0},
		{"zoom default", base, nil, rules(t, `[{"type":"zoom","sheet_idx":0,"method":"lt","ref":260}]`), 1},
		{"zoom 300", fx("table_zoom.xlsx"), nil, rules(t, `[{"type":"zoom","sheet_idx":0,"method":"lt","ref":260}]`), 0},
		{"hidden same", fx("table_hidden.xlsx"), fx("table_hidden.xlsx"), rules(t, `[{"type":"row_props","sheet_idx0":0,"sheet_idx1":"EI0","props":["hidden"]}]`), 1},
		{"hidden differs", base, fx("table_hidden.xlsx"), rules(t, `[{"type":"row_props","sheet_idx0":0,"sheet_idx1":"EI0","props":["hidden"]}]`), 0},
		{"validation", base, nil, rules(t, `[{"type":"data_validation","sheet_idx":0,"dv_props":[{"ranges":{"method":"spreadsheet_range","ref":["D2:D29","D2:D1048576"]},"type":{"method":"eq","ref":"list"},"formula1":{"method":"str_set_eq","ref":["Pass","Fail","Held"]}}]}]`), 1},
		{"validation list", fx("table_dv.xlsx"), nil, rules(t, `[{"type":"data_validation","sheet_idx":0,"dv_props":[{"ranges":{"method":"spreadsheet_range","ref":["D2:D29","D2:D1048576"]},"type":{"method":"eq","ref":"list"},"formula1":{"method":"str_set_eq","ref":["Pass","Fail","Held"]}}]}]`), 0},
		{"validation range", base, nil, rules(t, `[{"type":"data_validation","sheet_idx":0,"dv_props":[{"ranges":{"method":"spreadsheet_range","ref":["D2:D30","D2:D1048576"]}}]}]`), 0},
		{"chart same", base, base, rules(t, `[{"type":"chart","sheet_idx0":0,"sheet_idx1":"EI0","chart_props":["type","title","xtitle","ytitle","legend","direction"]}]`), 1},
		{"chart type", fx("table_line.xlsx"), base, rules(t, `[{"type":"chart","sheet_idx0":0,"sheet_idx1":"EI0","chart_props":["type"]}]`), 0},
		{"chart title", fx("table_charttitle.xlsx"), base, rules(t, `[{"type":"chart","sheet_idx0":0,"sheet_idx1":"EI0","chart_props":["title"]}]`), 0},
		{"chart title not asked", fx("table_charttitle.xlsx"), base, rules(t, `[{"type":"chart","sheet_idx0":0,"sheet_idx1":"EI0","chart_props":["type"]}]`), 1},
		{"pivots none", base, base, rules(t, `[{"type":"pivot_table","sheet_idx0":0,"sheet_idx1":"EI0","pivot_props":["col_fields","filter","row_fields","data_fields"]}]`), 1},
		{"print same", base, base, rules(t, `[{"type":"sheet_print","sheet_idx0":0,"sheet_idx1":"EI0"}]`), 1},
		{"print differs", base, fx("table_value.xlsx"), rules(t, `[{"type":"sheet_print","sheet_idx0":0,"sheet_idx1":"EI0"}]`), 0},
		{"print case", base, fx("table_case.xlsx"), rules(t, `[{"type":"sheet_print","sheet_idx0":0,"sheet_idx1":"EI0"}]`), 0},
		{"print ignore_case", base, fx("table_case.xlsx"), rules(t, `[{"type":"sheet_print","sheet_idx0":0,"sheet_idx1":"EI0","ignore_case":true}]`), 1},
		{"print no csv", fx("table_zoom.xlsx"), base, rules(t, `[{"type":"sheet_print","sheet_idx0":0,"sheet_idx1":"EI0"}]`), 0},
		{"fuzzy exact", base, base, rules(t, `[{"type":"sheet_fuzzy","sheet_idx0":"RNSheet1","sheet_idx1":"ENSheet1","rules":[{"range":["A1:C4"],"type":"exact_match"}]}]`), 1},
		{"fuzzy case", fx("table_case.xlsx"), base, rules(t, `[{"type":"sheet_fuzzy","sheet_idx0":"RNSheet1","sheet_idx1":"ENSheet1","rules":[{"range":["A2"],"type":"exact_match"}]}]`), 0},
		{"fuzzy ignore_case", fx("table_case.xlsx"), base, rules(t, `[{"type":"sheet_fuzzy","sheet_idx0":"RNSheet1","sheet_idx1":"ENSheet1","rules":[{"range":["A2"],"type":"exact_match","ignore_case":true}]}]`), 1},
		{"fuzzy includes", base, base, rules(t, `[{"type":"sheet_fuzzy","sheet_idx0":"RNSheet1","sheet_idx1":"ENSheet1","rules":[{"range":["A2:A4"],"type":"includes","trim_leadings":"ap"}]}]`), 1},
		// "6.0" vs "5.0" is 66.7% similar.
		{"fuzzy ratio default", fx("table_value.xlsx"), base, rules(t, `[{"type":"sheet_fuzzy","sheet_idx0":"RNSheet1","sheet_idx1":"ENSheet1","rules":[{"range":["B3"],"type":"fuzzy_match"}]}]`), 0},
		{"fuzzy ratio threshold", fx("table_value.xlsx"), base, rules(t, `[{"type":"sheet_fuzzy","sheet_idx0":"RNSheet1","sheet_idx1":"ENSheet1","rules":[{"range":["B3"],"type":"fuzzy_match","threshold":60}]}]`), 1},
		{"several rules stop at first failure", base, fx("table_value.xlsx"), rules(t, `[{"type":"sheet_name"},{"type":"sheet_data","sheet_idx0":0,"sheet_idx1":"EI0"}]`), 0},
		{"no result", nil, base, rules(t, data), 0},
		{"missing result", filepath.Join(t.TempDir(), "none.xlsx"), base, rules(t, data), 0},
		{"corrupt result", corruptFile(t, "bad.xlsx"), base, rules(t, data), 0},
		{"corrupt expected", base, corruptFile(t, "bad.xlsx"), rules(t, data), 0},
	}
	runMetricCases(t, "compare_table", cases)
}

func TestCompareTableOptionErrors(t *testing.T) {
	for _, s := range []string{
		`[{"type":"sheet_foo"}]`,
		`[{"type":"sheet_data","sheet_idx0":0}]`,
		`[{"type":"sheet_data","sheet_idx0":"XX0","sheet_idx1":0}]`,
		`[{"type":"check_cell","sheet_idx":0,"coordinate":"11","props":{}}]`,
		`[{"type":"sheet_fuzzy","sheet_idx0":0,"sheet_idx1":0,"rules":[{"range":["A1"],"type":"near"}]}]`,
	} {
		if err := checkTableOptions(map[string]any{"rules": jv(t, s)}); err == nil {
			t.Errorf("%s: accepted", s)
		}
	}
	if err := checkTableOptions(map[string]any{}); err == nil {
		t.Error("no rules accepted")
	}
}

func TestConferenceCities(t *testing.T) {
	runMetricCases(t, "compare_conference_city_in_order", []metricCase{
		{"short sheet", fx("table_base.xlsx"), jv(t, `{"expected":["Price"]}`), nil, 0},
		{"corrupt", corruptFile(t, "bad.xlsx"), jv(t, `{"expected":["x"]}`), nil, 0},
	})
}

func TestDocxMetrics(t *testing.T) {
	base := fx("doc_base.docx")
	missing := filepath.Join(t.TempDir(), "none.docx")
	bad := corruptFile(t, "bad.docx")
	common := func(extra ...metricCase) []metricCase {
		return append([]metricCase{
			{"missing", missing, base, nil, 0},
			{"corrupt", bad, base, nil, 0},
			{"no result", nil, base, nil, 0},
		}, extra...)
	}
	runMetricCases(t, "compare_docx_files", common(
		metricCase{"identical", base, base, nil, 1},
		metricCase{"text", fx("doc_text.docx"), base, nil, 0},
		metricCase{"formatting only", fx("doc_spacing.docx"), base, nil, 1},
		metricCase{"content_only", fx("doc_text.docx"), base, map[string]any{"content_only": true}, 0.972027972027972},
		metricCase{"odt", fx("doc_base.odt"), fx("doc_base.odt"), nil, 1},
		metricCase{"docx vs odt", base, fx("doc_base.odt"), nil, 0},
		metricCase{"ignore_blanks false", base, base, map[string]any{"ignore_blanks": false}, 1},
	))
	runMetricCases(t, "compare_docx_tables", common(
		metricCase{"identical", base, base, nil, 1},
		metricCase{"cell", fx("doc_cell.docx"), base, nil, 0},
		metricCase{"text outside", fx("doc_text.docx"), base, nil, 1},
	))
	runMetricCases(t, "compare_line_spacing", common(
		metricCase{"identical", base, base, nil, 1},
		metricCase{"spacing", fx("doc_spacing.docx"), base, nil, 0},
		metricCase{"text", fx("doc_text.docx"), base, nil, 0},
	))
	runMetricCases(t, "compare_font_names", []metricCase{
		{"all runs", fx("doc_nostrike.docx"), jv(t, `{"font_name":"Liberation Serif"}`), nil, 0},
		{"missing", missing, jv(t, `{"font_name":"Liberation Serif"}`), nil, 0},
	})
	runMetricCases(t, "compare_subscript_contains", common(
		metricCase{"both", base, base, nil, 1},
		metricCase{"not subscript", fx("doc_nosub.docx"), base, nil, 0},
	))
	runMetricCases(t, "has_page_numbers_in_footers", []metricCase{
		{"page field", base, nil, nil, 1},
		{"no number", fx("doc_nopage.docx"), nil, nil, 0},
		{"corrupt", bad, nil, nil, 0},
	})
	runMetricCases(t, "is_first_line_centered", []metricCase{
		{"centered", base, nil, nil, 1},
		{"left", fx("doc_left.docx"), nil, nil, 0},
		{"corrupt", bad, nil, nil, 0},
	})
	runMetricCases(t, "check_tabstops", common(
		metricCase{"identical", base, base, nil, 1},
		// 56 pt (1120 twips) of a 6 in (8640 twips) wide paragraph, averaged
		// over the 8 non-empty paragraphs.
		metricCase{"moved", fx("doc_tab.docx"), base, nil, 1 - (1120.0/8640)/8},
		metricCase{"words", base, base, map[string]any{"word_number_split_by_tabstop": 1, "index": 0}, 0},
	))
	runMetricCases(t, "compare_contains_image", common(
		metricCase{"identical", base, base, nil, 1},
	))
	runMetricCases(t, "evaluate_colored_words_in_tables", common(
		metricCase{"colored", base, base, nil, 1},
		metricCase{"bread red", fx("doc_color.docx"), fx("doc_color.docx"), nil, 0},
	))
	runMetricCases(t, "evaluate_strike_through_last_paragraph", common(
		metricCase{"struck", base, base, nil, 1},
		metricCase{"not struck", fx("doc_nostrike.docx"), fx("doc_nostrike.docx"), nil, 0},
	))
	runMetricCases(t, "check_italic_font_size_14", common(
		metricCase{"14 pt", base, base, nil, 1},
		metricCase{"12 pt", fx("doc_size.docx"), fx("doc_size.docx"), nil, 0},
	))
	runMetricCases(t, "contains_page_break", []metricCase{
		{"break", base, nil, nil, 1},
		{"none", fx("doc_nobreak.docx"), nil, nil, 0},
		{"corrupt", bad, nil, nil, 0},
	})
	runMetricCases(t, "compare_docx_lines", common(
		metricCase{"identical", base, base, nil, 1},
		metricCase{"text", fx("doc_text.docx"), base, nil, 0},
	))
	runMetricCases(t, "compare_docx_files_and_ignore_new_lines", common(
		metricCase{"identical", base, base, nil, 1},
		metricCase{"text", fx("doc_text.docx"), base, nil, 0},
	))
	runMetricCases(t, "compare_docx_images", common(
		metricCase{"identical", base, base, nil, 1},
		metricCase{"other pixels", fx("doc_image.docx"), base, nil, 0},
	))
	runMetricCases(t, "compare_highlighted_text", common(
		metricCase{"none highlighted", base, base, nil, 1},
	))
	runMetricCases(t, "compare_references", common(
		metricCase{"identical", base, base, nil, 1},
		// three non-empty paragraphs follow "References", one changed.
		metricCase{"one reference changed", fx("doc_ref.docx"), base, nil, 2*((py.FuzzRatio("Smith, J. Vegetable markets. 2021.", "Smith, J. Fruit markets. 2020.")/100+2)/3) - 1},
		metricCase{"base 0.99", fx("doc_ref.docx"), base, map[string]any{"reference_base_result": 0.99}, 0},
	))
	runMetricCases(t, "check_highlighted_words", []metricCase{
		{"odt without highlight", fx("doc_base.odt"), fx("doc_base.odt"), nil, 1},
		{"docx", base, base, nil, 0},
	})
}

func TestFindDefaultFont(t *testing.T) {
	xcu := file(t, `<?xml version="1.0"?><oor:items xmlns:oor="http://openoffice.org/2001/registry">
<item oor:path="/org.openoffice.Office.Writer/DefaultFont"><prop oor:name="Standard" oor:op="fuse"><value>Times New Roman</value></prop></item></oor:items>`)
	runMetricCases(t, "find_default_font", []metricCase{
		{"set", xcu, jv(t, `{"font_name":"Times New Roman"}`), nil, 1},
		{"other", xcu, jv(t, `{"font_name":"Arial"}`), nil, 0},
		{"not xml", file(t, "<<<"), jv(t, `{"font_name":"Arial"}`), nil, 0},
		{"none", nil, jv(t, `{"font_name":"Arial"}`), nil, 0},
	})
}

// needPDFTools skips unless the PDF metrics' programs are installed.
func needPDFTools(t testing.TB) {
	for _, p := range []string{"mutool", "pdfinfo", "pdfimages"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed (scripts/install-deps.sh installs %s)", p, pdfToolPackage[p])
		}
	}
}

// TestPDFToolMissing: without mutool, compare_pdfs' reader names the
// Debian package that has it.
func TestPDFToolMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := pdfText(t.Context(), fx("pdf_base.pdf"))
	if err == nil || !strings.Contains(err.Error(), "(Debian package mupdf-tools)") {
		t.Fatalf("got %v, want an error naming mupdf-tools", err)
	}
}

func TestPDFMetrics(t *testing.T) {
	needPDFTools(t)
	base, text := fx("pdf_base.pdf"), fx("pdf_text.pdf")
	t1, err := pdfText(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	t2, err := pdfText(t.Context(), text)
	if err != nil {
		t.Fatal(err)
	}
	ratio := py.FuzzRatio(t2, t1) / 100
	if ratio >= 1 || ratio < 0.9 {
		t.Fatalf("fixture texts %.3f similar: %q vs %q", ratio, t1, t2)
	}
	runMetricCases(t, "compare_pdfs", []metricCase{
		{"identical", base, base, nil, 1},
		{"one word", text, base, nil, ratio},
		{"lists", []any{base, text}, []any{base, base}, nil, (1 + ratio) / 2},
		{"missing", filepath.Join(t.TempDir(), "x.pdf"), base, nil, 0},
		{"not a pdf", corruptFile(t, "x.pdf"), base, nil, 0},
		{"truncated", file(t, "%PDF-1.7\n1 0 obj <<"), base, nil, 0},
	})
	runMetricCases(t, "check_pdf_pages", []metricCase{
		{"two pages", base, jv(t, `{"relation":"eq","ref_value":2}`), nil, 1},
		{"more than one", base, jv(t, `{"relation":"gt","ref_value":1}`), nil, 1},
		{"not one", base, jv(t, `{"relation":"eq","ref_value":1}`), nil, 0},
		{"corrupt", corruptFile(t, "x.pdf"), jv(t, `{"relation":"eq","ref_value":1}`), nil, 0},
	})
	runMetricCases(t, "compare_pdf_images", []metricCase{
		{"identical", base, base, nil, 1},
		{"text changed, no images on either side", text, base, nil, 1},
		{"corrupt", corruptFile(t, "x.pdf"), base, nil, 0},
	})
}
