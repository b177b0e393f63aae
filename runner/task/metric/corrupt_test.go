package metric

import (
	"bytes"
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// corrupt returns seed with a few random changes of the kinds a fuzzer
// makes: bytes replaced, runs inserted, chunks copied elsewhere.
func corrupt(r *rand.Rand, seed []byte) []byte {
	data := append([]byte(nil), seed...)
	for k := 0; k < 1+r.Intn(5); k++ {
		switch r.Intn(3) {
		case 0:
			data[r.Intn(len(data))] = byte(r.Intn(256))
		case 1:
			i := r.Intn(len(data))
			data = append(data[:i], append(bytes.Repeat([]byte{byte(r.Intn(256))}, r.Intn(64)), data[i:]...)...)
		case 2:
			i, j := r.Intn(len(data)), r.Intn(len(data))
			if i > j {
				i, j = j, i
			}
			at := r.Intn(len(data))
			data = append(data[:at], append(append([]byte(nil), data[i:j]...), data[at:]...)...)
		}
	}
	return data
}

// TestCorruptFilesScoreZeroQuickly grades corrupted copies of the
// fixtures: every call returns (a score, never a panic) within the
// metric deadline, and an unreadable file scores 0 with a detail.
func TestCorruptFilesScoreZeroQuickly(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 30
	}
	r := rand.New(rand.NewSource(1))
	dir := t.TempDir()
	for _, c := range []struct {
		seed, metric string
		expected     any
	}{
		{deckLOPath, "compare_pptx_files", deckLOPath},
		{imgDir + "scene.png", "compare_images", imgDir + "scene.png"},
		{imgDir + "scene.jpg", "check_structure_sim", imgDir + "scene.jpg"},
		{"testdata/metrics/tagged-v23.mp3", "check_mp3_meta", js(t, `{"title": {"method": "eq", "ref": "Tears of Dancing Girl"}}`)},
	} {
		seed, err := os.ReadFile(c.seed)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "corrupt"+filepath.Ext(c.seed))
		worst := time.Duration(0)
		for i := 0; i < n; i++ {
			if err := os.WriteFile(p, corrupt(r, seed), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			s, detail, err := metricTable[c.metric].Fn(context.Background(), p, c.expected, map[string]any{})
			worst = max(worst, time.Since(start))
			if err != nil {
				t.Fatalf("%s: error %v", c.metric, err)
			}
			if s == 0 && detail == "" {
				t.Fatalf("%s: 0 without a detail", c.metric)
			}
		}
		if worst > metricDeadline {
			t.Errorf("%s: slowest corrupt file took %v", c.metric, worst)
		}
		t.Logf("%s: %d corrupt files, slowest %v", c.metric, n, worst)
	}
}
