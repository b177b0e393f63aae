package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/py"
)

// info_from_website reads texts and attributes of a page in the desktop's
// browser, as OSWorld's getter does with Playwright; when any step fails
// (the site does not load, a selector never appears) it answers the
// task's backups, as OSWorld does.

func checkInfoFromWebsite(f fields) error {
	if _, err := f.str("url", true); err != nil {
		return err
	}
	v, ok := f.m["infos"]
	if !ok || v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s: want a list, got %s", f.name("infos"), py.TypeName(v))
	}
	for i, e := range list {
		m, ok := e.(map[string]any)
		info := fields{m: m, path: fmt.Sprintf("%s[%d]", f.name("infos"), i)}
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", info.path, py.TypeName(e))
		}
		action, err := info.str("action", false)
		if err != nil {
			return err
		}
		switch action {
		case "", "inner_text", "attribute":
			if _, err := info.str("selector", true); err != nil {
				return err
			}
		case "click_and_inner_text", "click_and_attribute":
			sels, err := info.strList("selector")
			if err != nil {
				return err
			}
			if len(sels) == 0 {
				return fmt.Errorf("%s: want a non-empty list of selectors", info.name("selector"))
			}
		default:
			return fmt.Errorf("%s: %q is not one of inner_text, attribute, click_and_inner_text, click_and_attribute", info.name("action"), action)
		}
		if action == "attribute" || action == "click_and_attribute" {
			if _, err := info.str("attribute", true); err != nil {
				return err
			}
		}
	}
	return nil
}

// selectorWait is how long a selector may take to appear (Playwright's
// timeout in OSWorld's getter).
const selectorWait = 10 * time.Second

// elementJS waits (in the page) up to ms for the element of a CSS
// selector, then acts on it: "text" answers its innerText, "attr" an
// attribute (null when absent), "click" clicks it.
const elementJS = `(async (sel, what, attr, ms) => {
  const end = Date.now() + ms;
  for (;;) {
    const e = document.querySelector(sel);
    if (e) {
      if (what === 'text') return {found: true, value: e.innerText};
      if (what === 'attr') return {found: true, value: e.getAttribute(attr)};
      e.click();
      return {found: true, value: null};
    }
    if (Date.now() > end) return {found: false};
    await new Promise(r => setTimeout(r, 100));
  }
})`

// infoFromWebsite implements OSWorld's info_from_website
// (desktop_env/evaluators/getters/chrome.py).
func (r *run) infoFromWebsite(ctx context.Context, p map[string]any) (any, error) {
	out, err := r.websiteInfos(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r.log.WarnContext(ctx, "info_from_website: using the backups", "url", p["url"], "err", err)
		return p["backups"], nil
	}
	return out, nil
}

func (r *run) websiteInfos(ctx context.Context, p map[string]any) ([]any, error) {
	bh, err := r.browser()
	if err != nil {
		return nil, err
	}
	u, _ := p["url"].(string)
	before, err := r.tabs(ctx, getterBrowserWait)
	if err != nil {
		return nil, err
	}
	if _, err := bh.Browser(ctx, "open_tabs", api.BrowserRequest{Port: desktopBrowser, URLs: []string{u}}); err != nil && !errdefs.IsDeadlineExceeded(err) {
		return nil, fmt.Errorf("open %s: %w", u, err)
	}
	after, err := r.tabs(ctx, getterBrowserWait)
	if err != nil {
		return nil, err
	}
	old := map[string]bool{}
	for _, t := range before {
		old[t.ID] = true
	}
	tab := ""
	for _, t := range after {
		if !old[t.ID] {
			tab = t.ID
			break
		}
	}
	if tab == "" {
		return nil, errors.New("the page's tab did not open")
	}
	defer func() {
		_, _ = bh.Browser(context.WithoutCancel(ctx), "close_tabs", api.BrowserRequest{Port: desktopBrowser, IDs: []string{tab}})
	}()
	eval := func(js string) (json.RawMessage, error) {
		res, err := bh.Browser(ctx, "console_exec", api.BrowserRequest{Port: desktopBrowser, Tab: tab, JavaScript: js})
		return res.Value, err
	}
	// element acts on a selector's element, retrying while a page loads
	// (its scripts' context goes away under a call).
	element := func(sel, what, attr string) (any, error) {
		deadline := time.Now().Add(selectorWait)
		args, _ := json.Marshal([]any{sel, what, attr, selectorWait.Milliseconds()})
		js := elementJS + "(..." + string(args) + ")"
		for {
			raw, err := eval(js)
			if err == nil {
				var v struct {
					Found bool
					Value any
				}
				if err := decodeNumbers(raw, &v); err != nil {
					return nil, err
				}
				if !v.Found {
					return nil, fmt.Errorf("no element %s", sel)
				}
				return v.Value, nil
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("element %s: %w", sel, err)
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	// loaded waits for the page a click started to finish loading.
	loaded := func() {
		deadline := time.Now().Add(selectorWait)
		time.Sleep(300 * time.Millisecond)
		for time.Now().Before(deadline) {
			if raw, err := eval("document.readyState"); err == nil && string(raw) == `"complete"` {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	infos, _ := p["infos"].([]any)
	out := []any{}
	for _, e := range infos {
		info, _ := e.(map[string]any)
		var here string
		if raw, err := eval("location.href"); err != nil || json.Unmarshal(raw, &here) != nil || here != u {
			if _, err := eval("location.href = " + string(mustJSON(u))); err != nil {
				return nil, fmt.Errorf("go back to %s: %w", u, err)
			}
			loaded()
		}
		action, _ := info["action"].(string)
		attr, _ := info["attribute"].(string)
		var v any
		var err error
		switch action {
		case "", "inner_text":
			sel, _ := info["selector"].(string)
			v, err = element(sel, "text", "")
		case "attribute":
			sel, _ := info["selector"].(string)
			v, err = element(sel, "attr", attr)
		case "click_and_inner_text", "click_and_attribute":
			sels := py.Strings(info["selector"])
			for _, sel := range sels[:len(sels)-1] {
				if _, err = element(sel, "click", ""); err != nil {
					break
				}
				loaded()
			}
			if err == nil {
				last := sels[len(sels)-1]
				if action == "click_and_inner_text" {
					v, err = element(last, "text", "")
				} else {
					v, err = element(last, "attr", attr)
				}
			}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
