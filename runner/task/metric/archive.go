package metric

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
)

// Archive metrics. compare_archive unpacks both archives (zip, tar,
// tar.gz/tgz, tar.bz2, by name as Python's shutil.unpack_archive does),
// checks that a folder of each holds the same names and averages a
// per-file comparison chosen by the file_type option over the pairs;
// compare_zip_files wants the same entries with the same bytes (PDFs:
// text at least 95% similar). Archives are read with the standard
// library; unpacking is bounded in size and entry count and refuses
// entries escaping the destination.

// The metrics compare_archive applies to each pair of files. Their rows
// in metricTable are these values: compare_archive cannot look them up
// in the table it is a row of.
var (
	compareTextFileMetric  = Metric{Fn: compareTextFile, CheckOptions: anyOptions}
	comparePdfsMetric      = Metric{Fn: withDeadline(comparePDFs)}
	compareDocxFilesMetric = Metric{Fn: withDeadline(compareDocxFiles), CheckOptions: anyOptions}
	comparePptxFilesMetric = Metric{Fn: withDeadline(comparePptxFiles), CheckOptions: anyOptions}
	compareImagesMetric    = Metric{Fn: compareImages, CheckOptions: checkCompareImagesOptions}
	compareCsvMetric       = Metric{Fn: compareCSV, CheckOptions: anyOptions}
	compareTableMetric     = Metric{Fn: withDeadline(compareTable), CheckOptions: checkTableOptions, ExpectedOptional: true}
	compareAudiosMetric    = Metric{Fn: compareAudios}
	compareVideosMetric    = Metric{Fn: compareVideos, CheckOptions: checkVideoOptions}
)

// archiveCompare maps compare_archive's file_type to the metric it
// applies to each pair of files.
var archiveCompare = map[string]struct {
	name string
	spec Metric
}{
	"text":  {"compare_text_file", compareTextFileMetric},
	"pdf":   {"compare_pdfs", comparePdfsMetric},
	"docx":  {"compare_docx_files", compareDocxFilesMetric},
	"ppt":   {"compare_pptx_files", comparePptxFilesMetric},
	"image": {"compare_images", compareImagesMetric},
	"csv":   {"compare_csv", compareCsvMetric},
	"table": {"compare_table", compareTableMetric},
	"audio": {"compare_audios", compareAudiosMetric},
	"video": {"compare_videos", compareVideosMetric},
}

const (
	maxArchiveBytes   = 512 << 20
	maxArchiveEntries = 10000
)

// archiveOptions splits compare_archive's options into its own and those
// passed on to the per-file metric.
func archiveOptions(opts map[string]any) (fileType, folder string, rest map[string]any, err error) {
	fileType, folder = "text", ""
	rest = map[string]any{}
	for k, v := range opts {
		switch k {
		case "file_type":
			s, ok := v.(string)
			if !ok {
				return "", "", nil, fmt.Errorf("file_type: want a string, got %s", py.TypeName(v))
			}
			if _, ok := archiveCompare[s]; !ok {
				return "", "", nil, fmt.Errorf("file_type: %q unknown (want text, pdf, docx, ppt, image, csv, table, audio or video)", s)
			}
			fileType = s
		case "file_path":
			s, ok := v.(string)
			if !ok {
				return "", "", nil, fmt.Errorf("file_path: want a string, got %s", py.TypeName(v))
			}
			folder = s
		default:
			rest[k] = v
		}
	}
	return fileType, folder, rest, nil
}

func checkArchiveOptions(opts map[string]any) error {
	fileType, _, rest, err := archiveOptions(opts)
	if err != nil {
		return err
	}
	sp := archiveCompare[fileType].spec
	if sp.CheckOptions != nil {
		return sp.CheckOptions(rest)
	}
	for k := range rest {
		return fmt.Errorf("%s: not an option of %s", k, archiveCompare[fileType].name)
	}
	return nil
}

// compareArchive implements OSWorld's compare_archive
// (desktop_env/evaluators/metrics/chrome.py).
func compareArchive(ctx context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	fileType, folder, rest, err := archiveOptions(opts)
	if err != nil {
		return 0, "", err
	}
	sp := archiveCompare[fileType].spec
	pred, ok := result.(string)
	if !ok || pred == "" {
		return 0, "no result archive", nil
	}
	gold, ok := expected.(string)
	if !ok {
		return 0, fmt.Sprintf("expected: want an archive path, got %s", py.TypeName(expected)), nil
	}
	tmp, err := os.MkdirTemp("", "deskrun-archive-")
	if err != nil {
		return 0, "", err
	}
	defer os.RemoveAll(tmp)
	predDir, goldDir := filepath.Join(tmp, "pred"), filepath.Join(tmp, "gold")
	if err := unpackArchive(pred, predDir); err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if err := unpackArchive(gold, goldDir); err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	predNames, err := dirNames(filepath.Join(predDir, folder))
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	goldNames, err := dirNames(filepath.Join(goldDir, folder))
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	if !slices.Equal(predNames, goldNames) {
		return 0, fmt.Sprintf("the archive holds %s, want %s", py.Truncate(strings.Join(predNames, ", "), 200), py.Truncate(strings.Join(goldNames, ", "), 200)), nil
	}
	if len(predNames) == 0 {
		return 0, "both archives are empty", nil
	}
	total := 0.0
	var details []string
	for _, n := range predNames {
		s, d, err := sp.Fn(ctx, filepath.Join(predDir, folder, n), filepath.Join(goldDir, folder, n), rest)
		if err != nil {
			return 0, "", fmt.Errorf("%s: %w", n, err)
		}
		if s < 1 {
			details = append(details, fmt.Sprintf("%s: %.2f %s", n, s, d))
		}
		total += s
	}
	return total / float64(len(predNames)), py.Truncate(strings.Join(details, "; "), 500), nil
}

// dirNames is a folder's sorted entry names.
func dirNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no folder %s in the archive", filepath.Base(dir))
		}
		return nil, err
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	slices.Sort(names)
	return names, nil
}

// unpackArchive extracts a zip or tar archive (by its name) into dir.
func unpackArchive(name, dir string) error {
	if _, err := os.Stat(name); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: file not found", name)
		}
		return err
	}
	lower := strings.ToLower(name)
	budget := &archiveBudget{bytes: maxArchiveBytes, entries: maxArchiveEntries}
	switch {
	case strings.HasSuffix(lower, ".zip"):
		zr, err := zip.OpenReader(name)
		if err != nil {
			return fmt.Errorf("%s: not a zip archive: %w", filepath.Base(name), err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			if err := budget.entry(); err != nil {
				return err
			}
			if f.FileInfo().IsDir() {
				if err := mkdirIn(dir, f.Name); err != nil {
					return err
				}
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
			err = writeIn(dir, f.Name, rc, budget)
			rc.Close()
			if err != nil {
				return err
			}
		}
		return nil
	case strings.HasSuffix(lower, ".tar"), strings.HasSuffix(lower, ".tar.gz"), strings.HasSuffix(lower, ".tgz"), strings.HasSuffix(lower, ".tar.bz2"), strings.HasSuffix(lower, ".tbz2"):
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		var r io.Reader = f
		switch {
		case strings.HasSuffix(lower, "gz"):
			gz, err := gzip.NewReader(f)
			if err != nil {
				return fmt.Errorf("%s: not gzip data: %w", filepath.Base(name), err)
			}
			defer gz.Close()
			r = gz
		case strings.HasSuffix(lower, "bz2"):
			r = bzip2.NewReader(f)
		}
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s: corrupt tar archive: %w", filepath.Base(name), err)
			}
			if err := budget.entry(); err != nil {
				return err
			}
			switch h.Typeflag {
			case tar.TypeDir:
				if err := mkdirIn(dir, h.Name); err != nil {
					return err
				}
			case tar.TypeReg:
				if err := writeIn(dir, h.Name, tr, budget); err != nil {
					return err
				}
			}
		}
	default:
		return fmt.Errorf("%s: unknown archive format (want .zip, .tar, .tar.gz, .tgz or .tar.bz2)", filepath.Base(name))
	}
}

type archiveBudget struct{ bytes, entries int64 }

func (b *archiveBudget) entry() error {
	b.entries--
	if b.entries < 0 {
		return fmt.Errorf("more than %d entries", maxArchiveEntries)
	}
	return nil
}

// inside joins an entry name to dir, refusing names escaping it.
func inside(dir, name string) (string, error) {
	p := filepath.Join(dir, filepath.FromSlash(name))
	if p != dir && !strings.HasPrefix(p, dir+string(filepath.Separator)) {
		return "", fmt.Errorf("entry %q escapes the archive", name)
	}
	return p, nil
}

func mkdirIn(dir, name string) error {
	p, err := inside(dir, name)
	if err != nil {
		return err
	}
	return os.MkdirAll(p, 0o755)
}

func writeIn(dir, name string, r io.Reader, b *archiveBudget) error {
	p, err := inside(dir, name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, b.bytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	b.bytes -= n
	if b.bytes < 0 {
		return fmt.Errorf("more than %d MiB unpacked", maxArchiveBytes>>20)
	}
	return nil
}

// compareZipFiles implements OSWorld's compare_zip_files
// (desktop_env/evaluators/metrics/vscode.py).
//
// compareZipFiles scores 1 when both zips hold the same entry names, each
// with the same bytes; PDFs instead need texts at least 95% similar
// (difflib's ratio over characters).
func compareZipFiles(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	pred, ok := result.(string)
	if !ok || pred == "" {
		return 0, "no result archive", nil
	}
	gold, ok := expected.(string)
	if !ok {
		return 0, fmt.Sprintf("expected: want a zip path, got %s", py.TypeName(expected)), nil
	}
	read := func(name string) (map[string][]byte, error) {
		zr, err := zip.OpenReader(name)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("%s: file not found", name)
			}
			return nil, fmt.Errorf("%s: not a zip archive: %w", filepath.Base(name), err)
		}
		defer zr.Close()
		out := map[string][]byte{}
		budget := int64(maxArchiveBytes)
		for _, f := range zr.File {
			if len(out) >= maxArchiveEntries {
				return nil, fmt.Errorf("more than %d entries", maxArchiveEntries)
			}
			rc, err := f.Open()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			data, err := io.ReadAll(io.LimitReader(rc, budget+1))
			rc.Close()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			if budget -= int64(len(data)); budget < 0 {
				return nil, fmt.Errorf("more than %d MiB unpacked", maxArchiveBytes>>20)
			}
			out[f.Name] = data
		}
		return out, nil
	}
	a, err := read(pred)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	b, err := read(gold)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	var na, nb []string
	for n := range a {
		na = append(na, n)
	}
	for n := range b {
		nb = append(nb, n)
	}
	slices.Sort(na)
	slices.Sort(nb)
	if !slices.Equal(na, nb) {
		return 0, fmt.Sprintf("the zip holds %s, want %s", py.Truncate(strings.Join(na, ", "), 200), py.Truncate(strings.Join(nb, ", "), 200)), nil
	}
	for _, n := range na {
		if !strings.HasSuffix(strings.ToLower(n), ".pdf") {
			if !bytes.Equal(a[n], b[n]) {
				return 0, n + " differs", nil
			}
			continue
		}
		r, err := zipPDFRatio(ctx, a[n], b[n])
		if err != nil {
			return 0, n + ": " + err.Error(), nil
		}
		if r < 0.95 {
			return 0, fmt.Sprintf("%s: texts %.0f%% similar, want 95%%", n, r*100), nil
		}
	}
	return 1, "", nil
}

func zipPDFRatio(ctx context.Context, a, b []byte) (float64, error) {
	dir, err := os.MkdirTemp("", "deskrun-zippdf-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	var texts [2]string
	for i, data := range [][]byte{a, b} {
		p := filepath.Join(dir, fmt.Sprintf("%d.pdf", i))
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return 0, err
		}
		t, err := pdfText(ctx, p)
		if err != nil {
			return 0, err
		}
		texts[i] = t
	}
	return py.SequenceRatio(runeStrings(texts[0]), runeStrings(texts[1])), nil
}

func runeStrings(s string) []string {
	var out []string
	for _, r := range s {
		out = append(out, string(r))
	}
	return out
}

// checkCompareImagesOptions accepts compare_images' one option,
// reference_base_result (a number).
func checkCompareImagesOptions(opts map[string]any) error {
	for k, v := range opts {
		if k != "reference_base_result" {
			return fmt.Errorf("%s: compare_images takes reference_base_result only", k)
		}
		if _, ok := py.Number(v); !ok && v != nil {
			return fmt.Errorf("reference_base_result: want a number, got %s", py.TypeName(v))
		}
	}
	return nil
}
