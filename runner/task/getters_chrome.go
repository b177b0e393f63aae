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
	"github.com/deskrun/deskrun/internal/py"
)

// Chrome's getters read the desktop's browser through agentd (tabs, the
// active tab's address, pages' HTML), as OSWorld reads them over the
// DevTools port. Where OSWorld answers None (no browser, no tab), they
// answer nil.

// getterBrowserWait bounds how long a getter waits for the browser.
const getterBrowserWait = 10 * time.Second

// openTabsInfo implements OSWorld's open_tabs_info
// (desktop_env/evaluators/getters/chrome.py).
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
// a leading "www." and the slash of an empty path; a file:// address as
// its path (the bar of the image's browser reads "/home/user/a.html" for
// file:///home/user/a.html, e2e's TestOSWorldGettersMatch).
func omniboxText(raw string) string {
	s := raw
	if p, ok := strings.CutPrefix(s, "file://"); ok && strings.HasPrefix(p, "/") {
		return p
	}
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

// activeURLGetter implements OSWorld's active_url_from_accessTree
// (desktop_env/evaluators/getters/chrome.py).
func (r *run) activeURLGetter(ctx context.Context, p map[string]any) (any, error) {
	u, err := r.activeURL(ctx, p)
	if err != nil || u == "" {
		return nil, err
	}
	return u, nil
}

// activeTabInfo implements OSWorld's active_tab_info
// (desktop_env/evaluators/getters/chrome.py).
//
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

// pageInfo implements OSWorld's page_info
// (desktop_env/evaluators/getters/chrome.py).
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
	case "class", "label", "xpath", "input", "class&url":
		return nil
	}
	return fmt.Errorf("%s: %q is not one of class, label, xpath, input, class&url", f.name("category"), cat)
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
  } else if (cfg.category === 'class&url') {
    // Facets chosen on a shop page: each expected name found among the
    // class's texts (or its li.catAllProducts spans) is true, and
    // is_other_exist says a text matches none of them; then words the
    // address must hold.
    const facets = (list, found) => {
      for (const k of list) if (found.some(x => k.toLowerCase() === x.toLowerCase())) out[k.toLowerCase()] = true;
      for (const x of found) {
        if (list.every(item => !item.toLowerCase().includes(x.toLowerCase()))) { out.is_other_exist = true; break; }
      }
      if (!('is_other_exist' in out)) out.is_other_exist = false;
    };
    for (const [cls, list] of Object.entries(cfg.class_multiObject || {})) facets(list, texts('.' + cls));
    for (const [cls, list] of Object.entries(cfg.class_multiObject_li || {})) {
      const spans = Array.from(document.querySelectorAll('.' + cls + ' li.catAllProducts'))
        .map(li => li.querySelector('span')).filter(Boolean).map(s => (s.innerText || '').trim());
      facets(list, spans);
    }
    const href = location.href.toLowerCase();
    for (const k of cfg.url_include_expected || []) {
      if (!(k.toLowerCase() in out)) out[k.toLowerCase()] = href.includes(k.toLowerCase());
    }
    for (const [k, v] of Object.entries(cfg.url_include_expected_multichoice || {})) {
      if (!(v.toLowerCase() in out)) out[v.toLowerCase()] = href.includes(k.toLowerCase());
    }
  } else if (cfg.category === 'input') {
    for (const [x, key] of Object.entries(cfg.inputObject || {})) {
      const n = xfirst(x); if (n && 'value' in n) out[key] = String(n.value).trim();
    }
  }
  return out;
})`

// activeTabHTMLParse implements OSWorld's active_tab_html_parse
// (desktop_env/evaluators/getters/chrome.py).
//
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

// activeTabURLParse implements OSWorld's active_tab_url_parse
// (desktop_env/evaluators/getters/chrome.py).
//
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
	if n, _ := py.Number(f.m["partIndex"]); n != float64(int(n)) {
		return fmt.Errorf("%s: want an integer, got %s", f.name("partIndex"), py.Repr(f.m["partIndex"]))
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

// urlDashPart implements OSWorld's url_dashPart
// (desktop_env/evaluators/getters/chrome.py).
//
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
	n, _ := py.Number(p["partIndex"])
	i := int(n)
	if i < 0 {
		i += len(parts)
	}
	if i < 0 || i >= len(parts) {
		r.log.WarnContext(ctx, "url_dashPart: no such part", "url", u, "partIndex", n)
		return nil, nil
	}
	part := parts[i]
	if py.Truthy(p["needDeleteId"]) {
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

// pdfFromURL implements OSWorld's pdf_from_url
// (desktop_env/evaluators/getters/chrome.py).
//
// pdfFromURL prints the page at path to PDF, as OSWorld's getter prints
// it with Playwright's page.pdf, and answers the cache path of dest.
func (r *run) pdfFromURL(ctx context.Context, p map[string]any) (any, error) {
	u, _ := p["path"].(string)
	dest, _ := p["dest"].(string)
	tmp := "/tmp/deskrun-print-" + py.UUID5URL(u + time.Now().String())[:8] + ".pdf"
	res, err := r.exec(ctx, []string{"sh", "-c", printPDFScript, "sh", tmp, u}, false, 2*time.Minute, "")
	if err != nil {
		return nil, fmt.Errorf("print %s: %w", u, err)
	}
	defer func() { _, _ = r.exec(ctx, []string{"rm", "-f", "--", tmp}, false, 0, "") }()
	if res.ExitCode != 0 {
		r.log.WarnContext(ctx, "pdf_from_url: page not printed", "url", u, "exit", res.ExitCode, "stderr", py.Truncate(strings.TrimSpace(res.Stderr), 300))
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

// urlPathParse implements OSWorld's url_path_parse, an alias of
// get_macys_product_url_parse (desktop_env/evaluators/getters/chrome.py):
// facets read from the active address's path. mens_clothing, shirts and
// short_sleeve are true or None; the first pair of comma lists in the path
// gives keys and values (Price_discount_range split at "|", then read as
// "50_PERCENT_ off & more" or "not_50_PERCENT_ off & more"); each of
// parse_keys the path has is answered.
func (r *run) urlPathParse(ctx context.Context, p map[string]any) (any, error) {
	u, err := r.activeURL(ctx, p)
	if err != nil || u == "" {
		return nil, err
	}
	keys, _ := fields{m: p}.strList("parse_keys")
	return pathFacets(u, keys), nil
}

// pathFacets is url_path_parse's reading of an address; nil where Python's
// urlparse would not parse it.
func pathFacets(u string, keys []string) any {
	pu, err := url.Parse(u)
	if err != nil {
		return nil
	}
	path := pu.Path
	trueOrNone := func(b bool) any {
		if b {
			return true
		}
		return nil
	}
	out := map[string]any{"mens_clothing": trueOrNone(strings.Contains(path, "mens-clothing"))}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	kv := map[string]any{}
	shirts := strings.Contains(path, "shirts")
	shortSleeve := strings.Contains(path, "short-sleeve")
	for i := 0; i+1 < len(parts); i++ {
		if !strings.Contains(parts[i], ",") || !strings.Contains(parts[i+1], ",") {
			continue
		}
		keys, vals := strings.Split(parts[i], ","), strings.Split(parts[i+1], ",")
		for j := 0; j < min(len(keys), len(vals)); j++ {
			k, v := py.Strip(keys[j]), py.Strip(vals[j])
			switch {
			case v == "":
				kv[k] = nil
			case k == "Price_discount_range":
				var items []any
				for _, it := range strings.Split(v, "|") {
					items = append(items, py.Strip(it))
				}
				kv[k] = items
			default:
				kv[k] = v
			}
			if k == "Product_department" && (v == "shirts" || v == "Shirts" || v == "Shirt") {
				shirts = true
			}
			if k == "Sleeve_length" && (v == "short-sleeve" || v == "Short Sleeve") {
				shortSleeve = true
			}
		}
		break
	}
	for _, f := range []string{"Men_regular_size_t", "Price_discount_range"} {
		if _, ok := kv[f]; !ok {
			kv[f] = nil
		}
	}
	out["shirts"] = trueOrNone(shirts)
	out["short_sleeve"] = trueOrNone(shortSleeve)
	for _, k := range keys {
		v, ok := kv[k]
		if !ok {
			continue
		}
		if k == "Price_discount_range" {
			has := func(s string) bool {
				l, _ := v.([]any)
				for _, e := range l {
					if e == s {
						return true
					}
				}
				return false
			}
			if v != nil && has("50_PERCENT_ off & more") && !has("30_PERCENT_ off & more") && !has("20_PERCENT_ off & more") {
				out[k] = "50_PERCENT_ off & more"
			} else {
				out[k] = "not_50_PERCENT_ off & more"
			}
			continue
		}
		out[k] = v
	}
	return out
}
