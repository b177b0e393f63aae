package office

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
)

// XMLDict is what xmltodict gives for an element with attributes: the
// attributes ("@name", or "@namespace:name") then "#text", in order.
// OSWorld's read_cell_value returns one for an inline string whose t
// has attributes (xml:space="preserve").
type XMLDict [][2]string

// Repr is Python's repr (and str) of the dict.
func (d XMLDict) Repr() string {
	parts := make([]string, len(d))
	for i, kv := range d {
		parts[i] = py.Repr(kv[0]) + ": " + py.Repr(kv[1])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// XMLList is xmltodict's list for repeated elements (an inline string
// with two t), each None (nil), a string or an XMLDict.
type XMLList []any

// ErrPython is an exception OSWorld's code does not catch: the metric
// raises, and the harness scores 0.
var ErrPython = errors.New("python exception")

// readXMLShared reads xl/sharedStrings.xml as OSWorld's read_cell_value
// does: for each si of the sst, the text of every t below it joined; a t
// without text fails the join, and then every shared string is missing.
func (b *Book) readXMLShared() {
	sst, err := b.pk.XML("xl/sharedStrings.xml")
	if err != nil || sst.Name != "sst" {
		b.xmlShared = nil
		return
	}
	var out []string
	for _, si := range sst.ChildrenNamed("si") {
		var sb strings.Builder
		for _, t := range si.Find("t") {
			if t.Text == "" {
				b.xmlShared, b.xmlSharedBad = nil, true
				return
			}
			sb.WriteString(t.Text)
		}
		out = append(out, sb.String())
	}
	b.xmlShared = out
}

// xmltodictValue is what xmltodict makes of an element: nil when it has
// neither attributes nor text (text stripped), its stripped text when it
// has no attributes, else an XMLDict. Child elements are not looked at
// (the cells' v and t hold text only).
func xmltodictValue(n *Node) any {
	text := strings.TrimFunc(n.AllText(), py.IsSpace)
	var d XMLDict
	for _, a := range n.NSAttr {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			continue
		}
		k := "@" + a.Name.Local
		switch a.Name.Space {
		case "", nsMain:
		case "xml":
			k = "@http://www.w3.org/XML/1998/namespace:" + a.Name.Local
		default:
			k = "@" + a.Name.Space + ":" + a.Name.Local
		}
		d = append(d, [2]string{k, a.Value})
	}
	if len(d) == 0 {
		if text == "" {
			return nil
		}
		return text
	}
	if text != "" {
		d = append(d, [2]string{"#text", text})
	}
	return d
}

// childValue is xmltodict's value of a child: nil and false when there
// is none, a list when there are several.
func childValue(n *Node, name string) (any, bool) {
	cs := n.ChildrenNamed(name)
	switch len(cs) {
	case 0:
		return nil, false
	case 1:
		return xmltodictValue(cs[0]), true
	}
	l := make(XMLList, len(cs))
	for i, c := range cs {
		l[i] = xmltodictValue(c)
	}
	return l, true
}

const nsMain = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"

// ReadCellValue is OSWorld's read_cell_value (metrics/utils.py): the
// sheet is xl/worksheets/sheet{sheetId}.xml whatever the workbook's
// relationships say, the cell the first c of a row whose r is coordinate
// as written; a number is a float64, a shared string from its own table
// (phonetic runs included), an inline string its t as xmltodict gives it
// (a string, nil, an XMLDict or an XMLList), a formula string or an
// error its v; nil for anything it cannot read. An error wrapping
// ErrPython is an exception read_cell_value lets through.
func (b *Book) ReadCellValue(sheet, coordinate string) (any, error) {
	id, ok := b.sheetIDs[sheet]
	if !ok {
		return nil, nil
	}
	root, err := b.pk.XML("xl/worksheets/sheet" + id + ".xml")
	if err != nil {
		return nil, nil
	}
	cell := b.cellIndex(root)[coordinate]
	if cell == nil {
		return nil, nil
	}
	t, hasT := cell.Attr["t"]
	v, hasV := childValue(cell, "v")
	if !hasT || t == "n" {
		if !hasV {
			return nil, nil
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%w: TypeError: float() argument must be a string or a real number, not %s", ErrPython, xmlTypeName(v))
		}
		f, ok := py.ParseFloat(s)
		if !ok {
			return nil, nil
		}
		return f, nil
	}
	switch t {
	case "s":
		if !hasV {
			return nil, nil
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%w: TypeError: int() argument must be a string, not %s", ErrPython, xmlTypeName(v))
		}
		i, ok := py.ParseInt(s)
		if !ok {
			return nil, nil
		}
		n := big.NewInt(int64(len(b.xmlShared)))
		if i.Sign() < 0 {
			i = new(big.Int).Add(i, n)
		}
		if i.Sign() < 0 || i.Cmp(n) >= 0 {
			return nil, fmt.Errorf("%w: IndexError: list index out of range", ErrPython)
		}
		return b.xmlShared[i.Int64()], nil
	case "str", "e":
		if !hasV {
			return nil, nil
		}
		return v, nil
	case "inlineStr":
		iss := cell.ChildrenNamed("is")
		switch {
		case len(iss) == 0:
			return nil, nil
		case len(iss) > 1:
			return nil, fmt.Errorf("%w: TypeError: list indices must be integers or slices, not str", ErrPython)
		}
		is := iss[0]
		if len(is.Children) == 0 {
			if _, isDict := xmltodictValue(is).(XMLDict); isDict {
				return nil, nil // a dict without "t": KeyError, caught
			}
			return nil, fmt.Errorf("%w: TypeError: %s object is not subscriptable", ErrPython, xmlTypeName(xmltodictValue(is)))
		}
		tv, ok := childValue(is, "t")
		if !ok {
			return nil, nil
		}
		return tv, nil
	}
	return nil, nil
}

func xmlTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case XMLDict:
		return "dict"
	case XMLList:
		return "list"
	}
	return "str"
}

// ReadCellValueAt is ReadCellValue at a row and column.
func (b *Book) ReadCellValueAt(sheet string, row, col int) (any, error) {
	return b.ReadCellValue(sheet, ColName(col)+strconv.Itoa(row))
}

// cellIndex maps each r of a sheet part to the first c of a row with
// it (CSS oo|row>oo|c[r=...]), built once per part.
func (b *Book) cellIndex(root *Node) map[string]*Node {
	if idx, ok := b.xmlCells[root]; ok {
		return idx
	}
	idx := map[string]*Node{}
	root.Walk(func(n *Node) bool {
		if n.Name != "row" || n.Space != nsMain {
			return true
		}
		for _, c := range n.Children {
			if c.Name == "c" && c.Space == nsMain {
				if r, ok := c.Attr["r"]; ok {
					if _, seen := idx[r]; !seen {
						idx[r] = c
					}
				}
			}
		}
		return true
	})
	if b.xmlCells == nil {
		b.xmlCells = map[*Node]map[string]*Node{}
	}
	b.xmlCells[root] = idx
	return idx
}
