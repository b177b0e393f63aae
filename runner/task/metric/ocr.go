package metric

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/deskrun/deskrun/internal/py"
)

// OCR metric. compare_image_text reads an image's text and wants the
// rule's text in it. OSWorld reads with easyocr and joins the detected
// boxes with spaces; deskrun runs Tesseract (Debian's tesseract-ocr,
// English) as a child process with a deadline and joins its lines the
// same way.

const ocrTimeout = 60 * time.Second

func checkImageTextRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	if py.Str(m["type"]) != "text" {
		return fmt.Errorf("type: want text, got %s", py.Truncate(py.Repr(m["type"]), 50))
	}
	if _, ok := m["text"].(string); !ok {
		return fmt.Errorf("text: want a string, got %s", py.TypeName(m["text"]))
	}
	return nil
}

// ocrText returns the text Tesseract reads in an image, its lines joined
// by single spaces.
func ocrText(ctx context.Context, p any) (string, error) {
	name, ok := p.(string)
	if !ok {
		return "", fmt.Errorf("want a file path, got %s", py.TypeName(p))
	}
	if _, err := os.Stat(name); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: file not found", name)
		}
		return "", err
	}
	cmd := exec.CommandContext(ctx, "tesseract", name, "-", "-l", "eng")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", errors.New("OCR ran past its deadline")
		}
		if errors.Is(err, exec.ErrNotFound) {
			return "", errors.New("tesseract is not installed")
		}
		return "", fmt.Errorf("tesseract cannot read it: %s", py.Truncate(strings.TrimSpace(errb.String()), 200))
	}
	var lines []string
	for _, l := range strings.Split(out.String(), "\n") {
		if l = strings.TrimSpace(strings.ReplaceAll(l, "\f", "")); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " "), nil
}

// compareImageText implements OSWorld's compare_image_text
// (desktop_env/evaluators/metrics/docs.py).
func compareImageText(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result image", nil
	}
	parent := ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, ocrTimeout)
	defer cancel()
	text, err := ocrText(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	want, _ := rules["text"].(string)
	if !strings.Contains(text, want) {
		return 0, fmt.Sprintf("%q is not in the text read: %q", want, py.Truncate(text, 200)), nil
	}
	return 1, "", nil
}
