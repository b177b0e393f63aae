package dialect

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
)

// The sandbox's file tools (seeds/004): file_read, file_write,
// file_str_replace and image_view, on ReadFile, WriteFile and Exec.

// maxImageBytes bounds the file image_view reads. The MCP server fits
// what it sends under its clients' limit (MaxResultBytes of package
// server/mcp); this only keeps a huge file from being read at all.
const maxImageBytes = 20 << 20

func fileTool(ctx context.Context, d Desktop, name string, m map[string]any) (Result, error) {
	field := "file"
	if name == "image_view" {
		field = "image"
	}
	p, _ := m[field].(string)
	if !path.IsAbs(p) {
		return errorResult(fmt.Sprintf("%s: %q is not an absolute path", field, p)), nil
	}
	if sudo, _ := m["sudo"].(bool); sudo {
		return errorResult("sudo is not available: the agent has no root privileges in this sandbox"), nil
	}
	read := func() ([]byte, bool, error) {
		b, err := d.ReadFile(ctx, p)
		if errdefs.IsNotFound(err) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		return b, true, nil
	}
	fail := func(verb string, err error) (Result, error) {
		if refused(err) {
			return errorResult(fmt.Sprintf("%s %s: %v", verb, p, err)), nil
		}
		return Result{}, fmt.Errorf("%s %s: %w", verb, p, err)
	}
	switch name {
	case "file_read":
		b, ok, err := read()
		if err != nil {
			return fail("read", err)
		}
		if !ok {
			return errorResult(fmt.Sprintf("file not found: %s", p)), nil
		}
		return textResult(clip(sliceLines(string(b), intArg(m, "start_line"), intArg(m, "end_line")))), nil
	case "file_write":
		content, _ := m["content"].(string)
		appendMode, _ := m["append"].(bool)
		leading := appendMode
		if v, ok := m["leading_newline"].(bool); ok {
			leading = v
		}
		trailing := true
		if v, ok := m["trailing_newline"].(bool); ok {
			trailing = v
		}
		if leading {
			content = "\n" + content
		}
		if trailing {
			content += "\n"
		}
		data := []byte(content)
		if appendMode {
			old, _, err := read()
			if err != nil {
				return fail("read", err)
			}
			data = append(old, data...)
		}
		if res, err := d.Exec(ctx, api.ExecRequest{Cmd: []string{"mkdir", "-p", path.Dir(p)}, TimeoutMS: 10_000}); err != nil {
			return fail("create the directory of", err)
		} else if res.ExitCode != 0 {
			return errorResult(fmt.Sprintf("create the directory of %s: %s", p, strings.TrimSpace(res.Stderr))), nil
		}
		if err := d.WriteFile(ctx, p, data); err != nil {
			return fail("write", err)
		}
		verb := "Wrote"
		if appendMode {
			verb = "Appended"
		}
		return textResult(fmt.Sprintf("%s %d bytes to %s", verb, len(content), p)), nil
	case "file_str_replace":
		old, _ := m["old_str"].(string)
		repl, _ := m["new_str"].(string)
		if old == "" {
			return errorResult("old_str is empty; it must be the exact text to replace"), nil
		}
		b, ok, err := read()
		if err != nil {
			return fail("read", err)
		}
		if !ok {
			return errorResult(fmt.Sprintf("file not found: %s", p)), nil
		}
		n := strings.Count(string(b), old)
		if n == 0 {
			return errorResult(fmt.Sprintf("old_str not found in %s; it must match the file's text exactly", p)), nil
		}
		if err := d.WriteFile(ctx, p, []byte(strings.ReplaceAll(string(b), old, repl))); err != nil {
			return fail("write", err)
		}
		return textResult(fmt.Sprintf("Replaced %d occurrence(s) in %s", n, p)), nil
	case "image_view":
		b, ok, err := read()
		if err != nil {
			return fail("read", err)
		}
		if !ok {
			return errorResult(fmt.Sprintf("image not found: %s", p)), nil
		}
		if len(b) > maxImageBytes {
			return errorResult(fmt.Sprintf("image %s is %d bytes, at most %d", p, len(b), maxImageBytes)), nil
		}
		mime := imageType(p, b)
		if mime == "" {
			return errorResult(fmt.Sprintf("%s is not an image (JPEG, PNG, WebP, GIF, SVG, BMP or TIFF)", p)), nil
		}
		return Result{Content: []Part{
			{Type: "text", Text: fmt.Sprintf("%s (%s, %d bytes)", p, mime, len(b))},
			{Type: "image", MIMEType: mime, Data: b},
		}}, nil
	}
	return errorResult(fmt.Sprintf("unknown tool %q", name)), nil
}

func intArg(m map[string]any, k string) *int {
	f, ok := number(m[k])
	if !ok {
		return nil
	}
	n := int(f)
	return &n
}

// sliceLines returns lines [start, end) of text, 0-based; a negative
// index counts from the end (-1 is the last line); nil means the start or
// the end of the file. Out-of-range indexes are clamped.
func sliceLines(text string, start, end *int) string {
	if start == nil && end == nil {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n := len(lines)
	idx := func(p *int, def int) int {
		if p == nil {
			return def
		}
		i := *p
		if i < 0 {
			i += n
		}
		return max(0, min(i, n))
	}
	s, e := idx(start, 0), idx(end, n)
	if s >= e {
		return ""
	}
	return strings.Join(lines[s:e], "")
}

// imageType names the image format of a file by its content, or by its
// extension for SVG; empty if it is not an image.
func imageType(p string, b []byte) string {
	switch t := http.DetectContentType(b); t {
	case "image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp":
		return t
	}
	if len(b) >= 4 && (string(b[:4]) == "II*\x00" || string(b[:4]) == "MM\x00*") {
		return "image/tiff"
	}
	if strings.EqualFold(path.Ext(p), ".svg") || strings.Contains(string(b[:min(len(b), 512)]), "<svg") {
		return "image/svg+xml"
	}
	return ""
}
