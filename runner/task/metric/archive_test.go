package metric

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// makeZip writes a zip of name -> content (a leading '@' reads a file).
func makeZip(t *testing.T, name string, files [][2]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, e := range files {
		w, err := zw.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(archiveContent(t, e[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

func makeTarGz(t *testing.T, name string, files [][2]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, e := range files {
		data := archiveContent(t, e[1])
		if err := tw.WriteHeader(&tar.Header{Name: e[0], Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	tw.Close()
	gz.Close()
	f.Close()
	return p
}

func archiveContent(t *testing.T, s string) []byte {
	if len(s) > 0 && s[0] == '@' {
		data, err := os.ReadFile(s[1:])
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	return []byte(s)
}

func TestCompareArchive(t *testing.T) {
	const base, text = "@testdata/metrics/pdf_base.pdf", "@testdata/metrics/pdf_text.pdf"
	gold := makeZip(t, "gold.zip", [][2]string{{"slides/a.pdf", base}, {"slides/b.pdf", base}})
	same := makeZip(t, "same.zip", [][2]string{{"slides/a.pdf", base}, {"slides/b.pdf", base}})
	oneText := makeZip(t, "one.zip", [][2]string{{"slides/a.pdf", base}, {"slides/b.pdf", text}})
	renamed := makeZip(t, "renamed.zip", [][2]string{{"slides/a.pdf", base}, {"slides/c.pdf", base}})
	tgz := makeTarGz(t, "pdf.tar.gz", [][2]string{{"slides/a.pdf", base}, {"slides/b.pdf", base}})
	txtGold := makeZip(t, "t.zip", [][2]string{{"a.txt", "alpha\n"}, {"b.txt", "beta\n"}})
	txtOther := makeZip(t, "t2.zip", [][2]string{{"a.txt", "alpha\n"}, {"b.txt", "gamma\n"}})
	corrupt := writeTemp(t, "bad.zip", "PK\x03\x04 not really")
	escape := makeZip(t, "evil.zip", [][2]string{{"../../x.txt", "x"}})
	pdfOpts := map[string]any{"file_type": "pdf", "file_path": "slides"}

	ratio := func() float64 {
		s, _, err := metricTable["compare_pdfs"].Fn(testEnv(t), "testdata/metrics/pdf_text.pdf", "testdata/metrics/pdf_base.pdf", nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}()
	cases := []struct {
		name             string
		result, expected any
		opts             map[string]any
		want             float64
	}{
		{"identical zip", same, gold, pdfOpts, 1},
		{"tar.gz against zip", tgz, gold, pdfOpts, 1},
		{"one pdf changed", oneText, gold, pdfOpts, (1 + ratio) / 2},
		{"other names", renamed, gold, pdfOpts, 0},
		{"text files", txtGold, txtGold, map[string]any{}, 1},
		{"text file changed", txtOther, txtGold, map[string]any{"file_type": "text"}, 0.5},
		{"no such folder", txtGold, txtGold, map[string]any{"file_path": "slides"}, 0},
		{"corrupt", corrupt, gold, pdfOpts, 0},
		{"missing", filepath.Join(t.TempDir(), "none.zip"), gold, pdfOpts, 0},
		{"not an archive name", writeTemp(t, "x.rar", "x"), gold, pdfOpts, 0},
		{"entry escaping", escape, gold, pdfOpts, 0},
		{"no result", nil, gold, pdfOpts, 0},
	}
	sp := metricTable["compare_archive"]
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := sp.CheckOptions(c.opts); err != nil {
				t.Fatal(err)
			}
			s, d, err := sp.Fn(testEnv(t), c.result, c.expected, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := s - c.want; diff > 1e-9 || diff < -1e-9 {
				t.Errorf("score %v (%s), want %v", s, d, c.want)
			}
			if s == 0 && d == "" {
				t.Error("a 0 without a detail")
			}
		})
	}
	if ratio >= 1 {
		t.Fatalf("pdf fixtures compare equal")
	}
	for _, bad := range []map[string]any{{"file_type": "rar"}, {"file_path": 3}, {"file_type": "pdf", "extra": 1}} {
		if sp.CheckOptions(bad) == nil {
			t.Errorf("%v: no load-time error", bad)
		}
	}
}

// tinyPDF is a one-line PDF whose text ("Quite different") shares little
// with the fixtures'.
const tinyPDF = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
	"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n" +
	"4 0 obj<</Length 44>>stream\nBT /F1 12 Tf 10 50 Td (Quite different) Tj ET\nendstream endobj\n" +
	"5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"

func TestCompareZipFiles(t *testing.T) {
	const base, text = "@testdata/metrics/pdf_base.pdf", "@testdata/metrics/pdf_text.pdf"
	gold := makeZip(t, "gold.zip", [][2]string{{"a.txt", "alpha"}, {"doc.pdf", base}})
	runSettingsCases(t, []settingsCase{
		{"identical", "compare_zip_files", makeZip(t, "a.zip", [][2]string{{"doc.pdf", base}, {"a.txt", "alpha"}}), gold, 1},
		{"bytes differ", "compare_zip_files", makeZip(t, "b.zip", [][2]string{{"a.txt", "alphA"}, {"doc.pdf", base}}), gold, 0},
		{"pdf one word changed", "compare_zip_files", makeZip(t, "c.zip", [][2]string{{"a.txt", "alpha"}, {"doc.pdf", text}}), gold, 1},
		{"pdf text differs", "compare_zip_files", makeZip(t, "f.zip", [][2]string{{"a.txt", "alpha"}, {"doc.pdf", tinyPDF}}), gold, 0},
		{"pdf corrupt", "compare_zip_files", makeZip(t, "g.zip", [][2]string{{"a.txt", "alpha"}, {"doc.pdf", "%PDF-1.7 junk"}}), gold, 0},
		{"entry missing", "compare_zip_files", makeZip(t, "d.zip", [][2]string{{"a.txt", "alpha"}}), gold, 0},
		{"corrupt", "compare_zip_files", writeTemp(t, "e.zip", "PK nothing"), gold, 0},
		{"missing", "compare_zip_files", filepath.Join(t.TempDir(), "none.zip"), gold, 0},
		{"no result", "compare_zip_files", nil, gold, 0},
	})
}
