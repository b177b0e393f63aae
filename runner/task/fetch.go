package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/internal/hostfile"
)

// FetchOptions configure [NewFetch].
type FetchOptions struct {
	// Client makes the requests; nil means a client with a 5-minute
	// timeout per request. Redirects are followed.
	Client *http.Client
	// URLMap maps URLs to files on the runner host (a mirror of
	// OSWorld's files for a farm without internet); a mapped URL is never
	// fetched. See [ReadURLMap].
	URLMap map[string]string
	// Offline refuses URLs the map does not hold, without trying the
	// network.
	Offline bool
	// Attempts is how many times a URL is tried (default 3, as OSWorld);
	// Backoff the pause after the first failure, doubled after each
	// (default 1s).
	Attempts int
	Backoff  time.Duration
	// MaxBytes bounds one file (default 2 GiB).
	MaxBytes int64
}

// NewFetch returns an [Options.Fetch] reading http(s) URLs: from the URL
// map first, else over the network, retried on network errors and 5xx
// answers. Its errors are of class [errdefs.ErrUnavailable] when the
// network or the server failed on every attempt (an infrastructure
// failure, which the farm retries), [errdefs.ErrNotFound] for a 4xx
// answer, and a *[Skip] when Offline and the URL is not in the map.
func NewFetch(o FetchOptions) func(ctx context.Context, url string) ([]byte, error) {
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 5 * time.Minute}
	}
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 2 << 30
	}
	return func(ctx context.Context, url string) ([]byte, error) {
		if p, ok := o.URLMap[url]; ok {
			data, err := hostfile.Read(p, o.MaxBytes)
			if err != nil {
				return nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("%s: the URL map names %s: %s", url, p, err))
			}
			return data, nil
		}
		if o.Offline {
			return nil, &Skip{Reason: fmt.Sprintf("needs %s, which is neither in the cache nor in the URL map, and the run has no network", url)}
		}
		var last error
		wait := o.Backoff
		for n := 1; ; n++ {
			data, retry, err := get(ctx, o.Client, url, o.MaxBytes)
			if err == nil {
				return data, nil
			}
			last = err
			if !retry || n >= o.Attempts || ctx.Err() != nil {
				break
			}
			if err := sleepCtx(ctx, wait); err != nil {
				return nil, err
			}
			wait *= 2
		}
		if errdefs.IsNotFound(last) || ctx.Err() != nil {
			return nil, last
		}
		return nil, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("%s (after %d attempts)", last, o.Attempts))
	}
}

// get makes one request; retry says whether another attempt may help.
func get(ctx context.Context, c *http.Client, url string, limit int64) (data []byte, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, false, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("get %s: %s", url, err))
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, true, fmt.Errorf("get %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		msg := fmt.Sprintf("get %s: %s", url, resp.Status)
		if resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusRequestTimeout {
			return nil, false, errdefs.ErrNotFound.WithMessage(msg)
		}
		return nil, true, errors.New(msg)
	}
	data, err = io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, true, fmt.Errorf("get %s: %w", url, err)
	}
	if int64(len(data)) > limit {
		return nil, false, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("get %s: larger than %d bytes", url, limit))
	}
	return data, false, nil
}

// maxURLMap bounds a URL map file.
const maxURLMap = 64 << 20

// ReadURLMap reads a URL map: a JSON object of URL to file path; relative
// paths are relative to the map's folder.
func ReadURLMap(path string) (map[string]string, error) {
	data, err := hostfile.Read(path, maxURLMap)
	if err != nil {
		return nil, fmt.Errorf("read URL map: %w", err)
	}
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("read URL map %s: want an object of URL to file path: %s", path, err))
	}
	for u, p := range m {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("read URL map %s: %q: want an http(s) URL", path, u))
		}
		if !filepath.IsAbs(p) {
			m[u] = filepath.Join(filepath.Dir(path), p)
		}
	}
	return m, nil
}
