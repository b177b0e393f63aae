package task

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// docxDoc is a Word document read as python-docx reads it for OSWorld's
// metrics: the body's paragraphs and tables, runs with their direct
// formatting, sections with their footers, and the package's images.
type docxDoc struct {
	pk       *officePackage
	part     string
	body     *xmlNode
	paras    []*xmlNode // w:p directly in w:body
	tables   []*xmlNode // w:tbl directly in w:body
	sections []*xmlNode // w:sectPr in document order
}

func openDOCX(p any) (*docxDoc, error) {
	path, ok := p.(string)
	if !ok || path == "" {
		return nil, fmt.Errorf("want a docx file path, got %s", typeName(p))
	}
	pk, err := openOfficePackage(path)
	if err != nil {
		return nil, err
	}
	return readDOCX(pk)
}

func readDOCX(pk *officePackage) (*docxDoc, error) {
	d := &docxDoc{pk: pk, part: "word/document.xml"}
	if ts := pk.relsOfType("", "/officeDocument"); len(ts) > 0 {
		d.part = ts[0]
	}
	root, err := pk.xml(d.part)
	if err != nil {
		return nil, fmt.Errorf("not a docx document: %w", err)
	}
	if root.Name != "document" {
		return nil, errors.New("not a docx document: no document element")
	}
	d.body = root.child("body")
	if d.body == nil {
		return nil, errors.New("not a docx document: no body")
	}
	for _, c := range d.body.Children {
		switch c.Name {
		case "p":
			d.paras = append(d.paras, c)
			if s := c.path("pPr", "sectPr"); s != nil {
				d.sections = append(d.sections, s)
			}
		case "tbl":
			d.tables = append(d.tables, c)
		case "sectPr":
			d.sections = append(d.sections, c)
		}
	}
	return d, nil
}

// runs are python-docx's Paragraph.runs: w:r children, and those of
// hyperlinks.
func runs(p *xmlNode) []*xmlNode {
	var out []*xmlNode
	for _, c := range p.Children {
		switch c.Name {
		case "r":
			out = append(out, c)
		case "hyperlink":
			out = append(out, c.children("r")...)
		}
	}
	return out
}

// runText is python-docx's Run.text.
func runText(r *xmlNode) string {
	var b strings.Builder
	for _, c := range r.Children {
		switch c.Name {
		case "t":
			b.WriteString(c.Text)
		case "tab", "ptab":
			b.WriteByte('\t')
		case "br", "cr":
			// python-docx 1.x: a line break is "\n", a page or column
			// break nothing (0.8 wrote "\n" for every break).
			if c.Name == "cr" || c.Attr["type"] == "" || c.Attr["type"] == "textWrapping" {
				b.WriteByte('\n')
			}
		case "noBreakHyphen":
			b.WriteByte('-')
		}
	}
	return b.String()
}

// paraText is python-docx's Paragraph.text.
func paraText(p *xmlNode) string {
	var b strings.Builder
	for _, r := range runs(p) {
		b.WriteString(runText(r))
	}
	return b.String()
}

func (d *docxDoc) texts() []string {
	out := make([]string, len(d.paras))
	for i, p := range d.paras {
		out[i] = paraText(p)
	}
	return out
}

// docxTable is a table as python-docx's cell(i, j) sees it: a grid of
// cell texts, merged cells repeated.
type docxTable struct {
	rows, cols int
	cells      [][]string
}

func readTable(t *xmlNode) docxTable {
	tb := docxTable{cols: len(t.path("tblGrid").children("gridCol"))}
	for _, tr := range t.children("tr") {
		var row []string
		for _, tc := range tr.children("tc") {
			var ps []string
			for _, p := range tc.children("p") {
				ps = append(ps, paraText(p))
			}
			text := strings.Join(ps, "\n")
			span := 1
			if v, ok := tc.path("tcPr", "gridSpan").attr("val"); ok {
				if n, err := strconv.Atoi(v); err == nil && n > 1 && n < 1000 {
					span = n
				}
			}
			col := len(row)
			if vm := tc.path("tcPr", "vMerge"); vm != nil && vm.Attr["val"] != "restart" && len(tb.cells) > 0 {
				prev := tb.cells[len(tb.cells)-1]
				if col < len(prev) {
					text = prev[col]
				}
			}
			for i := 0; i < span; i++ {
				row = append(row, text)
			}
		}
		tb.cells = append(tb.cells, row)
	}
	tb.rows = len(tb.cells)
	return tb
}

func (tb docxTable) cell(i, j int) string {
	if i < len(tb.cells) && j < len(tb.cells[i]) {
		return tb.cells[i][j]
	}
	return ""
}

// rPr returns a run property element.
func rProp(r *xmlNode, name string) *xmlNode { return r.path("rPr", name) }

// runBool is a run's tri-state toggle (nil when not set directly).
func runBool(r *xmlNode, name string) any { return xmlBool(rProp(r, name)) }

// lineSpacing is python-docx's ParagraphFormat.line_spacing: a float of
// lines for auto spacing, a length in EMU (int) for exact or at-least
// spacing, nil when not set.
func lineSpacing(p *xmlNode) any {
	sp := p.path("pPr", "spacing")
	v, ok := sp.attr("line")
	if !ok {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil
		}
		n = int(f)
	}
	if rule, _ := sp.attr("lineRule"); rule == "" || rule == "auto" {
		return float64(n) / 240
	}
	return int64(n) * 635
}

// footerText returns the first paragraph's text of each section's
// default footer ("" when a section has none of its own nor inherited).
func (d *docxDoc) footerTexts() []string {
	var out []string
	prev := ""
	hasPrev := false
	for _, s := range d.sections {
		var part string
		for _, fr := range s.children("footerReference") {
			if t := fr.Attr["type"]; t == "" || t == "default" {
				if target, ok := d.pk.relTarget(d.part, fr.Attr["id"]); ok {
					part = target
				}
			}
		}
		text := ""
		switch {
		case part != "":
			if root, err := d.pk.xml(part); err == nil {
				if ps := root.children("p"); len(ps) > 0 {
					text = paraText(ps[0])
				}
			}
			prev, hasPrev = text, true
		case hasPrev:
			text = prev
		}
		out = append(out, text)
	}
	return out
}

// images returns the image parts the document part relates to, in the
// order of its relationships.
func (d *docxDoc) images() ([][]byte, error) {
	var out [][]byte
	for _, r := range d.pk.rels(d.part) {
		if r.External || !strings.Contains(r.Type, "image") {
			continue
		}
		data, err := d.pk.read(r.Target)
		if err != nil {
			return nil, err
		}
		out = append(out, data)
	}
	return out, nil
}

// odtParagraphs reads an OpenDocument text's paragraphs as OSWorld's
// get_paragraph_texts_odt: each text:p's own text and the text directly
// inside its text:span children.
func odtParagraphs(pk *officePackage) ([]string, *xmlNode, error) {
	root, err := pk.xml("content.xml")
	if err != nil {
		return nil, nil, fmt.Errorf("not an OpenDocument text: %w", err)
	}
	var out []string
	root.walk(func(n *xmlNode) bool {
		if n.Name == "p" && strings.Contains(n.Space, "text") {
			var b strings.Builder
			b.WriteString(n.Text)
			for _, c := range n.Children {
				if c.Name == "span" {
					b.WriteString(c.ownText())
				}
				b.WriteString(c.Tail)
			}
			out = append(out, b.String())
		}
		return true
	})
	return out, root, nil
}
