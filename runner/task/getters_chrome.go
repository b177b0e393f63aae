package task

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/deskrun/deskrun/api"
)

// Chrome's getters read the desktop's browser through agentd (tabs, the
// active tab's address, pages' HTML), as OSWorld reads them over the
// DevTools port. Where OSWorld answers None (no browser, no tab), they
// answer nil.

func init() {
	addGetters(map[string]getterSpec{
		"open_tabs_info":             {checkNoParams, (*run).openTabsInfo},
		"active_url_from_accessTree": {checkNoParams, (*run).activeURLGetter},
		"active_tab_info":            {checkNoParams, (*run).activeTabInfo},
		"page_info":                  {checkPageInfo, (*run).pageInfo},
		"active_tab_html_parse":      {checkHTMLParse, (*run).activeTabHTMLParse},
		"active_tab_url_parse":       {checkURLParse, (*run).activeTabURLParse},
		"url_dashPart":               {checkDashPart, (*run).urlDashPart},
		"pdf_from_url":               {checkPDFFromURL, (*run).pdfFromURL},
	})
}

// getterBrowserWait bounds how long a getter waits for the browser.
const getterBrowserWait = 10 * time.Second

func (r *run) openTabsInfo(ctx context.Context, _ map[string]any) (any, error) {
	tabs, err := r.tabs(ctx, getterBrowserWait)
	if err != nil {
		r.log.WarnContext(ctx, "open_tabs_info: no browser", "err", err)
		return []any{}, nil
	}
	out := make([]any, 0, len(tabs))
	for _, t := range tabs {
		out = append(out, map[string]any{"title": t.Title, "url": t.URL})
	}
	return out, nil
}

// omniboxText is the address as Chrome's address bar shows it (what
// OSWorld reads from the accessibility tree): without the http(s) scheme,
// a leading "www." and the slash of an empty path.
func omniboxText(raw string) string {
	s := raw
	for _, p := range []string{"https://", "http://"} {
		if strings.HasPrefix(s, p) {
			s = strings.TrimPrefix(s, p)
			s = strings.TrimPrefix(s, "www.")
			if host, rest, _ := strings.Cut(s, "/"); rest == "" {
				s = host
			}
			break
		}
	}
	return s
}

// activeURL is active_url_from_accessTree's value: goto_prefix (default
// "https://") and the address bar's text of the active tab; "" when
// there is none.
func (r *run) activeURL(ctx context.Context, p map[string]any) (string, error) {
	tabs, err := r.tabs(ctx, getterBrowserWait)
	if err != nil {
		r.log.WarnContext(ctx, "active tab: no browser", "err", err)
		return "", nil
	}
	prefix := "https://"
	if v, ok := p["goto_prefix"].(string); ok {
		prefix = v
	}
	for _, t := range tabs {
		if t.Active {
			text := omniboxText(t.URL)
			if text == "" {
				return "", nil
			}
			return prefix + text, nil
		}
	}
	return "", nil
}

func (r *run) activeURLGetter(ctx context.Context, p map[string]any) (any, error) {
	u, err := r.activeURL(ctx, p)
	if err != nil || u == "" {
		return nil, err
	}
	return u, nil
}

// activeTabInfo loads the active tab's address in a new tab and answers
// its title, address and HTML, as OSWorld's getter does.
func (r *run) activeTabInfo(ctx context.Context, p map[string]any) (any, error) {
	u, err := r.activeURL(ctx, p)
	if err != nil || u == "" {
		return nil, err
	}
	return r.loadPage(ctx, u)
}

func (r *run) loadPage(ctx context.Context, u string) (any, error) {
	bh, err := r.browser()
	if err != nil {
		return nil, err
	}
	res, err := bh.Browser(ctx, "page", api.BrowserRequest{Port: desktopBrowser, URL: u})
	if err != nil {
		r.log.WarnContext(ctx, "page could not be read", "url", u, "err", err)
		return nil, nil
	}
	return map[string]any{"title": res.Title, "url": res.URL, "content": res.Content}, nil
}

func checkPageInfo(f fields) error {
	_, err := f.str("url", true)
	return err
}

func (r *run) pageInfo(ctx context.Context, p map[string]any) (any, error) {
	u, _ := p["url"].(string)
	return r.loadPage(ctx, u)
}

func checkHTMLParse(f fields) error {
	cat, err := f.str("category", true)
	if err != nil {
		return err
	}
	switch cat {
	case "class", "label", "xpath", "input":
		return nil
	}
	return fmt.Errorf("%s: %q is not one of class, label, xpath, input", f.name("category"), cat)
}

// htmlParseJS reads texts of the page as OSWorld's active_tab_html_parse
// does through Playwright: by class (the n-th element of a class, or the
// first), by visible text (the innermost element containing it), by XPath
// (an element's text, or an input's value).
const htmlParseJS = `((cfg) => {
  const out = {};
  const texts = (sel) => Array.from(document.querySelectorAll(sel)).map(e => (e.textContent || '').trim());
  const esc = (c) => '.' + CSS.escape(c);
  const xfirst = (x) => document.evaluate(x, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  if (cfg.category === 'class') {
    for (const [cls, obj] of Object.entries(cfg.class_multiObject || {})) {
      const t = texts(esc(cls));
      for (const [n, key] of Object.entries(obj)) { const i = parseInt(n, 10); if (t.length > i) out[key] = t[i]; }
    }
    for (const [cls, key] of Object.entries(cfg.class_singleObject || {})) {
      const t = texts(esc(cls)); if (t.length) out[key] = t[0];
    }
  } else if (cfg.category === 'label') {
    for (const [label, key] of Object.entries(cfg.labelObject || {})) {
      const want = label.toLowerCase();
      let found = null;
      const walk = (el) => {
        if (!(el.textContent || '').toLowerCase().includes(want)) return;
        found = el;
        for (const c of el.children) { walk(c); if (found !== el) return; }
      };
      if (document.body) walk(document.body);
      if (found) { const t = (found.textContent || '').trim(); if (t) out[key] = t; }
    }
  } else if (cfg.category === 'xpath') {
    for (const [x, key] of Object.entries(cfg.xpathObject || {})) {
      const n = xfirst(x); if (n) out[key] = (n.textContent || '').trim();
    }
  } else if (cfg.category === 'input') {
    for (const [x, key] of Object.entries(cfg.inputObject || {})) {
      const n = xfirst(x); if (n && 'value' in n) out[key] = String(n.value).trim();
    }
  }
  return out;
})`

// activeTabHTMLParse reads texts from the tab showing the active address
// (an empty object when no tab shows it; nil without a browser).
func (r *run) activeTabHTMLParse(ctx context.Context, p map[string]any) (any, error) {
	u, err := r.activeURL(ctx, p)
	if err != nil || u == "" {
		return nil, err
	}
	tabs, err := r.tabs(ctx, getterBrowserWait)
	if err != nil {
		return nil, nil
	}
	want, _ := url.PathUnescape(u)
	id := ""
	for _, t := range tabs {
		if got, _ := url.PathUnescape(t.URL); got == want {
			id = t.ID
			break
		}
	}
	if id == "" {
		r.log.WarnContext(ctx, "active_tab_html_parse: no tab shows the active address", "url", u)
		return map[string]any{}, nil
	}
	cfg, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	bh, _ := r.browser()
	res, err := bh.Browser(ctx, "console_exec", api.BrowserRequest{Port: desktopBrowser, Tab: id, JavaScript: htmlParseJS + "(" + string(cfg) + ")"})
	if err != nil {
		r.log.WarnContext(ctx, "active_tab_html_parse failed", "err", err)
		return map[string]any{}, nil
	}
	var out any
	if err := decodeNumbers(res.Value, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func checkURLParse(f fields) error {
	if !f.has("parse_keys") {
		return fmt.Errorf("%s: required", f.name("parse_keys"))
	}
	_, err := f.strList("parse_keys")
	return err
}

// activeTabURLParse extracts query parameters of the active address
// (parse_keys), renamed by replace.
func (r *run) activeTabURLParse(ctx context.Context, p map[string]any) (any, error) {
	u, err := r.activeURL(ctx, p)
	if err != nil || u == "" {
		return nil, err
	}
	keys, _ := fields{m: p}.strList("parse_keys")
	pu, err := url.Parse(u)
	if err != nil {
		return nil, nil
	}
	q, _ := url.ParseQuery(pu.RawQuery)
	out := map[string]any{}
	for _, k := range keys {
		out[k] = q.Get(k)
	}
	if rep, ok := p["replace"].(map[string]any); ok {
		for from, to := range rep {
			if ts, ok := to.(string); ok {
				v := out[from]
				delete(out, from)
				out[ts] = v
			}
		}
	}
	return out, nil
}

func checkDashPart(f fields) error {
	if err := f.num("partIndex", true); err != nil {
		return err
	}
	if n, _ := number(f.m["partIndex"]); n != float64(int(n)) {
		return fmt.Errorf("%s: want an integer, got %s", f.name("partIndex"), pyRepr(f.m["partIndex"]))
	}
	rt, err := f.str("returnType", true)
	if err != nil {
		return err
	}
	switch rt {
	case "string":
	case "json":
		if _, err := f.str("key", true); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s: %q is not one of string, json", f.name("returnType"), rt)
	}
	return nil
}

// urlDashPart answers one slash-separated part of the active address
// (partIndex counts from 0, or from the end when negative, as Python
// indexes), without its query when needDeleteId; as a string, or as
// {key: part} for returnType json. An index out of range gives nil.
func (r *run) urlDashPart(ctx context.Context, p map[string]any) (any, error) {
	u, err := r.activeURL(ctx, p)
	if err != nil || u == "" {
		return nil, err
	}
	parts := strings.Split(u, "/")
	n, _ := number(p["partIndex"])
	i := int(n)
	if i < 0 {
		i += len(parts)
	}
	if i < 0 || i >= len(parts) {
		r.log.WarnContext(ctx, "url_dashPart: no such part", "url", u, "partIndex", n)
		return nil, nil
	}
	part := parts[i]
	if pyTruthy(p["needDeleteId"]) {
		part, _, _ = strings.Cut(part, "?")
	}
	if p["returnType"] == "json" {
		key, _ := p["key"].(string)
		return map[string]any{key: part}, nil
	}
	return part, nil
}

func checkPDFFromURL(f fields) error {
	if _, err := f.str("path", true); err != nil {
		return err
	}
	d, err := f.str("dest", true)
	if err != nil {
		return err
	}
	if err := checkCacheName(d); err != nil {
		return fmt.Errorf("%s: %w", f.name("dest"), err)
	}
	return nil
}

// printPDFScript prints the page at $2 to the PDF file $1 with the
// sandbox's browser, headless, on a profile of its own (so the desktop's
// browser and its profile are left alone).
const printPDFScript = `out="$1"; url="$2"
prof=$(mktemp -d /tmp/deskrun-pdf-XXXXXX) || exit 1
trap 'rm -rf "$prof"' EXIT
for b in google-chrome chromium chromium-browser; do
	if command -v "$b" >/dev/null 2>&1; then
		timeout 90 "$b" --headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check --user-data-dir="$prof" --no-pdf-header-footer --print-to-pdf="$out" "$url" >/dev/null 2>&1
		test -s "$out"
		exit
	fi
done
echo "no browser (google-chrome, chromium) to print with" >&2
exit 127`

// pdfFromURL prints the page at path to PDF, as OSWorld's getter prints
// it with Playwright's page.pdf, and answers the cache path of dest.
func (r *run) pdfFromURL(ctx context.Context, p map[string]any) (any, error) {
	u, _ := p["path"].(string)
	dest, _ := p["dest"].(string)
	tmp := "/tmp/deskrun-print-" + uuid5URL(u + time.Now().String())[:8] + ".pdf"
	res, err := r.exec(ctx, []string{"sh", "-c", printPDFScript, "sh", tmp, u}, false, 2*time.Minute, "")
	if err != nil {
		return nil, fmt.Errorf("print %s: %w", u, err)
	}
	defer func() { _, _ = r.exec(ctx, []string{"rm", "-f", "--", tmp}, false, 0, "") }()
	if res.ExitCode != 0 {
		r.log.WarnContext(ctx, "pdf_from_url: page not printed", "url", u, "exit", res.ExitCode, "stderr", truncate(strings.TrimSpace(res.Stderr), 300))
		return nil, nil
	}
	data, err := r.sb.ReadFile(ctx, tmp)
	if err != nil {
		return nil, fmt.Errorf("read the printed %s: %w", u, err)
	}
	if err := r.writeCache(dest, data); err != nil {
		return nil, err
	}
	return filepath.Join(r.cacheDir, filepath.FromSlash(dest)), nil
}

// decodeNumbers decodes JSON keeping numbers as json.Number, as task
// values are.
func decodeNumbers(b []byte, v any) error {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	return d.Decode(v)
}
