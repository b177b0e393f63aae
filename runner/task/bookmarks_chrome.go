package task

import (
	"context"
	"fmt"
	"path"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/internal/py"
)

// Chrome's bookmarks: the getter reads the profile's Bookmarks file (JSON)
// as OSWorld does, the metric compares the bookmark bar.

// bookmarks implements OSWorld's bookmarks
// (desktop_env/evaluators/getters/chrome.py).
//
// bookmarks answers the "roots" object of the profile's Bookmarks file
// (~/.config/google-chrome, else ~/.config/chromium), an empty list when
// there is none.
func (r *run) bookmarks(ctx context.Context, _ map[string]any) (any, error) {
	home, err := r.userHome(ctx)
	if err != nil {
		return nil, err
	}
	for _, dir := range []string{".config/google-chrome", ".config/chromium"} {
		data, err := r.sb.ReadFile(ctx, path.Join(home, dir, "Default", "Bookmarks"))
		if errdefs.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(data) == 0 {
			return []any{}, nil
		}
		v, err := py.DecodeJSON(data)
		if err != nil {
			return nil, fmt.Errorf("read bookmarks: %w", err)
		}
		m, _ := v.(map[string]any)
		if roots, ok := m["roots"]; ok {
			return roots, nil
		}
		return map[string]any{}, nil
	}
	return []any{}, nil
}
