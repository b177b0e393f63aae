package metric

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/pil"
)

// PDF metrics: compare_pdfs, check_pdf_pages and compare_pdf_images.
// compare_pdfs reads text with MuPDF's mutool (pdftext.js, the
// structured-text device PyMuPDF's page.get_text() runs, printed as
// PyMuPDF prints it); check_pdf_pages and compare_pdf_images run
// poppler's pdfinfo and pdfimages. Each is a child process on the host
// (see the package documentation for why) under pdfToolTimeout.

// pdfToolTimeout bounds one run of a PDF program.
const pdfToolTimeout = 30 * time.Second

// pdfToolPackage names the Debian package of each PDF program.
var pdfToolPackage = map[string]string{
	"mutool":    "mupdf-tools",
	"pdfinfo":   "poppler-utils",
	"pdfimages": "poppler-utils",
}

// runPDFTool runs a PDF program and returns its standard output.
func runPDFTool(ctx context.Context, name string, args ...string) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, pdfToolTimeout)
	defer cancel()
	if _, err := exec.LookPath(name); err != nil {
		return nil, fmt.Errorf("%s is not installed (Debian package %s)", name, pdfToolPackage[name])
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

//go:embed pdftext.js
var pdfTextScript []byte

// pdfText is the text of every page of a PDF, in order, concatenated and
// stripped: OSWorld's extract_text_from_pdf, PyMuPDF's page.get_text() a
// page, byte for byte as PyMuPDF 1.21 gives it (pdftext.js says how).
// The file is opened as MuPDF opens it, so an image reads as a document
// without text and a file MuPDF cannot open is an error, as with
// fitz.open.
func pdfText(ctx context.Context, v any) (string, error) {
	p, ok := v.(string)
	if !ok || p == "" {
		return "", fmt.Errorf("want a PDF file path, got %s", py.TypeName(v))
	}
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: file not found", p)
		}
		return "", err
	}
	script, err := os.CreateTemp("", "deskrun-pdftext-*.js")
	if err != nil {
		return "", err
	}
	defer os.Remove(script.Name())
	_, err = script.Write(pdfTextScript)
	if cerr := script.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	out, err := runPDFTool(ctx, "mutool", "run", script.Name(), p)
	if err != nil {
		return "", err
	}
	// one JSON string a page; OSWorld adds the pages' texts together
	var b strings.Builder
	for _, line := range bytes.Split(out, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var page string
		if err := json.Unmarshal(line, &page); err != nil {
			return "", fmt.Errorf("mutool: unexpected output %q", py.Truncate(string(line), 80))
		}
		b.WriteString(page)
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
	// fitz.open(None) and fitz.open("") are a new empty document: no text
	text := func(v any) (string, error) {
		if s, ok := v.(string); v == nil || ok && s == "" {
			return "", nil
		}
		return pdfText(ctx, v)
	}
	for i := 0; i < min(len(r), len(e)); i++ {
		t1, err := text(r[i])
		if err != nil {
			details = append(details, fmt.Sprintf("result %d: %v", i, err))
			continue
		}
		t2, err := text(e[i])
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

// pdfEmbeddedImages is PyMuPDF's page.get_images(full=True) with
// extract_image, opened as PIL opens them and hashed (imagePHash): the images each page draws
// (each image object once a page, masks and inline images left out), in
// page order, through poppler's pdfimages; an image PIL could not open
// (JPEG 2000, JBIG2, CCITT, CMYK TIFF here) is left out, as OSWorld
// leaves out what it fails to open.
func pdfEmbeddedImages(ctx context.Context, p string) ([]uint64, error) {
	list, err := runPDFTool(ctx, "pdfimages", "-list", p)
	if err != nil {
		return nil, err
	}
	type entry struct{ num string }
	var keep []entry
	seen := map[string]bool{}
	for i, line := range strings.Split(string(list), "\n") {
		f := strings.Fields(line)
		if i < 2 || len(f) < 12 {
			continue
		}
		// page num type width height color comp bpc enc interp object ID ...
		page, num, typ, obj := f[0], f[1], f[2], f[10]+" "+f[11]
		if typ != "image" || seen[page+"/"+obj] {
			continue
		}
		seen[page+"/"+obj] = true
		keep = append(keep, entry{num})
	}
	if len(keep) == 0 {
		return nil, nil
	}
	dir, err := os.MkdirTemp("", "deskrun-pdfimages-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if _, err := runPDFTool(ctx, "pdfimages", "-all", p, filepath.Join(dir, "img")); err != nil {
		return nil, err
	}
	var out []uint64
	for _, e := range keep {
		n, _ := strconv.Atoi(e.num)
		files, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("img-%03d.*", n)))
		if len(files) != 1 {
			continue
		}
		img, pal, err := pil.Open(files[0])
		if err != nil {
			continue
		}
		out = append(out, imagePHash(img, pal))
	}
	return out, nil
}

// imagePHash is imagehash's phash: the image in mode L, resized to 32x32
// with Lanczos, its DCT's 8x8 lowest frequencies against their median.
func imagePHash(m *pil.Image, pal color.Palette) uint64 {
	g := pil.ResizeLanczos(m.Convert("L", pal), 32, 32)
	return pil.PHash32(g.Pix)
}

// comparePDFImages implements OSWorld's compare_pdf_images
// (desktop_env/evaluators/metrics/chrome.py): the share of embedded
// images whose perceptual hashes are within 5 bits, 0 when the counts
// differ, 1 when neither PDF has an image.
func comparePDFImages(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if !py.Truthy(result) || !py.Truthy(expected) {
		return 0, "no result or expected file", nil
	}
	var imgs [2][]uint64
	for i, v := range []any{result, expected} {
		p, err := pdfPath(v)
		if err != nil {
			return 0, err.Error(), nil
		}
		if _, err := os.Stat(p); err != nil {
			return 0, fmt.Sprintf("%s: file not found", p), nil
		}
		if imgs[i], err = pdfEmbeddedImages(ctx, p); err != nil {
			return 0, err.Error(), nil
		}
	}
	if len(imgs[0]) != len(imgs[1]) {
		return 0, fmt.Sprintf("%d embedded images, want %d", len(imgs[0]), len(imgs[1])), nil
	}
	if len(imgs[0]) == 0 {
		return 1, "", nil
	}
	near := 0
	for k := range imgs[0] {
		if bits.OnesCount64(imgs[0][k]^imgs[1][k]) <= 5 {
			near++
		}
	}
	return float64(near) / float64(len(imgs[0])), "", nil
}
