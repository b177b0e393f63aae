package office

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
)

// A pptx is read into the properties OSWorld's slide metrics look at,
// with the values python-pptx gives them: absent attributes are nil
// (python-pptx's None), sizes in the file's units, placeholders' positions
// inherited from the layout and then the master when the slide does not
// set them.

type Deck struct {
	pkg           *Package
	Width, Height *int64 // presentation sldSz
	Slides        []*Slide
}

type Slide struct {
	part   string
	Root   *Node
	Shapes []*Shape
	// notes is the text of the notes slide's body placeholder ("" when the
	// slide has no notes slide, as python-pptx's new notes slide has).
	Notes string
	// bg is the slide's cSld/bg element (nil when absent); layout the
	// layout part.
	Bg     *Node
	layout string
}

type Shape struct {
	elem                     *Node
	kind                     string // sp, grpSp, graphicFrame, cxnSp, pic, contentPart
	Left, Top, Width, Height *int64
	ShapeType                int // python-pptx MSO_SHAPE_TYPE, 0 when unknown
	HasText                  bool
	Text                     string
	Paras                    []Para
	// Children are a group's shapes; Table a table's cells, row by row
	// (nil for other shapes).
	Children []*Shape
	Table    *SlideTable
}

// SlideTable is a table shape's grid: the number of gridCol columns and each
// row's cells (a row may hold fewer cells than columns).
type SlideTable struct {
	Cols  int
	Cells [][]SlideCell
}

// SlideCell is a cell's text frame, as python-pptx reads it (one empty
// paragraph for a cell without a txBody).
type SlideCell struct {
	Paras []Para
}

type Para struct {
	Align *string
	Level int
	Text  string
	Runs  []Run
}

type Run struct {
	Text      string
	Font      *string
	Size      *int64
	Bold      *bool
	Italic    *bool
	Rgb       *string // only for an srgbClr solid fill (python-pptx has no rgb otherwise)
	Underline *string // "none" is False, "sng" True, others their name
	Strike    string  // the strike attribute, "noStrike" when absent
}

// MSO_SHAPE_TYPE values the metrics test.
const (
	shapeAuto        = 1
	shapeChart       = 3
	ShapeFreeform    = 5
	shapeGroup       = 6
	shapeLine        = 9
	ShapePicture     = 13
	ShapePlaceholder = 14
	ShapeTextBox     = 17
	ShapeTable       = 19
)

// OpenPptx reads the pptx at p (a host path from a getter).
func OpenPptx(ctx context.Context, p any) (*Deck, error) {
	name, ok := p.(string)
	if !ok {
		return nil, fmt.Errorf("want a file path, got %s", py.TypeName(p))
	}
	data, err := os.ReadFile(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, err
	}
	d, err := ParsePptx(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

func ParsePptx(ctx context.Context, data []byte) (*Deck, error) {
	pkg, err := OpenOOXML(ctx, data)
	if err != nil {
		return nil, err
	}
	main, err := pkg.RelByType("", relTypeOfficeDc)
	if err != nil {
		return nil, err
	}
	if main == "" {
		main = "ppt/presentation.xml"
	}
	pres, err := pkg.XML(main)
	if err != nil {
		return nil, err
	}
	if pres.Name != "presentation" {
		return nil, fmt.Errorf("%s: not a presentation (root %s)", main, pres.Name)
	}
	d := &Deck{pkg: pkg}
	if sz := pres.ChildNS(NSP, "sldSz"); sz != nil {
		d.Width = intAttr(sz, "", "cx")
		d.Height = intAttr(sz, "", "cy")
	}
	rels, err := pkg.Rels(main)
	if err != nil {
		return nil, err
	}
	byID := map[string]Rel{}
	for _, r := range rels {
		if !r.External {
			byID[r.ID] = r
		}
	}
	for _, sid := range pres.PathNS(NSP, "sldIdLst").Children {
		if sid.Name != "sldId" {
			continue
		}
		rid, _ := sid.AttrNS(NSR, "id")
		r, ok := byID[rid]
		if !ok || !strings.HasSuffix(r.Type, relTypeSlide) {
			return nil, fmt.Errorf("slide %s: no slide relationship", rid)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := d.readSlide(r.Target)
		if err != nil {
			return nil, err
		}
		d.Slides = append(d.Slides, s)
	}
	return d, nil
}

func (d *Deck) readSlide(part string) (*Slide, error) {
	root, err := d.pkg.XML(part)
	if err != nil {
		return nil, err
	}
	s := &Slide{part: part, Root: root}
	cSld := root.ChildNS(NSP, "cSld")
	s.Bg = cSld.ChildNS(NSP, "bg")
	if s.layout, err = d.pkg.RelByType(part, relTypeLayout); err != nil {
		return nil, err
	}
	for _, e := range cSld.PathNS(NSP, "spTree").Children {
		if e.Space != NSP {
			continue
		}
		switch e.Name {
		case "sp", "grpSp", "graphicFrame", "cxnSp", "pic", "contentPart":
		default:
			continue
		}
		s.Shapes = append(s.Shapes, d.readShape(e, s.layout))
	}
	notes, err := d.pkg.RelByType(part, relTypeNotes)
	if err != nil {
		return nil, err
	}
	if notes != "" {
		nt, err := d.pkg.XML(notes)
		if err != nil {
			return nil, err
		}
		for _, e := range nt.PathNS(NSP, "cSld", "spTree").Children {
			if ph := placeholderOf(e); ph != nil && ph.typ == "body" {
				s.Notes = textFrame(e.ChildNS(NSP, "txBody")).text
				break
			}
		}
	}
	return s, nil
}

// placeholder is a shape's nvPr/ph: its type ("obj" when absent) and idx
// (0 when absent).
type placeholder struct {
	typ string
	idx string
}

func placeholderOf(e *Node) *placeholder {
	for _, c := range e.Children {
		if !strings.HasPrefix(c.Name, "nv") {
			continue
		}
		ph := c.PathNS(NSP, "nvPr", "ph")
		if ph == nil {
			return nil
		}
		t, ok := ph.AttrNS("", "type")
		if !ok {
			t = "obj"
		}
		idx, ok := ph.AttrNS("", "idx")
		if !ok {
			idx = "0"
		}
		return &placeholder{typ: t, idx: idx}
	}
	return nil
}

// xfrmOf returns a shape's transform element.
func xfrmOf(e *Node) *Node {
	switch e.Name {
	case "graphicFrame":
		return e.ChildNS(NSP, "xfrm")
	case "grpSp":
		return e.PathNS(NSP, "grpSpPr").ChildNS(NSA, "xfrm")
	default:
		return e.PathNS(NSP, "spPr").ChildNS(NSA, "xfrm")
	}
}

func intAttr(n *Node, ns, local string) *int64 {
	v, ok := n.AttrNS(ns, local)
	if !ok {
		return nil
	}
	i, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return nil
	}
	return &i
}

func (d *Deck) readShape(e *Node, layout string) *Shape {
	sh := &Shape{elem: e, kind: e.Name}
	x := xfrmOf(e)
	sh.Left = intAttr(x.ChildNS(NSA, "off"), "", "x")
	sh.Top = intAttr(x.ChildNS(NSA, "off"), "", "y")
	sh.Width = intAttr(x.ChildNS(NSA, "ext"), "", "cx")
	sh.Height = intAttr(x.ChildNS(NSA, "ext"), "", "cy")
	ph := placeholderOf(e)
	if ph != nil && (sh.Left == nil || sh.Top == nil || sh.Width == nil || sh.Height == nil) {
		if base := d.layoutPlaceholder(layout, ph); base != nil {
			for _, f := range []struct{ dst, src **int64 }{
				{&sh.Left, &base.Left}, {&sh.Top, &base.Top}, {&sh.Width, &base.Width}, {&sh.Height, &base.Height},
			} {
				if *f.dst == nil {
					*f.dst = *f.src
				}
			}
		}
	}
	sh.ShapeType = shapeTypeOf(e, ph)
	if sh.kind == "grpSp" {
		for _, c := range e.Children {
			if c.Space != NSP {
				continue
			}
			switch c.Name {
			case "sp", "grpSp", "graphicFrame", "cxnSp", "pic", "contentPart":
				sh.Children = append(sh.Children, d.readShape(c, layout))
			}
		}
	}
	if sh.ShapeType == ShapeTable {
		sh.Table = readSlideTable(e.PathNS(NSA, "graphic", "graphicData").ChildNS(NSA, "tbl"))
	}
	if sh.kind == "sp" {
		sh.HasText = true
		tf := textFrame(e.ChildNS(NSP, "txBody"))
		sh.Text, sh.Paras = tf.text, tf.paras
	}
	return sh
}

func readSlideTable(tbl *Node) *SlideTable {
	t := &SlideTable{}
	if tbl == nil {
		return t
	}
	if g := tbl.ChildNS(NSA, "tblGrid"); g != nil {
		for _, c := range g.Children {
			if c.Space == NSA && c.Name == "gridCol" {
				t.Cols++
			}
		}
	}
	for _, tr := range tbl.Children {
		if tr.Space != NSA || tr.Name != "tr" {
			continue
		}
		var row []SlideCell
		for _, tc := range tr.Children {
			if tc.Space == NSA && tc.Name == "tc" {
				row = append(row, SlideCell{Paras: textFrame(tc.ChildNS(NSA, "txBody")).paras})
			}
		}
		t.Cells = append(t.Cells, row)
	}
	return t
}

// Background is the colour OSWorld's compare_pptx_files reads of a
// slide's background: the slide's solid fill's RGB, or, where the slide
// has no fill of its own (python-pptx then adds a noFill background), the
// master's the same way; none for any other fill. err is set where
// python-pptx raises (a solid fill whose colour is not RGB).
func (d *Deck) Background(s *Slide) (rgb string, none bool, err error) {
	rgb, kind, err := bgFill(s.Bg)
	if err != nil || kind == "solid" {
		return rgb, false, err
	}
	if kind != "noFill" {
		return "", true, nil
	}
	master, err := d.pkg.RelByType(s.layout, RelTypeMaster)
	if err != nil || master == "" {
		return "", true, nil
	}
	mt, err := d.pkg.XML(master)
	if err != nil {
		return "", true, nil
	}
	rgb, kind, err = bgFill(mt.PathNS(NSP, "cSld", "bg"))
	if err != nil || kind == "solid" {
		return rgb, false, err
	}
	return "", true, nil
}

// bgFill reads p:bg as slide.background.fill does: without a bgPr it is
// noFill; else the bgPr's fill element decides.
func bgFill(bg *Node) (rgb, kind string, err error) {
	bgPr := bg.ChildNS(NSP, "bgPr")
	if bg == nil || bgPr == nil {
		return "", "noFill", nil
	}
	for _, c := range bgPr.Children {
		if c.Space != NSA {
			continue
		}
		switch c.Name {
		case "noFill":
			return "", "noFill", nil
		case "solidFill":
			for _, clr := range c.Children {
				if clr.Space != NSA {
					continue
				}
				if clr.Name == "srgbClr" {
					v, _ := clr.AttrNS("", "val")
					return strings.ToUpper(v), "solid", nil
				}
				return "", "solid", fmt.Errorf("no .rgb property on the background's %s colour", clr.Name)
			}
			return "", "solid", errors.New("no .rgb property on the background's empty colour")
		case "gradFill", "blipFill", "pattFill", "grpFill":
			return "", c.Name, nil
		}
	}
	return "", "", nil
}

// layoutPlaceholder returns the position of the layout's placeholder of
// the same idx, itself completed from the master's placeholder of the base
// type (python-pptx's inheritance).
func (d *Deck) layoutPlaceholder(layout string, ph *placeholder) *Shape {
	if layout == "" {
		return nil
	}
	lt, err := d.pkg.XML(layout)
	if err != nil {
		return nil
	}
	for _, e := range lt.PathNS(NSP, "cSld", "spTree").Children {
		lph := placeholderOf(e)
		if lph == nil || lph.idx != ph.idx {
			continue
		}
		x := xfrmOf(e)
		sh := &Shape{
			Left: intAttr(x.ChildNS(NSA, "off"), "", "x"), Top: intAttr(x.ChildNS(NSA, "off"), "", "y"),
			Width: intAttr(x.ChildNS(NSA, "ext"), "", "cx"), Height: intAttr(x.ChildNS(NSA, "ext"), "", "cy"),
		}
		if sh.Left != nil && sh.Top != nil && sh.Width != nil && sh.Height != nil {
			return sh
		}
		master, err := d.pkg.RelByType(layout, RelTypeMaster)
		if err != nil || master == "" {
			return sh
		}
		mt, err := d.pkg.XML(master)
		if err != nil {
			return sh
		}
		want := masterBaseType(lph.typ)
		for _, m := range mt.PathNS(NSP, "cSld", "spTree").Children {
			mph := placeholderOf(m)
			if mph == nil || mph.typ != want {
				continue
			}
			mx := xfrmOf(m)
			for _, f := range []struct {
				dst  **int64
				n    *Node
				attr string
			}{
				{&sh.Left, mx.ChildNS(NSA, "off"), "x"}, {&sh.Top, mx.ChildNS(NSA, "off"), "y"},
				{&sh.Width, mx.ChildNS(NSA, "ext"), "cx"}, {&sh.Height, mx.ChildNS(NSA, "ext"), "cy"},
			} {
				if *f.dst == nil {
					*f.dst = intAttr(f.n, "", f.attr)
				}
			}
			break
		}
		return sh
	}
	return nil
}

// masterBaseType maps a layout placeholder's type to the master
// placeholder type it inherits from.
func masterBaseType(t string) string {
	switch t {
	case "title", "ctrTitle":
		return "title"
	case "dt", "ftr", "sldNum":
		return t
	default:
		return "body"
	}
}

func shapeTypeOf(e *Node, ph *placeholder) int {
	if ph != nil {
		return ShapePlaceholder
	}
	switch e.Name {
	case "sp":
		if v, _ := e.PathNS(NSP, "nvSpPr", "cNvSpPr").AttrNS("", "txBox"); v == "1" || v == "true" {
			return ShapeTextBox
		}
		if e.PathNS(NSP, "spPr").ChildNS(NSA, "custGeom") != nil {
			return ShapeFreeform
		}
		if e.PathNS(NSP, "spPr").ChildNS(NSA, "prstGeom") != nil {
			return shapeAuto
		}
	case "grpSp":
		return shapeGroup
	case "cxnSp":
		return shapeLine
	case "pic":
		return ShapePicture
	case "graphicFrame":
		uri, _ := e.PathNS(NSA, "graphic", "graphicData").AttrNS("", "uri")
		switch {
		case strings.HasSuffix(uri, "/table"):
			return ShapeTable
		case strings.HasSuffix(uri, "/chart"):
			return shapeChart
		}
	}
	return 0
}

type textFrameValue struct {
	text  string
	paras []Para
}

// textFrame reads a txBody. A shape without one reads as python-pptx's
// added empty body: one empty paragraph.
func textFrame(body *Node) textFrameValue {
	var tf textFrameValue
	if body == nil {
		tf.paras = []Para{{}}
		return tf
	}
	texts := []string{}
	for _, p := range body.Children {
		if p.Space != NSA || p.Name != "p" {
			continue
		}
		para := readPara(p)
		tf.paras = append(tf.paras, para)
		texts = append(texts, para.Text)
	}
	tf.text = strings.Join(texts, "\n")
	return tf
}

func readPara(p *Node) Para {
	var para Para
	if pPr := p.ChildNS(NSA, "pPr"); pPr != nil {
		if v, ok := pPr.AttrNS("", "algn"); ok {
			para.Align = &v
		}
		if l := intAttr(pPr, "", "lvl"); l != nil {
			para.Level = int(*l)
		}
	}
	var b strings.Builder
	for _, c := range p.Children {
		if c.Space != NSA {
			continue
		}
		switch c.Name {
		case "r":
			t := c.ChildNS(NSA, "t").TextOrEmpty()
			b.WriteString(t)
			para.Runs = append(para.Runs, readRun(c, t))
		case "br":
			b.WriteString("\v")
		case "fld":
			b.WriteString(c.ChildNS(NSA, "t").TextOrEmpty())
		}
	}
	para.Text = b.String()
	return para
}

func (n *Node) TextOrEmpty() string {
	if n == nil {
		return ""
	}
	return n.OwnText()
}

func readRun(r *Node, text string) Run {
	run := Run{Text: text, Strike: "noStrike"}
	rPr := r.ChildNS(NSA, "rPr")
	if rPr == nil {
		return run
	}
	if v, ok := rPr.ChildNS(NSA, "latin").AttrNS("", "typeface"); ok {
		run.Font = &v
	}
	run.Size = intAttr(rPr, "", "sz")
	run.Bold = xsdBool(rPr, "b")
	run.Italic = xsdBool(rPr, "i")
	if c := rPr.PathNS(NSA, "solidFill", "srgbClr"); c != nil {
		if v, ok := c.AttrNS("", "val"); ok {
			v = strings.ToUpper(v)
			run.Rgb = &v
		}
	}
	if v, ok := rPr.AttrNS("", "u"); ok {
		run.Underline = &v
	}
	if v, ok := rPr.AttrNS("", "strike"); ok {
		run.Strike = v
	}
	return run
}

func xsdBool(n *Node, local string) *bool {
	v, ok := n.AttrNS("", local)
	if !ok {
		return nil
	}
	b := v == "1" || v == "true"
	return &b
}

// BulletInfo is what OSWorld's bullet check reads of every paragraph of a
// slide's XML: level, bullet character, text and bullet colour.
type BulletInfo struct{ lvl, char, text, color string }

// VisibleBullets keeps the paragraphs OSWorld compares: those whose text
// is not blank.
func VisibleBullets(bs []BulletInfo) []BulletInfo {
	var out []BulletInfo
	for _, b := range bs {
		if strings.TrimSpace(b.text) != "" {
			out = append(out, b)
		}
	}
	return out
}

// SameBullet is OSWorld's tolerant comparison: text and bullet character
// equal, the level (None read as 0) only where either shows a bullet,
// the colour never.
func SameBullet(a, b BulletInfo) bool {
	if a.text != b.text || a.char != b.char {
		return false
	}
	if a.char == "No Bullet" && b.char == "No Bullet" {
		return true
	}
	norm := func(l string) string {
		if l == "None" {
			return "0"
		}
		return l
	}
	return norm(a.lvl) == norm(b.lvl)
}

func SlideBullets(root *Node) []BulletInfo {
	var out []BulletInfo
	for _, p := range root.FindAllNS(NSA, "p", nil) {
		bi := BulletInfo{lvl: "No Level", char: "No Bullet", color: "No Color"}
		if pPr := p.ChildNS(NSA, "pPr"); pPr != nil {
			bi.lvl = "None"
			if v, ok := pPr.AttrNS("", "lvl"); ok {
				bi.lvl = v
			}
			if v, ok := pPr.ChildNS(NSA, "buChar").AttrNS("", "char"); ok {
				bi.char = v
			} else if pPr.ChildNS(NSA, "buChar") != nil {
				bi.char = "None"
			}
			if c := pPr.PathNS(NSA, "buClr", "srgbClr"); c != nil {
				bi.color = "None"
				if v, ok := c.AttrNS("", "val"); ok {
					bi.color = v
				}
			}
		}
		var b strings.Builder
		for _, t := range p.FindAllNS(NSA, "t", nil) {
			b.WriteString(t.OwnText())
		}
		bi.text = b.String()
		out = append(out, bi)
	}
	return out
}
