package metric

import (
	"os/exec"
	"path/filepath"
	"testing"
)

func TestCompareImageText(t *testing.T) {
	for _, tool := range []string{"tesseract", "convert"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (scripts/install-deps.sh installs it)", tool)
		}
	}
	img := filepath.Join(t.TempDir(), "ls.png")
	if out, err := exec.Command("convert", "-size", "420x90", "xc:white", "-fill", "black", "-pointsize", "40",
		"-annotate", "+12+60", "echo hello world", img).CombinedOutput(); err != nil {
		t.Fatalf("convert: %v: %s", err, out)
	}
	runSettingsCases(t, []settingsCase{
		{"text present", "compare_image_text", img, js(t, `{"type": "text", "text": " hello"}`), 1},
		{"text absent", "compare_image_text", img, js(t, `{"type": "text", "text": "pwd"}`), 0},
		{"missing", "compare_image_text", filepath.Join(t.TempDir(), "x.png"), js(t, `{"type": "text", "text": "ls"}`), 0},
		{"corrupt", "compare_image_text", writeTemp(t, "x.png", "\x89PNG junk"), js(t, `{"type": "text", "text": "ls"}`), 0},
		{"no result", "compare_image_text", nil, js(t, `{"type": "text", "text": "ls"}`), 0},
	})
	if metricTable["compare_image_text"].CheckRules(js(t, `{"type": "regex", "text": "x"}`)) == nil {
		t.Error("type regex: no load-time error")
	}
}
