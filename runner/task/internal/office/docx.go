package office

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
)

// Docx is a Word document read as python-docx reads it for OSWorld's
// metrics: the body's paragraphs and tables, runs with their direct
// formatting, sections with their footers, and the package's images.
type Docx struct {
	Pk       *Package
	Part     string
	body     *Node
	Paras    []*Node // w:p directly in w:body
	Tables   []*Node // w:tbl directly in w:body
	Sections []*Node // w:sectPr in document order
}

func OpenDOCX(p any) (*Docx, error) {
	path, ok := p.(string)
	if !ok || path == "" {
		return nil, fmt.Errorf("want a docx file path, got %s", py.TypeName(p))
	}
	pk, err := Open(path)
	if err != nil {
		return nil, err
	}
	return ReadDOCX(pk)
}

func ReadDOCX(pk *Package) (*Docx, error) {
	d := &Docx{Pk: pk, Part: "word/document.xml"}
	if ts := pk.RelsOfType("", "/officeDocument"); len(ts) > 0 {
		d.Part = ts[0]
	}
	root, err := pk.XML(d.Part)
	if err != nil {
		return nil, fmt.Errorf("not a docx document: %w", err)
	}
	if root.Name != "document" {
		return nil, errors.New("not a docx document: no document element")
	}
	d.body = root.Child("body")
	if d.body == nil {
		return nil, errors.New("not a docx document: no body")
	}
	for _, c := range d.body.Children {
		switch c.Name {
		case "p":
			d.Paras = append(d.Paras, c)
			if s := c.Path("pPr", "sectPr"); s != nil {
				d.Sections = append(d.Sections, s)
			}
		case "tbl":
			d.Tables = append(d.Tables, c)
		case "sectPr":
			d.Sections = append(d.Sections, c)
		}
	}
	return d, nil
}

// Runs are python-docx's Paragraph.runs: w:r children, and those of
// hyperlinks.
func Runs(p *Node) []*Node {
	var out []*Node
	for _, c := range p.Children {
		switch c.Name {
		case "r":
			out = append(out, c)
		case "hyperlink":
			out = append(out, c.ChildrenNamed("r")...)
		}
	}
	return out
}

// RunText is python-docx's Run.text.
func RunText(r *Node) string {
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

// ParaText is python-docx's Paragraph.text.
func ParaText(p *Node) string {
	var b strings.Builder
	for _, r := range Runs(p) {
		b.WriteString(RunText(r))
	}
	return b.String()
}

func (d *Docx) Texts() []string {
	out := make([]string, len(d.Paras))
	for i, p := range d.Paras {
		out[i] = ParaText(p)
	}
	return out
}

// Table is a table as python-docx's cell(i, j) sees it: a grid of
// cell texts, merged cells repeated.
type Table struct {
	Rows, Cols int
	Cells      [][]string
}

func ReadTable(t *Node) Table {
	tb := Table{Cols: len(t.Path("tblGrid").ChildrenNamed("gridCol"))}
	for _, tr := range t.ChildrenNamed("tr") {
		var row []string
		for _, tc := range tr.ChildrenNamed("tc") {
			var ps []string
			for _, p := range tc.ChildrenNamed("p") {
				ps = append(ps, ParaText(p))
			}
			text := strings.Join(ps, "\n")
			span := 1
			if v, ok := tc.Path("tcPr", "gridSpan").Attribute("val"); ok {
				if n, err := strconv.Atoi(v); err == nil && n > 1 && n < 1000 {
					span = n
				}
			}
			col := len(row)
			if vm := tc.Path("tcPr", "vMerge"); vm != nil && vm.Attr["val"] != "restart" && len(tb.Cells) > 0 {
				prev := tb.Cells[len(tb.Cells)-1]
				if col < len(prev) {
					text = prev[col]
				}
			}
			for i := 0; i < span; i++ {
				row = append(row, text)
			}
		}
		tb.Cells = append(tb.Cells, row)
	}
	tb.Rows = len(tb.Cells)
	return tb
}

func (tb Table) Cell(i, j int) string {
	if i < len(tb.Cells) && j < len(tb.Cells[i]) {
		return tb.Cells[i][j]
	}
	return ""
}

// rPr returns a run property element.
func RProp(r *Node, name string) *Node { return r.Path("rPr", name) }

// RunBool is a run's tri-state toggle (nil when not set directly).
func RunBool(r *Node, name string) any { return xmlBool(RProp(r, name)) }

// LineSpacing is python-docx's ParagraphFormat.line_spacing: a float of
// lines for auto spacing, a length in EMU (int) for exact or at-least
// spacing, nil when not set.
func LineSpacing(p *Node) any {
	sp := p.Path("pPr", "spacing")
	v, ok := sp.Attribute("line")
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
	if rule, _ := sp.Attribute("lineRule"); rule == "" || rule == "auto" {
		return float64(n) / 240
	}
	return int64(n) * 635
}

// footerText returns the first paragraph's text of each section's
// default footer ("" when a section has none of its own nor inherited).
func (d *Docx) FooterTexts() []string {
	var out []string
	prev := ""
	hasPrev := false
	for _, s := range d.Sections {
		var part string
		for _, fr := range s.ChildrenNamed("footerReference") {
			if t := fr.Attr["type"]; t == "" || t == "default" {
				if target, ok := d.Pk.RelTarget(d.Part, fr.Attr["id"]); ok {
					part = target
				}
			}
		}
		text := ""
		switch {
		case part != "":
			if root, err := d.Pk.XML(part); err == nil {
				if ps := root.ChildrenNamed("p"); len(ps) > 0 {
					text = ParaText(ps[0])
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

// Images returns the image parts the document part relates to, in the
// order of its relationships.
func (d *Docx) Images() ([][]byte, error) {
	var out [][]byte
	rels, _ := d.Pk.Rels(d.Part)
	for _, r := range rels {
		if r.External || !strings.Contains(r.Type, "image") {
			continue
		}
		data, err := d.Pk.Read(r.Target)
		if err != nil {
			return nil, err
		}
		out = append(out, data)
	}
	return out, nil
}

// OdtParagraphs reads an OpenDocument text's paragraphs as OSWorld's
// get_paragraph_texts_odt: each text:p's own text and the text directly
// inside its text:span children, those of content.xml, then those of
// styles.xml (headers and footers), in the order odfpy's load() parses
// the parts and getElementsByType(P) returns them.
func OdtParagraphs(pk *Package) ([]string, *Node, error) {
	root, err := pk.XML("content.xml")
	if err != nil {
		return nil, nil, fmt.Errorf("not an OpenDocument text: %w", err)
	}
	out := odtParagraphs(root)
	if pk.Has("styles.xml") {
		styles, err := pk.XML("styles.xml")
		if err != nil {
			return nil, nil, fmt.Errorf("styles.xml: %w", err)
		}
		out = append(out, odtParagraphs(styles)...)
	}
	return out, root, nil
}

func odtParagraphs(root *Node) []string {
	var out []string
	root.Walk(func(n *Node) bool {
		if n.Name == "p" && strings.Contains(n.Space, "text") {
			var b strings.Builder
			b.WriteString(n.Text)
			for _, c := range n.Children {
				if c.Name == "span" {
					b.WriteString(c.OwnText())
				}
				b.WriteString(c.Tail)
			}
			out = append(out, b.String())
		}
		return true
	})
	return out
}
