package metric

import (
	"context"
	"testing"
)

// BenchmarkOfficeMetrics times one call of each office metric on the
// fixtures (the files are read and parsed on every call, as in grading).
func BenchmarkOfficeMetrics(b *testing.B) {
	t := &testing.T{}
	xlsx, doc := fx("table_base.xlsx"), fx("doc_base.docx")
	type bench struct {
		name, metric     string
		result, expected any
		opts             map[string]any
	}
	tableRules := func(s string) map[string]any { return map[string]any{"rules": jv(t, s)} }
	cases := []bench{
		{"sheet_data", "compare_table", xlsx, fx("table_value.xlsx"), tableRules(`[{"type":"sheet_data","sheet_idx0":0,"sheet_idx1":"EI0"}]`)},
		{"chart", "compare_table", xlsx, xlsx, tableRules(`[{"type":"chart","sheet_idx0":0,"sheet_idx1":"EI0","chart_props":["type","title","xtitle","ytitle","legend"]}]`)},
		{"style", "compare_table", xlsx, xlsx, tableRules(`[{"type":"style","sheet_idx0":0,"sheet_idx1":"EI0","props":["font_bold","font_color","bgcolor","font_name","font_italic","font_underline"]}]`)},
		{"check_cell", "compare_table", xlsx, nil, tableRules(`[{"type":"check_cell","sheet_idx":0,"coordinate":"E2","props":{"value":{"method":"approx:0.1","ref":15}}}]`)},
		{"sheet_fuzzy", "compare_table", xlsx, xlsx, tableRules(`[{"type":"sheet_fuzzy","sheet_idx0":"RNSheet1","sheet_idx1":"ENSheet1","rules":[{"range":["A1:C4"],"type":"fuzzy_match"}]}]`)},
		{"compare_docx_files", "compare_docx_files", doc, fx("doc_text.docx"), nil},
		{"compare_docx_tables", "compare_docx_tables", doc, doc, nil},
		{"compare_line_spacing", "compare_line_spacing", doc, doc, nil},
		{"check_tabstops", "check_tabstops", doc, fx("doc_tab.docx"), nil},
		{"compare_docx_images", "compare_docx_images", doc, fx("doc_image.docx"), nil},
		{"compare_references", "compare_references", doc, fx("doc_ref.docx"), nil},
		{"has_page_numbers_in_footers", "has_page_numbers_in_footers", doc, nil, nil},
		{"compare_pdfs", "compare_pdfs", fx("pdf_base.pdf"), fx("pdf_text.pdf"), nil},
		{"check_pdf_pages", "check_pdf_pages", fx("pdf_base.pdf"), jv(t, `{"relation":"eq","ref_value":2}`), nil},
		{"compare_pdf_images", "compare_pdf_images", fx("pdf_base.pdf"), fx("pdf_base.pdf"), nil},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if c.metric == "compare_pdfs" || c.metric == "check_pdf_pages" || c.metric == "compare_pdf_images" {
				needPDFTools(b)
			}
			spec := metricTable[c.metric]
			opts := c.opts
			if opts == nil {
				opts = map[string]any{}
			}
			env := context.Background()
			for b.Loop() {
				if _, d, err := spec.Fn(env, c.result, c.expected, opts); err != nil {
					b.Fatal(err, d)
				}
			}
		})
	}
}
