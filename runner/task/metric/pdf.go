package metric

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/deskrun/deskrun/internal/py"
)

// PDF metrics: compare_pdfs, check_pdf_pages and compare_pdf_images.
// They run poppler's pdftotext, pdfinfo and pdftoppm on the host (see
// the package documentation for why), each under pdfToolTimeout.

// pdfToolTimeout bounds one run of a poppler program.
const pdfToolTimeout = 30 * time.Second

// runPDFTool runs a poppler program and returns its standard output.
func runPDFTool(ctx context.Context, name string, args ...string) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, pdfToolTimeout)
	defer cancel()
	if _, err := exec.LookPath(name); err != nil {
		return nil, fmt.Errorf("%s is not installed (Debian package poppler-utils)", name)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: gave up after %s", name, pdfToolTimeout)
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("%s: %s", name, py.Truncate(msg, 200))
	}
	return out.Bytes(), nil
}

// pdfPath checks that a getter value names a readable PDF.
func pdfPath(v any) (string, error) {
	p, ok := v.(string)
	if !ok || p == "" {
		return "", fmt.Errorf("want a PDF file path, got %s", py.TypeName(v))
	}
	f, err := os.Open(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: file not found", p)
		}
		return "", err
	}
	head := make([]byte, 1024)
	n, _ := f.Read(head)
	f.Close()
	if !bytes.Contains(head[:n], []byte("%PDF")) {
		return "", fmt.Errorf("%s: not a PDF", filepath.Base(p))
	}
	return p, nil
}

// pdfText is the text of every page, in order, stripped (PyMuPDF's
// get_text per page, concatenated, as OSWorld reads it).
func pdfText(ctx context.Context, v any) (string, error) {
	p, err := pdfPath(v)
	if err != nil {
		return "", err
	}
	out, err := runPDFTool(ctx, "pdftotext", "-q", "-enc", "UTF-8", p, "-")
	if err != nil {
		return "", err
	}
	// pdftotext ends a page with a blank line and a form feed; MuPDF's
	// get_text ends it after its last line's newline. Pages are joined as
	// OSWorld joins get_text's answers.
	var b strings.Builder
	for _, page := range strings.Split(string(out), "\f") {
		if page = strings.TrimRight(page, "\n"); page != "" {
			b.WriteString(page)
			b.WriteByte('\n')
		}
	}
	return py.Strip(b.String()), nil
}

// comparePDFs implements OSWorld's compare_pdfs
// (desktop_env/evaluators/metrics/chrome.py).
func comparePDFs(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	var r, e []any
	if el, ok := expected.([]any); ok {
		e = el
		r, _ = result.([]any)
	} else {
		r, e = []any{result}, []any{expected}
	}
	if len(e) == 0 {
		return 0, "no expected PDF", nil
	}
	total := 0.0
	var details []string
	for i := 0; i < min(len(r), len(e)); i++ {
		t1, err := pdfText(ctx, r[i])
		if err != nil {
			details = append(details, fmt.Sprintf("result %d: %v", i, err))
			continue
		}
		t2, err := pdfText(ctx, e[i])
		if err != nil {
			details = append(details, fmt.Sprintf("expected %d: %v", i, err))
			continue
		}
		s, err := py.FuzzRatioContext(ctx, t1, t2)
		if err != nil {
			return 0, "", err
		}
		s /= 100
		if s < 1 {
			details = append(details, fmt.Sprintf("pair %d: texts %.0f%% similar", i, s*100))
		}
		total += s
	}
	return total / float64(len(e)), strings.Join(details, "; "), nil
}

func checkPDFPagesRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	switch m["relation"] {
	case "eq", "ne", "lt", "le", "gt", "ge":
	default:
		return fmt.Errorf("relation: want eq, ne, lt, le, gt or ge, got %s", py.Repr(m["relation"]))
	}
	if _, ok := m["ref_value"]; !ok {
		return errors.New("ref_value: required")
	}
	return nil
}

// pdfPages counts the pages of a PDF with pdfinfo.
func pdfPages(ctx context.Context, v any) (int, error) {
	p, err := pdfPath(v)
	if err != nil {
		return 0, err
	}
	out, err := runPDFTool(ctx, "pdfinfo", p)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "Pages:"); ok {
			return strconv.Atoi(strings.TrimSpace(rest))
		}
	}
	return 0, errors.New("pdfinfo gave no page count")
}

// checkPDFPages implements OSWorld's check_pdf_pages
// (desktop_env/evaluators/metrics/pdf.py).
func checkPDFPages(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if result == nil {
		return 0, "no result file", nil
	}
	n, err := pdfPages(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	rel, _ := rules["relation"].(string)
	var ok bool
	switch rel {
	case "eq":
		ok = py.Equal(py.IntNumber(n), rules["ref_value"])
	case "ne":
		ok = !py.Equal(py.IntNumber(n), rules["ref_value"])
	default:
		ok = compareOp(rel, py.IntNumber(n), rules["ref_value"])
	}
	if ok {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("%d pages, want %s %s", n, rel, py.Repr(rules["ref_value"])), nil
}

// pdfPageImages renders every page at 72 dpi (PyMuPDF's default pixmap)
// and returns the PNG files' contents in page order.
func pdfPageImages(ctx context.Context, v any) ([][]byte, error) {
	p, err := pdfPath(v)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "deskrun-pdf-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if _, err := runPDFTool(ctx, "pdftoppm", "-r", "72", "-png", p, filepath.Join(dir, "page")); err != nil {
		return nil, err
	}
	names, err := filepath.Glob(filepath.Join(dir, "page*.png"))
	if err != nil {
		return nil, err
	}
	num := func(s string) int {
		s = strings.TrimSuffix(filepath.Base(s), ".png")
		n, _ := strconv.Atoi(strings.TrimLeft(strings.TrimPrefix(s, "page-"), "0"))
		return n
	}
	sort.Slice(names, func(i, j int) bool { return num(names[i]) < num(names[j]) })
	var out [][]byte
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, data)
	}
	return out, nil
}

// comparePDFImages implements OSWorld's compare_pdf_images
// (desktop_env/evaluators/metrics/chrome.py).
func comparePDFImages(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if !py.Truthy(result) || !py.Truthy(expected) {
		return 0, "no result or expected file", nil
	}
	i1, err := pdfPageImages(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	i2, err := pdfPageImages(ctx, expected)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	if len(i1) != len(i2) {
		return 0, fmt.Sprintf("%d pages, want %d", len(i1), len(i2)), nil
	}
	for k := range i1 {
		if bytes.Equal(i1[k], i2[k]) {
			continue
		}
		a, err := decodePixels(i1[k])
		if err != nil {
			return 0, "result: " + err.Error(), nil
		}
		b, err := decodePixels(i2[k])
		if err != nil {
			return 0, "expected: " + err.Error(), nil
		}
		if !samePixels(a, b) {
			return 0, fmt.Sprintf("page %d looks different", k+1), nil
		}
	}
	return 1, "", nil
}
