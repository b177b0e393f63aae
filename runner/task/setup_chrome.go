package task

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/task/metric"
)

// Chrome's setup steps act on the browser the desktop runs: the one a
// task's launch step started with --remote-debugging-port (OSWorld
// launches google-chrome that way), reached by agentd inside the sandbox,
// else agentd's own.

// BrowserHost is implemented by sandboxes whose agentd drives a browser
// (a runner session and agentd's client): the Chrome steps, getters and
// metrics go through it.
type BrowserHost interface {
	Browser(ctx context.Context, action string, r api.BrowserRequest) (api.BrowserResult, error)
}

// desktopBrowser is the port value that names the desktop's browser.
const desktopBrowser = -1

// browserWait is how long the steps wait for a browser just launched to
// answer (OSWorld tries for 75 s).
const browserWait = 60 * time.Second

func checkURLList(key string) func(f fields) error {
	return func(f fields) error {
		if err := f.only(key); err != nil {
			return err
		}
		if !f.has(key) {
			return fmt.Errorf("%s: required", f.name(key))
		}
		_, err := f.strList(key)
		return err
	}
}

// browser returns the sandbox's browser host.
func (r *run) browser() (BrowserHost, error) {
	bh, ok := r.sb.(BrowserHost)
	if !ok {
		return nil, errdefs.ErrNotImplemented.WithMessage("this sandbox has no browser")
	}
	return bh, nil
}

// tabs lists the desktop browser's tabs, waiting up to wait for a browser
// that does not answer yet.
func (r *run) tabs(ctx context.Context, wait time.Duration) ([]api.BrowserTab, error) {
	bh, err := r.browser()
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		res, err := bh.Browser(ctx, "tabs", api.BrowserRequest{Port: desktopBrowser})
		if err == nil {
			return res.Tabs, nil
		}
		if !errdefs.IsUnavailable(err) || time.Now().After(deadline) {
			return nil, fmt.Errorf("list the browser's tabs: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// chromeOpenTabs implements OSWorld's chrome_open_tabs
// (desktop_env/controllers/setup.py).
//
// chromeOpenTabs opens each URL in a new tab and, once the first is open,
// closes the tab the browser started with, as OSWorld's step does. A page
// that does not load in time stays open (OSWorld logs it and goes on).
func (r *run) chromeOpenTabs(ctx context.Context, p map[string]any) error {
	urls, _ := fields{m: p}.strList("urls_to_open")
	before, err := r.tabs(ctx, browserWait)
	if err != nil {
		return err
	}
	bh, _ := r.browser()
	for i, u := range urls {
		_, err := bh.Browser(ctx, "open_tabs", api.BrowserRequest{Port: desktopBrowser, URLs: []string{u}})
		if err != nil && !errdefs.IsDeadlineExceeded(err) {
			return fmt.Errorf("open tab %s: %w", u, err)
		}
		if err != nil {
			r.log.WarnContext(ctx, "tab did not finish loading", "url", u, "err", err)
		}
		if i == 0 && len(before) > 0 {
			if _, err := bh.Browser(ctx, "close_tabs", api.BrowserRequest{Port: desktopBrowser, IDs: []string{before[0].ID}}); err != nil {
				return fmt.Errorf("close the first tab: %w", err)
			}
		}
	}
	return nil
}

// chromeCloseTabs implements OSWorld's chrome_close_tabs
// (desktop_env/controllers/setup.py).
//
// chromeCloseTabs closes, for each URL, the first tab showing it (URLs
// compared as OSWorld's compare_urls does).
func (r *run) chromeCloseTabs(ctx context.Context, p map[string]any) error {
	urls, _ := fields{m: p}.strList("urls_to_close")
	tabs, err := r.tabs(ctx, browserWait)
	if err != nil {
		return err
	}
	bh, _ := r.browser()
	var errs []error
	for _, u := range urls {
		for i, t := range tabs {
			if metric.SameURL(t.URL, u) {
				if _, err := bh.Browser(ctx, "close_tabs", api.BrowserRequest{Port: desktopBrowser, IDs: []string{t.ID}}); err != nil {
					errs = append(errs, fmt.Errorf("close tab %s: %w", t.URL, err))
				}
				tabs = append(tabs[:i], tabs[i+1:]...)
				break
			}
		}
	}
	return errors.Join(errs...)
}
