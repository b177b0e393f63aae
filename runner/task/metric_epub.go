package task

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// EPUB metric. compare_epub normalises both books' toc.ncx (navPoint
// lines dropped: their ids and play orders are generated), content.opf
// (dc:identifier lines dropped: a fresh UUID per export) and every .html
// entry (line breaks removed, one line per tag), then multiplies the
// line-based difflib ratios of the pairs, files paired in sorted order.
// OSWorld pretty-prints the HTML with lxml before diffing; one line per
// tag is our stand-in, equal on equal markup.

func init() {
	addMetrics(map[string]metricSpec{
		"compare_epub": {fn: compareEpub, needsExpected: true},
	})
}

const maxEpubEntry = 64 << 20

// epubParts returns the normalised parts of a book by name.
func epubParts(p any) (map[string][]string, error) {
	name, ok := p.(string)
	if !ok {
		return nil, fmt.Errorf("want a file path, got %s", typeName(p))
	}
	zr, err := zip.OpenReader(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, fmt.Errorf("%s: not an EPUB (zip) file: %w", filepath.Base(name), err)
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
		return string(data), nil
	}
	parts := map[string][]string{}
	for _, need := range [][2]string{{"toc.ncx", "navPoint"}, {"content.opf", "dc:identifier"}} {
		i := slices.IndexFunc(zr.File, func(f *zip.File) bool { return f.Name == need[0] })
		if i < 0 {
			return nil, fmt.Errorf("%s: no %s", filepath.Base(name), need[0])
		}
		text, err := read(zr.File[i])
		if err != nil {
			return nil, err
		}
		var kept []string
		for _, l := range pySplitLines(text) {
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
		text, err := read(f)
		if err != nil {
			return nil, err
		}
		text = strings.NewReplacer("\n", "", "\r", "").Replace(text)
		var lines []string
		for _, l := range strings.SplitAfter(strings.ReplaceAll(text, "<", "\x00<"), "\x00") {
			if l = strings.TrimSpace(strings.TrimSuffix(l, "\x00")); l != "" {
				lines = append(lines, l)
			}
		}
		parts[f.Name] = lines
	}
	return parts, nil
}

func compareEpub(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	a, err := epubParts(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	b, err := epubParts(expected)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	sorted := func(m map[string][]string) []string {
		var k []string
		for n := range m {
			k = append(k, n)
		}
		slices.Sort(k)
		return k
	}
	ka, kb := sorted(a), sorted(b)
	score := 1.0
	var details []string
	for i := 0; i < min(len(ka), len(kb)); i++ {
		r := sequenceRatio(a[ka[i]], b[kb[i]])
		if r < 1 {
			details = append(details, fmt.Sprintf("%s vs %s: %.2f", ka[i], kb[i], r))
		}
		score *= r
	}
	return score, truncate(strings.Join(details, "; "), 500), nil
}
