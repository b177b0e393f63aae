package task

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/runner/task/internal/office"
)

// testXLSX writes a one-sheet workbook of rows (strings as inline
// strings, numbers as numbers, "date:N" as serial N in a date format,
// "" as a blank cell).
func testXLSX(t *testing.T, p string, rows [][]string) {
	t.Helper()
	var sheet strings.Builder
	for r, row := range rows {
		fmt.Fprintf(&sheet, `<row r="%d">`, r+1)
		for c, v := range row {
			ref := fmt.Sprintf("%s%d", office.ColName(c+1), r+1)
			switch {
			case v == "":
			case strings.HasPrefix(v, "date:"):
				fmt.Fprintf(&sheet, `<c r="%s" s="1"><v>%s</v></c>`, ref, strings.TrimPrefix(v, "date:"))
			case strings.Trim(v, "0123456789.-") == "":
				fmt.Fprintf(&sheet, `<c r="%s"><v>%s</v></c>`, ref, v)
			default:
				fmt.Fprintf(&sheet, `<c r="%s" t="inlineStr"><is><t>%s</t></is></c>`, ref, v)
			}
		}
		sheet.WriteString(`</row>`)
	}
	parts := map[string]string{
		"[Content_Types].xml":        `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`,
		"_rels/.rels":                `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml":            `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Researchers" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`,
		"xl/styles.xml":              `<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/></cellXfs></styleSheet>`,
		"xl/worksheets/sheet1.xml":   `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + sheet.String() + `</sheetData></worksheet>`,
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range parts {
		w, _ := zw.Create(name)
		w.Write([]byte(data))
	}
	zw.Close()
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestContentFromVMFile reads the last row of a table in a real home
// as pandas prints it and grades it as OSWorld's task 5990457f does
// (literal_match, list, ignore_case): the table with the researcher
// appended scores 1, the table before 0, a missing file 0.
func TestContentFromVMFile(t *testing.T) {
	home := t.TempDir()
	header := []string{"Name", "Citations", "h-index", "i10-index", "Top paper", "Since"}
	before := [][]string{header, {"Geoffrey Hinton", "900000", "", "400", "AlexNet", "date:45413"}}
	after := append(before[:2:2], []string{"yann lecun", "345074", "147", "372", "Deep learning", "date:45413.5"})
	testXLSX(t, filepath.Join(home, "before.xlsx"), before)
	testXLSX(t, filepath.Join(home, "after.xlsx"), after)

	r, done, err := newRun(&hostSandbox{home: home}, &Task{ID: "content"}, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	get := func(file string) any {
		t.Helper()
		g, err := buildGetter(map[string]any{"type": "content_from_vm_file", "path": filepath.Join(home, file), "file_type": "xlsx", "file_content": "last_row"}, "result")
		if err != nil {
			t.Fatal(err)
		}
		v, err := r.get(t.Context(), g)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		return v
	}
	// h-index has a blank, so pandas makes it a float column.
	want := []any{"yann lecun", "345074", "147.0", "372", "Deep learning", "2024-05-01 12:00:00"}
	if got := get("after.xlsx"); !reflect.DeepEqual(got, want) {
		t.Fatalf("last row %#v, want %#v", got, want)
	}
	expected := []any{"Yann LeCun", "345074", "147.0", "372", "Deep learning", "2024-05-01 12:00:00"}
	opts := map[string]any{"type": "list", "ignore_case": true}
	for _, c := range []struct {
		file string
		want float64
	}{{"after.xlsx", 1}, {"before.xlsx", 0}, {"missing.xlsx", 0}} {
		s, detail, err := lookupMetricScore(t, "literal_match", get(c.file), expected, opts)
		if err != nil || s != c.want {
			t.Errorf("%s: literal_match %v (%s, %v), want %v", c.file, s, detail, err, c.want)
		}
	}
	for _, bad := range []string{
		`{"type":"content_from_vm_file","path":"/a.xlsx","file_type":"csv","file_content":"last_row"}`,
		`{"type":"content_from_vm_file","path":"/a.xlsx","file_type":"xlsx","file_content":"first_row"}`,
		`{"type":"content_from_vm_file","file_type":"xlsx","file_content":"last_row"}`,
	} {
		if _, err := buildGetter(jv(t, bad), "result"); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
