package office

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtures are the documents the metrics' tests grade, as the
// generators in runner/task/metric/testdata/metrics write them.
func fixtures(t testing.TB, pattern string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("..", "..", "metric", "testdata", "metrics", pattern))
	if err != nil || len(names) == 0 {
		t.Fatalf("no fixtures %s", pattern)
	}
	return names
}

func TestCellRefs(t *testing.T) {
	for _, tt := range []struct {
		ref      string
		col, row int
		err      string
	}{
		{"A1", 1, 1, ""}, {"B3", 2, 3, ""}, {"Z9", 26, 9, ""}, {"AA10", 27, 10, ""}, {"XFD1048576", 16384, 1048576, ""},
		{"XFE1", 0, 0, "beyond XFD"}, {"1A", 0, 0, "want a column and a row"}, {"B", 0, 0, "want a column and a row"}, {"", 0, 0, "want a column and a row"},
	} {
		col, row, err := SplitCellRef(tt.ref)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("SplitCellRef(%q) = %d, %d, %v; want an error %q", tt.ref, col, row, err, tt.err)
		case tt.err == "" && (err != nil || col != tt.col || row != tt.row):
			t.Errorf("SplitCellRef(%q) = %d, %d, %v; want %d, %d", tt.ref, col, row, err, tt.col, tt.row)
		case tt.err == "" && ColName(col)+strings.TrimLeft(tt.ref, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != tt.ref:
			t.Errorf("ColName(%d) = %q, not the column of %q", col, ColName(col), tt.ref)
		}
	}
	rs, err := ParseRanges("A1:B2 D4")
	if err != nil || len(rs) != 2 || rs[0].Cells() != 4 || rs[1].Cells() != 1 || !rs[1].Within(CellRange{MinCol: 1, MinRow: 1, MaxCol: 4, MaxRow: 4}) {
		t.Errorf("ParseRanges(A1:B2 D4) = %+v, %v", rs, err)
	}
	if _, err := ParseRanges("A1:"); err == nil {
		t.Error("ParseRanges(A1:) gave no error")
	}
}

func TestParseBounds(t *testing.T) {
	n, err := Parse([]byte(`<a x="1"><b>text</b><b/></a>`))
	if err != nil || n == nil {
		t.Fatalf("Parse: %v", err)
	}
	deep := strings.Repeat("<a>", maxXMLDepth+1) + strings.Repeat("</a>", maxXMLDepth+1)
	if _, err := Parse([]byte(deep)); err == nil {
		t.Errorf("Parse of %d levels gave no error", maxXMLDepth+1)
	}
	if _, err := ParseStrict(context.Background(), []byte(`<a><b></a>`)); err == nil {
		t.Error("ParseStrict of a malformed document gave no error")
	}
}

func TestOpenRefusals(t *testing.T) {
	if _, err := OpenBytes([]byte("not a zip")); err == nil || !strings.Contains(err.Error(), "not a zip package") {
		t.Errorf("OpenBytes(not a zip) = %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.xlsx")); err == nil || !strings.Contains(err.Error(), "file not found") {
		t.Errorf("Open(missing) = %v", err)
	}
	// A part larger than the bound is refused when read, not read whole.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("xl/workbook.xml")
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, maxPartSize+1)
	if _, err := w.Write(big); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	pk, err := OpenOOXML(context.Background(), buf.Bytes())
	if err == nil {
		_, err = ReadXLSX(pk)
	}
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a %d-byte part: %v", maxPartSize+1, err)
	}
}

func TestReadFixtures(t *testing.T) {
	for _, p := range fixtures(t, "*.xlsx") {
		b, err := OpenXLSX(p)
		if err != nil || len(b.Names) == 0 {
			t.Errorf("%s: %v (sheets %v)", filepath.Base(p), err, b)
		}
	}
	for _, p := range fixtures(t, "*.docx") {
		if _, err := OpenDOCX(p); err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
	}
	for _, p := range fixtures(t, "*.pptx") {
		d, err := OpenPptx(context.Background(), p)
		if err != nil || d == nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
	}
	for _, p := range fixtures(t, "*.odt") {
		pk, err := Open(p)
		if err == nil {
			_, _, err = OdtParagraphs(pk)
		}
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
	}
}

// seed adds up to three fixtures of pattern, an empty input and a zip
// header alone to f's corpus.
func seed(f *testing.F, pattern string) {
	for _, n := range fixtures(f, pattern)[:min(3, len(fixtures(f, pattern)))] {
		data, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte{})
	f.Add([]byte("PK\x03\x04"))
}

// The readers turn any input into a value or an error, never a panic.

func FuzzParse(f *testing.F) {
	f.Add([]byte(`<a x="1"><b>text</b></a>`))
	f.Add([]byte(`<a><b></a>`))
	f.Add([]byte(`<?xml version="1.0"?><!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Parse(data)
		_, _ = ParseStrict(context.Background(), data)
	})
}

func FuzzReadXLSX(f *testing.F) {
	seed(f, "*.xlsx")
	f.Fuzz(func(t *testing.T, data []byte) {
		if pk, err := OpenOOXML(context.Background(), data); err == nil {
			_, _ = ReadXLSX(pk)
		}
	})
}

func FuzzReadDOCX(f *testing.F) {
	seed(f, "*.docx")
	f.Fuzz(func(t *testing.T, data []byte) {
		if pk, err := OpenBytes(data); err == nil {
			_, _ = ReadDOCX(pk)
			_, _, _ = OdtParagraphs(pk)
		}
	})
}

func FuzzParsePptx(f *testing.F) {
	seed(f, "*.pptx")
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParsePptx(context.Background(), data)
	})
}

// TestPandasNAStrings: the strings pandas' parser reads as missing are
// those of the pandas OSWorld pins (2.2), "None" among them (pandas 2.0
// added it): beside numbers a float column with NaN, beside text NaN in
// an object column; "none" and "N/a" stay text.
func TestPandasNAStrings(t *testing.T) {
	for _, na := range []string{"None", "NA", "N/A", "#N/A", "null", "NaN", "-nan", "<NA>", ""} {
		kind, vals := inferColumn([]pv{{k: pStr, s: na}, {k: pStr, s: "1"}})
		if kind != "float" || !vals[0].isNA() {
			t.Errorf("%q beside \"1\": dtype %s, first %+v; want a float column with NaN", na, kind, vals[0])
		}
		if _, vals := inferColumn([]pv{{k: pStr, s: na}, {k: pStr, s: "text"}}); !vals[0].isNA() {
			t.Errorf("%q beside text: %+v, want NaN", na, vals[0])
		}
	}
	for _, s := range []string{"none", "N/a", "NONE"} {
		if _, vals := inferColumn([]pv{{k: pStr, s: s}, {k: pStr, s: "text"}}); vals[0].isNA() {
			t.Errorf("%q read as NaN, want the string", s)
		}
	}
}
