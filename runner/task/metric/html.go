package metric

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
	"golang.org/x/net/html"
)

// HTML metric. compare_htmls parses both pages (golang.org/x/net/html,
// the HTML5 parser the module already depends on, where OSWorld uses
// BeautifulSoup over lxml) and walks their nodes in document order side
// by side: elements must agree in tag name, trimmed text and attributes
// (multi-valued ones such as class as word lists), other nodes in kind
// and content. The walk stops at the shorter document, as OSWorld's zip
// does.

const maxHTMLBytes = 64 << 20

var multiValuedAttrs = map[string]bool{"class": true, "rel": true, "rev": true, "accept-charset": true, "headers": true, "accesskey": true, "dropzone": true}

func parseHTMLFile(p any) ([]*html.Node, error) {
	name, ok := p.(string)
	if !ok || name == "" {
		return nil, fmt.Errorf("want a file path, got %s", py.TypeName(p))
	}
	st, err := os.Stat(name)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, err
	}
	if st.Size() > maxHTMLBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB", name, maxHTMLBytes>>20)
	}
	text, err := readText(name)
	if err != nil {
		return nil, err
	}
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var nodes []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			nodes = append(nodes, c)
			walk(c)
		}
	}
	walk(doc)
	return nodes, nil
}

func nodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func htmlAttrs(n *html.Node) map[string]string {
	m := map[string]string{}
	for _, a := range n.Attr {
		k := a.Key
		if a.Namespace != "" {
			k = a.Namespace + ":" + k
		}
		v := a.Val
		if multiValuedAttrs[k] {
			v = strings.Join(strings.Fields(v), " ")
		}
		m[k] = v
	}
	return m
}

// sameNode says why two nodes differ, or "".
func sameNode(a, b *html.Node, ignoreSdnum bool) string {
	if a.Type != html.ElementNode || b.Type != html.ElementNode {
		if a.Type != b.Type || a.Data != b.Data {
			return fmt.Sprintf("%q and %q differ", py.Truncate(a.Data, 60), py.Truncate(b.Data, 60))
		}
		return ""
	}
	if a.Data != b.Data {
		return fmt.Sprintf("<%s> where <%s> was expected", a.Data, b.Data)
	}
	if ta, tb := strings.TrimSpace(nodeText(a)), strings.TrimSpace(nodeText(b)); ta != tb {
		return fmt.Sprintf("<%s> text %q, want %q", a.Data, py.Truncate(ta, 80), py.Truncate(tb, 80))
	}
	aa, ab := htmlAttrs(a), htmlAttrs(b)
	if ignoreSdnum {
		// LibreOffice's number-format attribute, which the task's option
		// leaves out of the comparison.
		delete(aa, "sdnum")
		delete(ab, "sdnum")
	}
	if len(aa) != len(ab) {
		return fmt.Sprintf("<%s> has attributes %v, want %v", a.Data, aa, ab)
	}
	keys := make([]string, 0, len(aa))
	for k := range aa {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v, ok := ab[k]; !ok || v != aa[k] {
			return fmt.Sprintf("<%s> %s=%q, want %q", a.Data, k, py.Truncate(aa[k], 80), py.Truncate(v, 80))
		}
	}
	return ""
}

// compareHTMLs implements OSWorld's compare_htmls
// (desktop_env/evaluators/metrics/chrome.py).
func compareHTMLs(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	a, err := parseHTMLFile(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	b, err := parseHTMLFile(expected)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	for i := 0; i < min(len(a), len(b)); i++ {
		if d := sameNode(a[i], b[i], py.Truthy(opts["ignore_sdnum"])); d != "" {
			return 0, d, nil
		}
	}
	return 1, "", nil
}

// checkHTMLOptions accepts compare_htmls' one option, ignore_sdnum.
func checkHTMLOptions(opts map[string]any) error {
	for k := range opts {
		if k != "ignore_sdnum" {
			return fmt.Errorf("%s: compare_htmls takes ignore_sdnum only", k)
		}
	}
	return nil
}
