package task

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/internal/py"
)

// fileServer serves the paths a real download takes: a file, a
// redirect to it, a 404, a server error that heals on the third try, and
// a slow answer.
func fileServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var flaky atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/files/report.xlsx", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("xlsx bytes")) })
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/files/report.xlsx", http.StatusFound)
	})
	mux.HandleFunc("/flaky", func(w http.ResponseWriter, r *http.Request) {
		if flaky.Add(1) < 3 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("at last"))
	})
	mux.HandleFunc("/down", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusBadGateway) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &flaky
}

func TestFetch(t *testing.T) {
	srv, flaky := fileServer(t)
	fetch := NewFetch(FetchOptions{Backoff: time.Millisecond, Client: &http.Client{Timeout: 300 * time.Millisecond}})
	ctx := t.Context()
	for _, tt := range []struct {
		name, path, want string
		class            func(error) bool
	}{
		{"file", "/files/report.xlsx", "xlsx bytes", nil},
		{"redirect", "/redirect", "xlsx bytes", nil},
		{"retried until it answers", "/flaky", "at last", nil},
		{"404", "/missing", "", errdefs.IsNotFound},
		{"5xx on every attempt", "/down", "", errdefs.IsUnavailable},
		{"slow", "/slow", "", errdefs.IsUnavailable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data, err := fetch(ctx, srv.URL+tt.path)
			if tt.class != nil {
				if err == nil || !tt.class(err) {
					t.Errorf("err = %v, want another class", err)
				}
				return
			}
			if err != nil || string(data) != tt.want {
				t.Errorf("got %q, %v; want %q", data, err, tt.want)
			}
		})
	}
	if n := flaky.Load(); n != 3 {
		t.Errorf("flaky URL asked %d times, want 3", n)
	}

	// A URL map answers from the mirror, without the network; offline,
	// a URL it lacks skips the task.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mirror.bin"), []byte("mirrored"), 0o644); err != nil {
		t.Fatal(err)
	}
	mapFile := filepath.Join(dir, "urls.json")
	if err := os.WriteFile(mapFile, []byte(`{"https://cdn.example.org/a.bin": "mirror.bin"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadURLMap(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	offline := NewFetch(FetchOptions{URLMap: m, Offline: true})
	if data, err := offline(ctx, "https://cdn.example.org/a.bin"); err != nil || string(data) != "mirrored" {
		t.Errorf("mapped URL: %q, %v", data, err)
	}
	if _, err := offline(ctx, "https://cdn.example.org/b.bin"); SkipOf(err) == nil {
		t.Errorf("offline URL not in the map: %v, want a skip", err)
	}
	if err := os.WriteFile(mapFile, []byte(`{"ftp://x/a": "a"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadURLMap(mapFile); !errdefs.IsInvalidArgument(err) {
		t.Errorf("bad map: %v", err)
	}
}

// A download step fetches once into OSWorld's cache layout
// (<cache>/<task id>/<uuid5(url)>_<name>) and reads it from there after;
// a relative path lands in the user's home; cloud_file with multi and
// gives returns the files asked for.
func TestDownloadCache(t *testing.T) {
	srv, _ := fileServer(t)
	var hits atomic.Int32
	base := NewFetch(FetchOptions{Backoff: time.Millisecond})
	fetch := func(ctx context.Context, url string) ([]byte, error) { hits.Add(1); return base(ctx, url) }
	cache := t.TempDir()
	url := srv.URL + "/redirect"
	tk := parseTask(t, `{"id": "6f4073b8-d8ea-4ade-8a18-c5d1d5d5aa9a", "instruction": "x",
	  "config": [{"type": "download", "parameters": {"files": [{"url": "`+url+`", "path": "setup.sh"}]}}],
	  "evaluator": {"func": "infeasible"}}`, t.TempDir())
	for i := range 2 {
		f := newFake()
		if err := Setup(t.Context(), f, tk, Options{Fetch: fetch, DownloadCache: cache}); err != nil {
			t.Fatal(err)
		}
		if got := string(f.files["/home/user/setup.sh"]); got != "xlsx bytes" {
			t.Errorf("run %d: /home/user/setup.sh = %q", i, got)
		}
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("fetched %d times, want 1 (then the cache)", n)
	}
	cached := filepath.Join(cache, tk.ID, py.UUID5URL(url)+"_setup.sh")
	if data, err := os.ReadFile(cached); err != nil || string(data) != "xlsx bytes" {
		t.Errorf("cache file %s: %q, %v", cached, data, err)
	}
	// Without network the cache alone serves it.
	f := newFake()
	if err := Setup(t.Context(), f, tk, Options{DownloadCache: cache}); err != nil {
		t.Errorf("from the cache without network: %v", err)
	}

	// A failed download is the infrastructure's, not the task's.
	bad := parseTask(t, withConfig(`[{"type": "download", "parameters": {"files": [{"url": "`+srv.URL+`/down", "path": "/tmp/x"}]}}]`), t.TempDir())
	err := Setup(t.Context(), newFake(), bad, Options{Fetch: fetch})
	if !errdefs.IsUnavailable(err) || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("failing download = %v, want unavailable after 3 attempts", err)
	}

	// cloud_file: multi with gives, fetched into the task's cache.
	ev := parseTask(t, `{"id": "c", "instruction": "x", "evaluator": {"func": "exact_match",
	  "result": {"type": "cloud_file", "multi": true, "path": ["`+srv.URL+`/files/report.xlsx", "`+srv.URL+`/flaky"], "dest": ["a.xlsx", "b.txt"], "gives": [1]},
	  "expected": {"type": "rule", "rules": {"expected": "x"}}}}`, t.TempDir())
	taskCache := t.TempDir()
	r, done, err := newRun(newFake(), ev, Options{Fetch: fetch, CacheDir: taskCache})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	got, err := r.get(t.Context(), ev.Evaluator.Result[0])
	if err != nil {
		t.Fatal(err)
	}
	if got != filepath.Join(taskCache, "b.txt") {
		t.Errorf("cloud_file gives [1] = %v", got)
	}
	for _, n := range []string{"a.xlsx", "b.txt"} {
		if _, err := os.Stat(filepath.Join(taskCache, n)); err != nil {
			t.Errorf("%s not fetched: %v", n, err)
		}
	}
}
