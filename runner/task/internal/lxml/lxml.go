// Package lxml reproduces what OSWorld's compare_epub does with lxml.html
// to a book's HTML parts: parse them with libxml2's HTML parser (blank
// text kept) and write them back with tostring(pretty_print=True)
// (libxml2's htmlNodeDumpFormatOutput), for well-formed markup. The line
// breaks the serializer adds are what the metric's line-by-line ratio
// compares, so they follow libxml2's rules rather than an HTML5 parser's
// tree.
//
// It sits below the metrics (runner/task/metric).
package lxml

import (
	"strings"

	"golang.org/x/net/html"

	"github.com/deskrun/deskrun/internal/py"
)

// PrettyLines parses an HTML document and returns the lines of its root
// element as lxml.html.tostring(pretty_print=True) writes them
// (libxml2's htmlNodeDumpFormatOutput: a line break inside a known
// block element whose children are more than one and do not start or
// end with text, and after such an element when an element follows,
// never inside an element whose name starts with "p").
func PrettyLines(text string) []string {
	root := libxmlTree(text)
	if root == nil {
		return nil
	}
	var b strings.Builder
	dumpHTML(&b, root)
	b.WriteString("\n")
	return py.SplitLines(b.String())
}

// htmlHeadOnly are the elements libxml2's parser puts in an implied head.
var htmlHeadOnly = map[string]bool{"script": true, "style": true, "meta": true, "link": true, "title": true, "base": true}

// htmlClosesP are the start tags on which libxml2 closes an open p.
var htmlClosesP = map[string]bool{
	"p": true, "div": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "ul": true,
	"ol": true, "dl": true, "table": true, "pre": true, "blockquote": true, "form": true, "hr": true,
	"address": true, "center": true, "menu": true, "dir": true, "fieldset": true,
}

// libxmlTree builds the tree as lxml's HTML parser (libxml2, blank text
// kept) builds it from well-formed markup: the tags nested as written,
// every text kept where it stands (whitespace between html, head and
// body included), html implied when missing, head implied for head-only
// elements and body for the others when neither is open, an open p
// closed by a block start tag, an end tag closing what it ends and
// anything left open inside it, an end tag of nothing open ignored.
// Text and comments outside the root are dropped.
func libxmlTree(text string) *html.Node {
	z := html.NewTokenizer(strings.NewReader(text))
	var root *html.Node
	var stack []*html.Node
	seenHead, seenBody := false, false
	cur := func() *html.Node {
		if len(stack) == 0 {
			return nil
		}
		return stack[len(stack)-1]
	}
	open := func(name string) bool {
		for _, n := range stack {
			if n.Data == name {
				return true
			}
		}
		return false
	}
	push := func(name string, attr []html.Attribute) *html.Node {
		n := &html.Node{Type: html.ElementNode, Data: name, Attr: attr}
		if c := cur(); c != nil {
			c.AppendChild(n)
		}
		stack = append(stack, n)
		return n
	}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name := tok.Data
			if root == nil {
				if name == "html" {
					root = push("html", tok.Attr)
					continue
				}
				root = push("html", nil)
			} else if len(stack) == 0 {
				continue // after the root closed
			}
			if name == "html" {
				continue
			}
			switch {
			case name == "head":
				seenHead = true
			case name == "body":
				seenBody = true
			case !open("head") && !open("body"):
				if htmlHeadOnly[name] && !seenHead && !seenBody && len(stack) == 1 {
					seenHead = true
					push("head", nil)
				} else if !htmlHeadOnly[name] && !seenBody {
					seenBody = true
					push("body", nil)
				}
			}
			if c := cur(); c != nil && c.Data == "p" && htmlClosesP[name] {
				stack = stack[:len(stack)-1]
			}
			push(name, tok.Attr)
			if tt == html.SelfClosingTagToken || htmlEmpty[name] {
				stack = stack[:len(stack)-1]
			}
		case html.EndTagToken:
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].Data == tok.Data {
					stack = stack[:i]
					break
				}
			}
		case html.TextToken:
			if c := cur(); c != nil {
				if l := c.LastChild; l != nil && l.Type == html.TextNode {
					l.Data += tok.Data
				} else {
					c.AppendChild(&html.Node{Type: html.TextNode, Data: tok.Data})
				}
			}
		case html.CommentToken:
			if c := cur(); c != nil {
				c.AppendChild(&html.Node{Type: html.CommentNode, Data: tok.Data})
			}
		}
	}
	return root
}

// htmlInline are the elements libxml2's HTML table marks inline; they
// get no line breaks of their own.
var htmlInline = map[string]bool{
	"a": true, "abbr": true, "acronym": true, "b": true, "basefont": true, "bdo": true, "big": true, "br": true,
	"button": true, "cite": true, "code": true, "dfn": true, "em": true, "font": true, "i": true, "img": true,
	"input": true, "kbd": true, "label": true, "map": true, "object": true, "q": true, "s": true, "samp": true,
	"select": true, "small": true, "span": true, "strike": true, "strong": true, "sub": true, "sup": true,
	"textarea": true, "tt": true, "u": true, "var": true, "iframe": true, "embed": true, "applet": true,
}

// htmlEmpty are the void elements, written without an end tag.
var htmlEmpty = map[string]bool{
	"area": true, "base": true, "basefont": true, "br": true, "col": true, "embed": true, "frame": true,
	"hr": true, "img": true, "input": true, "isindex": true, "link": true, "meta": true, "param": true,
}

// isTextLike reports whether n is a text node.
func isTextLike(n *html.Node) bool { return n != nil && n.Type == html.TextNode }

// dumpHTML writes n and its subtree as libxml2's htmlNodeDumpFormatOutput
// does with formatting on.
func dumpHTML(b *strings.Builder, n *html.Node) {
	switch n.Type {
	case html.TextNode:
		if p := n.Parent; p != nil && (p.Data == "script" || p.Data == "style") {
			b.WriteString(n.Data)
		} else {
			b.WriteString(html.EscapeString(n.Data))
		}
		return
	case html.CommentNode:
		b.WriteString("<!--" + n.Data + "-->")
		return
	case html.ElementNode:
	default:
		return
	}
	block := !htmlInline[n.Data]
	b.WriteString("<" + n.Data)
	for _, a := range n.Attr {
		k := a.Key
		if a.Namespace != "" {
			k = a.Namespace + ":" + k
		}
		b.WriteString(" " + k + `="` + strings.ReplaceAll(strings.ReplaceAll(a.Val, "&", "&amp;"), `"`, "&quot;") + `"`)
	}
	switch {
	case htmlEmpty[n.Data]:
		b.WriteString(">")
	case n.FirstChild == nil:
		b.WriteString("></" + n.Data + ">")
	default:
		b.WriteString(">")
		many := n.FirstChild != n.LastChild
		if block && many && !isTextLike(n.FirstChild) && n.Data[0] != 'p' {
			b.WriteString("\n")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			dumpHTML(b, c)
		}
		if block && many && !isTextLike(n.LastChild) && n.Data[0] != 'p' {
			b.WriteString("\n")
		}
		b.WriteString("</" + n.Data + ">")
	}
	if block && n.NextSibling != nil && !isTextLike(n.NextSibling) && n.Parent != nil && n.Parent.Type == html.ElementNode && n.Parent.Data[0] != 'p' {
		b.WriteString("\n")
	}
}
