package metric

import (
	"archive/zip"
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/runner/task/internal/office"
)

// The document readers must turn any input into a value or an error:
// never a panic, never a hang. The fuzz targets are seeded with the
// fixtures; `go test -run Fuzz` replays the seeds.

func seedFiles(f *testing.F, pattern string) {
	f.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "metrics", pattern))
	if err != nil || len(names) == 0 {
		f.Fatalf("no fixtures %s", pattern)
	}
	for _, n := range names[:min(len(names), 3)] {
		data, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte{})
	f.Add([]byte("PK\x03\x04"))
}

// bounded fails the test when fn takes more than a few seconds.
func bounded(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(45 * time.Second):
		t.Fatal("reader did not return within 45 s")
	}
}

// rezip rewrites a package with one part replaced, so the fuzzer's bytes
// reach the XML readers behind the zip layer.
func rezip(t *testing.T, base []byte, part string, data []byte) []byte {
	zr, err := zip.NewReader(bytes.NewReader(base), int64(len(base)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		w, _ := zw.Create(f.Name)
		if f.Name == part {
			w.Write(data)
			continue
		}
		rc, _ := f.Open()
		var b bytes.Buffer
		b.ReadFrom(rc)
		rc.Close()
		w.Write(b.Bytes())
	}
	zw.Close()
	return buf.Bytes()
}

func exerciseXLSX(data []byte) {
	pk, err := office.OpenBytes(data)
	if err != nil {
		return
	}
	b, err := office.ReadXLSX(pk)
	if err != nil {
		return
	}
	for _, name := range b.Names {
		s, err := b.Sheet(name)
		if err != nil {
			continue
		}
		office.LoadFrame(b, s, 4, false)
		for _, p := range []string{"font_bold", "font_color", "bgcolor", "fgcolor", "number_format", "hyperlink", "font_underline", "fill_type"} {
			b.CellStyle(p, s, 1, 1)
		}
		b.ReadCellValueAt(name, 1, 1)
		office.LoadCharts(b, s, map[string]any{"chart_props": []any{"type", "title", "xtitle", "ytitle", "legend", "direction", "anchor"}})
		office.LoadPivots(b, s, map[string]any{"pivot_props": []any{"col_fields", "filter", "row_fields", "data_fields"}})
		office.LoadDims(s, "row", map[string]any{"props": []any{"hidden", "height"}})
		office.LoadFilter(s)
		office.FreezeKey(s)
	}
}

func FuzzXLSX(f *testing.F) {
	seedFiles(f, "table_*.xlsx")
	f.Fuzz(func(t *testing.T, data []byte) {
		bounded(t, func() { exerciseXLSX(data) })
	})
}

// seedParts seeds with parts of a fixture package.
func seedParts(f *testing.F, file string, parts ...string) []byte {
	f.Helper()
	base, err := os.ReadFile(fx(file))
	if err != nil {
		f.Fatal(err)
	}
	pk, err := office.OpenBytes(base)
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range parts {
		data, err := pk.Read(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(p, data)
	}
	return base
}

// FuzzXLSXParts puts the fuzzer's bytes in one part of a workbook, so
// that they reach the sheet, styles and chart readers behind the zip.
func FuzzXLSXParts(f *testing.F) {
	base := seedParts(f, "table_base.xlsx", "xl/worksheets/sheet1.xml", "xl/styles.xml", "xl/charts/chart1.xml", "xl/sharedStrings.xml")
	f.Fuzz(func(t *testing.T, part string, data []byte) {
		bounded(t, func() { exerciseXLSX(rezip(t, base, part, data)) })
	})
}

func exerciseDOCX(data []byte) {
	pk, err := office.OpenBytes(data)
	if err != nil {
		return
	}
	if ps, _, err := office.OdtParagraphs(pk); err == nil {
		_ = ps
	}
	d, err := office.ReadDOCX(pk)
	if err != nil {
		return
	}
	d.Texts()
	d.FooterTexts()
	d.Images()
	for _, t := range d.Tables {
		office.ReadTable(t)
	}
	for _, p := range d.Paras {
		office.LineSpacing(p)
		tabStops(p)
		for _, r := range office.Runs(p) {
			office.RunBool(r, "i")
			subscript(r)
		}
	}
}

func FuzzDOCX(f *testing.F) {
	seedFiles(f, "doc_*.docx")
	f.Fuzz(func(t *testing.T, data []byte) {
		bounded(t, func() { exerciseDOCX(data) })
	})
}

// FuzzDOCXParts puts the fuzzer's bytes in one part of a document.
func FuzzDOCXParts(f *testing.F) {
	base := seedParts(f, "doc_base.docx", "word/document.xml", "word/_rels/document.xml.rels", "word/footer1.xml")
	f.Fuzz(func(t *testing.T, part string, data []byte) {
		bounded(t, func() { exerciseDOCX(rezip(t, base, part, data)) })
	})
}

func FuzzODT(f *testing.F) {
	seedFiles(f, "doc_*.odt")
	f.Fuzz(func(t *testing.T, data []byte) {
		bounded(t, func() { exerciseDOCX(data) })
	})
}

func FuzzPDF(f *testing.F) {
	needPDFTools(f)
	seedFiles(f, "pdf_*.pdf")
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.pdf")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		bounded(t, func() {
			pdfText(t.Context(), p)
			pdfPages(t.Context(), p)
		})
	})
}

// TestOfficeReadersCorruptInput runs the readers and the metrics on
// fixtures (60 mutations each) with random bytes changed, truncated, and with a changed byte
// inside one of their XML parts: each call returns (a score of 0 or an
// error), none panics, none takes long.
func TestOfficeReadersCorruptInput(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 20
	}
	rng := rand.New(rand.NewSource(1))
	dir := t.TempDir()
	for _, c := range []struct {
		file, part, metric string
		opts               map[string]any
	}{
		{"table_base.xlsx", "xl/worksheets/sheet1.xml", "compare_table", map[string]any{"rules": jv(t, `[{"type":"sheet_data","sheet_idx0":0,"sheet_idx1":"EI0"},{"type":"style","sheet_idx0":0,"sheet_idx1":"EI0","props":["font_bold","bgcolor"]},{"type":"chart","sheet_idx0":0,"sheet_idx1":"EI0","chart_props":["type","title"]}]`)}},
		{"table_base.xlsx", "xl/charts/chart1.xml", "compare_table", map[string]any{"rules": jv(t, `[{"type":"chart","sheet_idx0":0,"sheet_idx1":"EI0","chart_props":["type","title","xtitle"]}]`)}},
		{"doc_base.docx", "word/document.xml", "compare_line_spacing", nil},
		{"doc_base.docx", "word/document.xml", "check_tabstops", nil},
		{"doc_base.docx", "word/document.xml", "compare_docx_tables", nil},
		{"doc_base.odt", "content.xml", "compare_docx_files", nil},
	} {
		base, err := os.ReadFile(fx(c.file))
		if err != nil {
			t.Fatal(err)
		}
		pk, err := office.OpenBytes(base)
		if err != nil {
			t.Fatal(err)
		}
		xmlPart, err := pk.Read(c.part)
		if err != nil {
			t.Fatal(err)
		}
		spec := metricTable[c.metric]
		opts := c.opts
		if opts == nil {
			opts = map[string]any{}
		}
		for i := 0; i < n; i++ {
			var data []byte
			switch i % 3 {
			case 0:
				data = append([]byte(nil), base...)
				for k := 0; k < 1+rng.Intn(8); k++ {
					data[rng.Intn(len(data))] = byte(rng.Intn(256))
				}
			case 1:
				data = base[:rng.Intn(len(base))]
			case 2:
				x := append([]byte(nil), xmlPart...)
				for k := 0; k < 1+rng.Intn(4); k++ {
					x[rng.Intn(len(x))] = "<>/=\"' 0123456789AZaz&;"[rng.Intn(23)]
				}
				data = rezip(t, base, c.part, x)
			}
			p := filepath.Join(dir, fmt.Sprintf("m%d%s", i, filepath.Ext(c.file)))
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s on a corrupt %s (case %d): panic %v", c.metric, c.file, i, r)
					}
				}()
				exerciseXLSX(data)
				exerciseDOCX(data)
				_, detail, err := spec.Fn(t.Context(), p, fx(c.file), opts)
				if err != nil {
					t.Fatalf("%s: error %v", c.metric, err)
				}
				if strings.HasPrefix(detail, panicDetail) {
					t.Fatalf("%s on a corrupt %s (case %d): %s", c.metric, c.file, i, detail)
				}
			}()
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("%s on a corrupt %s (case %d) took %s", c.metric, c.file, i, el)
			}
		}
	}
}
