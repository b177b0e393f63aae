package task

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A pptx is read into the properties OSWorld's slide metrics look at,
// with the values python-pptx gives them: absent attributes are nil
// (python-pptx's None), sizes in the file's units, placeholders' positions
// inherited from the layout and then the master when the slide does not
// set them.

type pptxDeck struct {
	pkg           *opcPackage
	width, height *int64 // presentation sldSz
	slides        []*pptxSlide
}

type pptxSlide struct {
	part   string
	root   *xnode
	shapes []*pptxShape
	// notes is the text of the notes slide's body placeholder ("" when the
	// slide has no notes slide, as python-pptx's new notes slide has).
	notes string
	// bg is the slide's cSld/bg element (nil when absent); layout the
	// layout part.
	bg     *xnode
	layout string
}

type pptxShape struct {
	elem                     *xnode
	kind                     string // sp, grpSp, graphicFrame, cxnSp, pic, contentPart
	left, top, width, height *int64
	shapeType                int // python-pptx MSO_SHAPE_TYPE, 0 when unknown
	hasText                  bool
	text                     string
	paras                    []pptxPara
}

type pptxPara struct {
	align *string
	level int
	text  string
	runs  []pptxRun
}

type pptxRun struct {
	text      string
	font      *string
	size      *int64
	bold      *bool
	italic    *bool
	rgb       *string // only for an srgbClr solid fill (python-pptx has no rgb otherwise)
	underline *string // "none" is False, "sng" True, others their name
	strike    string  // the strike attribute, "noStrike" when absent
}

// MSO_SHAPE_TYPE values the metrics test.
const (
	shapeAuto        = 1
	shapeChart       = 3
	shapeFreeform    = 5
	shapeGroup       = 6
	shapeLine        = 9
	shapePicture     = 13
	shapePlaceholder = 14
	shapeTextBox     = 17
	shapeTable       = 19
)

// openPptx reads the pptx at p (a host path from a getter).
func openPptx(ctx context.Context, p any) (*pptxDeck, error) {
	name, ok := p.(string)
	if !ok {
		return nil, fmt.Errorf("want a file path, got %s", typeName(p))
	}
	data, err := os.ReadFile(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, err
	}
	d, err := parsePptx(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

func parsePptx(ctx context.Context, data []byte) (*pptxDeck, error) {
	pkg, err := openPackage(ctx, data)
	if err != nil {
		return nil, err
	}
	main, err := pkg.relByType("", relTypeOfficeDc)
	if err != nil {
		return nil, err
	}
	if main == "" {
		main = "ppt/presentation.xml"
	}
	pres, err := pkg.tree(main)
	if err != nil {
		return nil, err
	}
	if pres.name.Local != "presentation" {
		return nil, fmt.Errorf("%s: not a presentation (root %s)", main, pres.name.Local)
	}
	d := &pptxDeck{pkg: pkg}
	if sz := pres.child(nsP, "sldSz"); sz != nil {
		d.width = intAttr(sz, "", "cx")
		d.height = intAttr(sz, "", "cy")
	}
	rels, err := pkg.rels(main)
	if err != nil {
		return nil, err
	}
	byID := map[string]relationship{}
	for _, r := range rels {
		byID[r.id] = r
	}
	for _, sid := range pres.path(nsP, "sldIdLst").children {
		if sid.name.Local != "sldId" {
			continue
		}
		rid, _ := sid.attrValue(nsR, "id")
		r, ok := byID[rid]
		if !ok || !strings.HasSuffix(r.typ, relTypeSlide) {
			return nil, fmt.Errorf("slide %s: no slide relationship", rid)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := d.readSlide(r.target)
		if err != nil {
			return nil, err
		}
		d.slides = append(d.slides, s)
	}
	return d, nil
}

func (d *pptxDeck) readSlide(part string) (*pptxSlide, error) {
	root, err := d.pkg.tree(part)
	if err != nil {
		return nil, err
	}
	s := &pptxSlide{part: part, root: root}
	cSld := root.child(nsP, "cSld")
	s.bg = cSld.child(nsP, "bg")
	if s.layout, err = d.pkg.relByType(part, relTypeLayout); err != nil {
		return nil, err
	}
	for _, e := range cSld.path(nsP, "spTree").children {
		if e.name.Space != nsP {
			continue
		}
		switch e.name.Local {
		case "sp", "grpSp", "graphicFrame", "cxnSp", "pic", "contentPart":
		default:
			continue
		}
		s.shapes = append(s.shapes, d.readShape(e, s.layout))
	}
	notes, err := d.pkg.relByType(part, relTypeNotes)
	if err != nil {
		return nil, err
	}
	if notes != "" {
		nt, err := d.pkg.tree(notes)
		if err != nil {
			return nil, err
		}
		for _, e := range nt.path(nsP, "cSld", "spTree").children {
			if ph := placeholderOf(e); ph != nil && ph.typ == "body" {
				s.notes = textFrame(e.child(nsP, "txBody")).text
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

func placeholderOf(e *xnode) *placeholder {
	for _, c := range e.children {
		if !strings.HasPrefix(c.name.Local, "nv") {
			continue
		}
		ph := c.path(nsP, "nvPr", "ph")
		if ph == nil {
			return nil
		}
		t, ok := ph.attrValue("", "type")
		if !ok {
			t = "obj"
		}
		idx, ok := ph.attrValue("", "idx")
		if !ok {
			idx = "0"
		}
		return &placeholder{typ: t, idx: idx}
	}
	return nil
}

// xfrmOf returns a shape's transform element.
func xfrmOf(e *xnode) *xnode {
	switch e.name.Local {
	case "graphicFrame":
		return e.child(nsP, "xfrm")
	case "grpSp":
		return e.path(nsP, "grpSpPr").child(nsA, "xfrm")
	default:
		return e.path(nsP, "spPr").child(nsA, "xfrm")
	}
}

func intAttr(n *xnode, ns, local string) *int64 {
	v, ok := n.attrValue(ns, local)
	if !ok {
		return nil
	}
	i, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return nil
	}
	return &i
}

func (d *pptxDeck) readShape(e *xnode, layout string) *pptxShape {
	sh := &pptxShape{elem: e, kind: e.name.Local}
	x := xfrmOf(e)
	sh.left = intAttr(x.child(nsA, "off"), "", "x")
	sh.top = intAttr(x.child(nsA, "off"), "", "y")
	sh.width = intAttr(x.child(nsA, "ext"), "", "cx")
	sh.height = intAttr(x.child(nsA, "ext"), "", "cy")
	ph := placeholderOf(e)
	if ph != nil && (sh.left == nil || sh.top == nil || sh.width == nil || sh.height == nil) {
		if base := d.layoutPlaceholder(layout, ph); base != nil {
			for _, f := range []struct{ dst, src **int64 }{
				{&sh.left, &base.left}, {&sh.top, &base.top}, {&sh.width, &base.width}, {&sh.height, &base.height},
			} {
				if *f.dst == nil {
					*f.dst = *f.src
				}
			}
		}
	}
	sh.shapeType = shapeTypeOf(e, ph)
	if sh.kind == "sp" {
		sh.hasText = true
		tf := textFrame(e.child(nsP, "txBody"))
		sh.text, sh.paras = tf.text, tf.paras
	}
	return sh
}

// layoutPlaceholder returns the position of the layout's placeholder of
// the same idx, itself completed from the master's placeholder of the base
// type (python-pptx's inheritance).
func (d *pptxDeck) layoutPlaceholder(layout string, ph *placeholder) *pptxShape {
	if layout == "" {
		return nil
	}
	lt, err := d.pkg.tree(layout)
	if err != nil {
		return nil
	}
	for _, e := range lt.path(nsP, "cSld", "spTree").children {
		lph := placeholderOf(e)
		if lph == nil || lph.idx != ph.idx {
			continue
		}
		x := xfrmOf(e)
		sh := &pptxShape{
			left: intAttr(x.child(nsA, "off"), "", "x"), top: intAttr(x.child(nsA, "off"), "", "y"),
			width: intAttr(x.child(nsA, "ext"), "", "cx"), height: intAttr(x.child(nsA, "ext"), "", "cy"),
		}
		if sh.left != nil && sh.top != nil && sh.width != nil && sh.height != nil {
			return sh
		}
		master, err := d.pkg.relByType(layout, relTypeMaster)
		if err != nil || master == "" {
			return sh
		}
		mt, err := d.pkg.tree(master)
		if err != nil {
			return sh
		}
		want := masterBaseType(lph.typ)
		for _, m := range mt.path(nsP, "cSld", "spTree").children {
			mph := placeholderOf(m)
			if mph == nil || mph.typ != want {
				continue
			}
			mx := xfrmOf(m)
			for _, f := range []struct {
				dst  **int64
				n    *xnode
				attr string
			}{
				{&sh.left, mx.child(nsA, "off"), "x"}, {&sh.top, mx.child(nsA, "off"), "y"},
				{&sh.width, mx.child(nsA, "ext"), "cx"}, {&sh.height, mx.child(nsA, "ext"), "cy"},
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

func shapeTypeOf(e *xnode, ph *placeholder) int {
	if ph != nil {
		return shapePlaceholder
	}
	switch e.name.Local {
	case "sp":
		if v, _ := e.path(nsP, "nvSpPr", "cNvSpPr").attrValue("", "txBox"); v == "1" || v == "true" {
			return shapeTextBox
		}
		if e.path(nsP, "spPr").child(nsA, "custGeom") != nil {
			return shapeFreeform
		}
		if e.path(nsP, "spPr").child(nsA, "prstGeom") != nil {
			return shapeAuto
		}
	case "grpSp":
		return shapeGroup
	case "cxnSp":
		return shapeLine
	case "pic":
		return shapePicture
	case "graphicFrame":
		uri, _ := e.path(nsA, "graphic", "graphicData").attrValue("", "uri")
		switch {
		case strings.HasSuffix(uri, "/table"):
			return shapeTable
		case strings.HasSuffix(uri, "/chart"):
			return shapeChart
		}
	}
	return 0
}

type textFrameValue struct {
	text  string
	paras []pptxPara
}

// textFrame reads a txBody. A shape without one reads as python-pptx's
// added empty body: one empty paragraph.
func textFrame(body *xnode) textFrameValue {
	var tf textFrameValue
	if body == nil {
		tf.paras = []pptxPara{{}}
		return tf
	}
	texts := []string{}
	for _, p := range body.children {
		if p.name.Space != nsA || p.name.Local != "p" {
			continue
		}
		para := readPara(p)
		tf.paras = append(tf.paras, para)
		texts = append(texts, para.text)
	}
	tf.text = strings.Join(texts, "\n")
	return tf
}

func readPara(p *xnode) pptxPara {
	var para pptxPara
	if pPr := p.child(nsA, "pPr"); pPr != nil {
		if v, ok := pPr.attrValue("", "algn"); ok {
			para.align = &v
		}
		if l := intAttr(pPr, "", "lvl"); l != nil {
			para.level = int(*l)
		}
	}
	var b strings.Builder
	for _, c := range p.children {
		if c.name.Space != nsA {
			continue
		}
		switch c.name.Local {
		case "r":
			t := c.child(nsA, "t").textOrEmpty()
			b.WriteString(t)
			para.runs = append(para.runs, readRun(c, t))
		case "br":
			b.WriteString("\v")
		case "fld":
			b.WriteString(c.child(nsA, "t").textOrEmpty())
		}
	}
	para.text = b.String()
	return para
}

func (n *xnode) textOrEmpty() string {
	if n == nil {
		return ""
	}
	return n.text
}

func readRun(r *xnode, text string) pptxRun {
	run := pptxRun{text: text, strike: "noStrike"}
	rPr := r.child(nsA, "rPr")
	if rPr == nil {
		return run
	}
	if v, ok := rPr.child(nsA, "latin").attrValue("", "typeface"); ok {
		run.font = &v
	}
	run.size = intAttr(rPr, "", "sz")
	run.bold = xsdBool(rPr, "b")
	run.italic = xsdBool(rPr, "i")
	if c := rPr.path(nsA, "solidFill", "srgbClr"); c != nil {
		if v, ok := c.attrValue("", "val"); ok {
			v = strings.ToUpper(v)
			run.rgb = &v
		}
	}
	if v, ok := rPr.attrValue("", "u"); ok {
		run.underline = &v
	}
	if v, ok := rPr.attrValue("", "strike"); ok {
		run.strike = v
	}
	return run
}

func xsdBool(n *xnode, local string) *bool {
	v, ok := n.attrValue("", local)
	if !ok {
		return nil
	}
	b := v == "1" || v == "true"
	return &b
}

// bulletInfo is what OSWorld's bullet check reads of every paragraph of a
// slide's XML: level, bullet character, text and bullet colour.
type bulletInfo struct{ lvl, char, text, color string }

func slideBullets(root *xnode) []bulletInfo {
	var out []bulletInfo
	for _, p := range root.findAll(nsA, "p", nil) {
		bi := bulletInfo{lvl: "No Level", char: "No Bullet", color: "No Color"}
		if pPr := p.child(nsA, "pPr"); pPr != nil {
			bi.lvl = "None"
			if v, ok := pPr.attrValue("", "lvl"); ok {
				bi.lvl = v
			}
			if v, ok := pPr.child(nsA, "buChar").attrValue("", "char"); ok {
				bi.char = v
			} else if pPr.child(nsA, "buChar") != nil {
				bi.char = "None"
			}
			if c := pPr.path(nsA, "buClr", "srgbClr"); c != nil {
				bi.color = "None"
				if v, ok := c.attrValue("", "val"); ok {
					bi.color = v
				}
			}
		}
		var b strings.Builder
		for _, t := range p.findAll(nsA, "t", nil) {
			b.WriteString(t.text)
		}
		bi.text = b.String()
		out = append(out, bi)
	}
	return out
}
