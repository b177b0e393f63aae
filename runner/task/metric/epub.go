package metric

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/lxml"
)

// EPUB metric. compare_epub reads, from each book's zip, toc.ncx without
// its navPoint lines (ids and play orders are generated) and content.opf
// without its dc:identifier lines (a fresh UUID per export), each only
// when it sits at the top of the zip, and every .html entry with its line
// breaks removed and pretty-printed as lxml (libxml2's HTML serializer)
// writes it (runner/task/internal/lxml); then it pairs the parts in
// sorted order and averages difflib's line ratios over the result's
// parts. A book that is not a zip has no parts and scores 0; an .html
// entry in a folder makes OSWorld raise (it writes the part to a folder
// it never made), and scores 0.

const maxEpubEntry = 64 << 20

// epubParts returns the normalised parts of a book, sorted by name; none
// when the file is not a zip.
func epubParts(p any) ([]string, map[string][]string, error) {
	name, ok := p.(string)
	if !ok {
		return nil, nil, fmt.Errorf("want a file path, got %s", py.TypeName(p))
	}
	if _, err := os.Stat(name); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, nil, err
	}
	zr, err := zip.OpenReader(name)
	if err != nil {
		return nil, nil, nil
	}
	defer zr.Close()
	read := func(f *zip.File) (string, error) {
		rc, err := f.Open()
		if err != nil {
			return "", fmt.Errorf("%s: %w", f.Name, err)
		}
		defer rc.Close()
		data, err := io.ReadAll(io.LimitReader(rc, maxEpubEntry+1))
		if err != nil {
			return "", fmt.Errorf("%s: %w", f.Name, err)
		}
		if len(data) > maxEpubEntry {
			return "", fmt.Errorf("%s: larger than %d MiB", f.Name, maxEpubEntry>>20)
		}
		if !utf8.Valid(data) {
			return "", fmt.Errorf("%s: not UTF-8", f.Name)
		}
		return string(data), nil
	}
	parts := map[string][]string{}
	for _, need := range [][2]string{{"toc.ncx", "navPoint"}, {"content.opf", "dc:identifier"}} {
		i := slices.IndexFunc(zr.File, func(f *zip.File) bool { return f.Name == need[0] })
		if i < 0 {
			continue
		}
		text, err := read(zr.File[i])
		if err != nil {
			return nil, nil, err
		}
		var kept []string
		for _, l := range py.SplitLines(text) {
			if !strings.Contains(l, need[1]) {
				kept = append(kept, l)
			}
		}
		parts[need[0]] = kept
	}
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".html") {
			continue
		}
		if path.Dir(f.Name) != "." {
			return nil, nil, fmt.Errorf("%s: a part in a folder (OSWorld cannot write it out and raises)", f.Name)
		}
		text, err := read(f)
		if err != nil {
			return nil, nil, err
		}
		text = strings.NewReplacer("\n", "", "\r", "").Replace(text)
		parts[f.Name] = lxml.PrettyLines(text)
	}
	names := make([]string, 0, len(parts))
	for n := range parts {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, parts, nil
}

// compareEpub implements OSWorld's compare_epub
// (desktop_env/evaluators/metrics/others.py).
func compareEpub(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	ka, a, err := epubParts(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	kb, b, err := epubParts(expected)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	if len(ka) == 0 {
		return 0, "result: no parts (not an EPUB zip)", nil
	}
	sum := 0.0
	var details []string
	for i := 0; i < min(len(ka), len(kb)); i++ {
		r := py.SequenceRatio(a[ka[i]], b[kb[i]])
		if r < 1 {
			details = append(details, fmt.Sprintf("%s vs %s: %.2f", ka[i], kb[i], r))
		}
		sum += r
	}
	if len(kb) < len(ka) {
		details = append(details, fmt.Sprintf("%d parts, %d expected", len(ka), len(kb)))
	}
	return sum / float64(len(ka)), py.Truncate(strings.Join(details, "; "), 500), nil
}
