package office

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
)

// Book is a workbook read as openpyxl reads it for OSWorld's metrics:
// raw cell values and attributes as written in the XML, not as a
// spreadsheet program would display them.
type Book struct {
	pk     *Package
	wbPart string
	Names  []string
	parts  map[string]string // sheet name -> part
	// shared is the shared-string table as openpyxl reads it (the si's
	// own t and its runs' t, phonetic runs left out, "x005F_" dropped).
	shared []string
	// xmlShared is the table as OSWorld's read_cell_value reads it:
	// every t below each si joined, phonetic runs included; nil with
	// xmlSharedBad when a t without text made its join fail.
	xmlShared    []string
	xmlSharedBad bool
	// sheetIDs maps a sheet's name to its sheetId in xl/workbook.xml.
	sheetIDs map[string]string
	xmlCells map[*Node]map[string]*Node
	date1904 bool
	styles   *xlsxStyles
	sheets   map[string]*Sheet
}

type Cell struct {
	Row, Col int
	Type     string // the t attribute
	Style    int
	V        string
	HasV     bool
	F        string
	HasF     bool
	Inline   string
	// InlineSimple says the inline string is one plain <t> directly in
	// <is> (what OSWorld's read_cell_value can read; rich text it cannot).
	InlineSimple bool
}

type Sheet struct {
	Root   *Node
	Cells  map[[2]int]*Cell
	order  []*Cell
	maxRow int
	maxCol int
	part   string
}

func OpenXLSX(p any) (*Book, error) {
	path, ok := p.(string)
	if !ok || path == "" {
		return nil, fmt.Errorf("want an xlsx file path, got %s", py.TypeName(p))
	}
	pk, err := Open(path)
	if err != nil {
		return nil, err
	}
	return ReadXLSX(pk)
}

func ReadXLSX(pk *Package) (*Book, error) {
	b := &Book{pk: pk, parts: map[string]string{}, sheets: map[string]*Sheet{}}
	b.wbPart = "xl/workbook.xml"
	if ts := pk.RelsOfType("", "/officeDocument"); len(ts) > 0 {
		b.wbPart = ts[0]
	}
	wb, err := pk.XML(b.wbPart)
	if err != nil {
		return nil, fmt.Errorf("not an xlsx workbook: %w", err)
	}
	if wb.Name != "workbook" {
		return nil, errors.New("not an xlsx workbook: no workbook element")
	}
	for _, s := range wb.Path("sheets").ChildrenNamed("sheet") {
		name := s.Attr["name"]
		target, ok := pk.RelTarget(b.wbPart, s.Attr["id"])
		if !ok {
			continue
		}
		b.Names = append(b.Names, name)
		b.parts[name] = target
	}
	for _, t := range pk.RelsOfType(b.wbPart, "/sharedStrings") {
		sst, err := pk.XML(t)
		if err != nil {
			return nil, err
		}
		for _, si := range sst.ChildrenNamed("si") {
			var s strings.Builder
			if t := si.Child("t"); t != nil {
				s.WriteString(t.Text)
			}
			for _, r := range si.ChildrenNamed("r") {
				if t := r.Child("t"); t != nil {
					s.WriteString(t.Text)
				}
			}
			b.shared = append(b.shared, strings.ReplaceAll(s.String(), "x005F_", ""))
		}
	}
	b.readXMLShared()
	b.sheetIDs = map[string]string{}
	if w, err := pk.XML("xl/workbook.xml"); err == nil {
		for _, s := range w.Path("sheets").ChildrenNamed("sheet") {
			id, ok := s.Attr["sheetId"]
			if !ok {
				id = "None"
			}
			b.sheetIDs[s.Attr["name"]] = id // a later sheet of the same name wins, as in a dict
		}
	}
	if v, ok := wb.Path("workbookPr").Attribute("date1904"); ok {
		b.date1904 = v == "1" || strings.EqualFold(v, "true")
	}
	b.styles = &xlsxStyles{}
	for _, t := range pk.RelsOfType(b.wbPart, "/styles") {
		if st, err := pk.XML(t); err == nil {
			b.styles = readStyles(st)
		}
	}
	return b, nil
}

// Sheet returns the sheet of that name, or nil.
func (b *Book) Sheet(name string) (*Sheet, error) {
	if s, ok := b.sheets[name]; ok {
		return s, nil
	}
	part, ok := b.parts[name]
	if !ok {
		return nil, fmt.Errorf("no sheet %q", name)
	}
	root, err := b.pk.XML(part)
	if err != nil {
		return nil, err
	}
	s := &Sheet{Root: root, Cells: map[[2]int]*Cell{}, part: part}
	rowNo := 0
	for _, row := range root.Path("sheetData").ChildrenNamed("row") {
		if r, err := strconv.Atoi(row.Attr["r"]); err == nil && r > 0 {
			rowNo = r
		} else {
			rowNo++
		}
		colNo := 0
		for _, c := range row.ChildrenNamed("c") {
			cell := &Cell{Row: rowNo, Type: c.Attr["t"]}
			if ref, ok := c.Attr["r"]; ok {
				col, r, err := SplitCellRef(ref)
				if err == nil {
					cell.Row, cell.Col = r, col
				}
			}
			if cell.Col == 0 {
				cell.Col = colNo + 1
			}
			colNo = cell.Col
			cell.Style, _ = strconv.Atoi(c.Attr["s"])
			if v := c.Child("v"); v != nil {
				cell.V, cell.HasV = v.Text, true
			}
			if f := c.Child("f"); f != nil {
				cell.F, cell.HasF = f.Text, true
			}
			if is := c.Child("is"); is != nil {
				var sb strings.Builder
				for _, t := range is.Find("t") {
					sb.WriteString(t.Text)
				}
				cell.Inline = sb.String()
				ts := is.Find("t")
				direct := is.Child("t")
				cell.InlineSimple = len(ts) == 1 && direct != nil && direct.Text != ""
			}
			k := [2]int{cell.Row, cell.Col}
			if _, dup := s.Cells[k]; !dup {
				s.order = append(s.order, cell)
			}
			s.Cells[k] = cell
			s.maxRow = max(s.maxRow, cell.Row)
			s.maxCol = max(s.maxCol, cell.Col)
		}
		s.maxRow = max(s.maxRow, rowNo)
	}
	b.sheets[name] = s
	return s, nil
}

// CachedValue is the value pandas reads (openpyxl with data_only=True):
// numbers, strings, booleans, error texts; dates are numbers flagged by
// their format.
func (b *Book) CachedValue(c *Cell) (v any, isDate bool) {
	if c == nil {
		return nil, false
	}
	switch c.Type {
	case "", "n", "d":
		if !c.HasV || c.V == "" {
			return nil, false
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(c.V), 64)
		if err != nil {
			return c.V, false
		}
		return f, b.styles.isDate(c.Style)
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(c.V))
		if err != nil || i < 0 || i >= len(b.shared) {
			return nil, false
		}
		return b.shared[i], false
	case "b":
		return strings.TrimSpace(c.V) == "1" || strings.EqualFold(strings.TrimSpace(c.V), "true"), false
	case "inlineStr":
		return c.Inline, false
	case "e":
		if c.V == "#N/A" || c.V == "#NA" {
			return nil, false
		}
		return c.V, false
	}
	if !c.HasV {
		return nil, false
	}
	return c.V, false
}

// SplitCellRef parses "AB12" (dollars allowed) into column and row.
func SplitCellRef(ref string) (col, row int, err error) {
	ref = strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(ref)), "$", "")
	i := 0
	for i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z' {
		col = col*26 + int(ref[i]-'A'+1)
		i++
		if col > 16384 {
			return 0, 0, fmt.Errorf("cell %q: column beyond XFD", ref)
		}
	}
	if i == 0 || i == len(ref) {
		return 0, 0, fmt.Errorf("cell %q: want a column and a row like B3", ref)
	}
	row, err = strconv.Atoi(ref[i:])
	if err != nil || row <= 0 || row > 1048576 {
		return 0, 0, fmt.Errorf("cell %q: want a column and a row like B3", ref)
	}
	return col, row, nil
}

// ColName is openpyxl's get_column_letter.
func ColName(col int) string {
	var b []byte
	for col > 0 {
		col--
		b = append([]byte{byte('A' + col%26)}, b...)
		col /= 26
	}
	return string(b)
}

// CellRange is a rectangle of cells, 1-based and inclusive.
type CellRange struct{ MinCol, MinRow, MaxCol, MaxRow int }

func (r CellRange) Within(o CellRange) bool {
	return r.MinCol >= o.MinCol && r.MinRow >= o.MinRow && r.MaxCol <= o.MaxCol && r.MaxRow <= o.MaxRow
}

func (r CellRange) Cells() int { return (r.MaxCol - r.MinCol + 1) * (r.MaxRow - r.MinRow + 1) }

// ParseRanges is openpyxl's MultiCellRange: space-separated ranges such
// as "A1:B6 D2", each optionally after a sheet title ("Sheet1!A1:B2",
// the title ignored); a range whose end comes before its start is
// refused, as openpyxl refuses it.
func ParseRanges(s string) ([]CellRange, error) {
	var out []CellRange
	for _, part := range strings.Fields(s) {
		if i := strings.LastIndexByte(part, '!'); i >= 0 {
			part = part[i+1:]
		}
		a, b, isRange := strings.Cut(part, ":")
		c1, r1, err := SplitCellRef(a)
		if err != nil {
			return nil, err
		}
		c2, r2 := c1, r1
		if isRange {
			if c2, r2, err = SplitCellRef(b); err != nil {
				return nil, err
			}
		}
		if c2 < c1 || r2 < r1 {
			return nil, fmt.Errorf("range %q: its end comes before its start", part)
		}
		out = append(out, CellRange{c1, r1, c2, r2})
	}
	return out, nil
}

// xlsxStyles are the parts of styles.xml the metrics read.
type xlsxStyles struct {
	xfs     []*Node
	fonts   []*Node
	fills   []*Node
	numFmts map[int]string
}

func readStyles(root *Node) *xlsxStyles {
	st := &xlsxStyles{numFmts: map[int]string{}}
	st.xfs = root.Path("cellXfs").ChildrenNamed("xf")
	st.fonts = root.Path("fonts").ChildrenNamed("font")
	st.fills = root.Path("fills").ChildrenNamed("fill")
	for _, n := range root.Path("numFmts").ChildrenNamed("numFmt") {
		if id, err := strconv.Atoi(n.Attr["numFmtId"]); err == nil {
			st.numFmts[id] = n.Attr["formatCode"]
		}
	}
	return st
}

func (st *xlsxStyles) xf(i int) *Node {
	if i >= 0 && i < len(st.xfs) {
		return st.xfs[i]
	}
	return nil
}

func (st *xlsxStyles) part(list []*Node, xf *Node, attr string) *Node {
	i := 0
	if xf != nil {
		i, _ = strconv.Atoi(xf.Attr[attr])
	}
	if i >= 0 && i < len(list) {
		return list[i]
	}
	return nil
}

// builtinNumFmts are the number formats of ids without a numFmt element
// (openpyxl's BUILTIN_FORMATS).
var builtinNumFmts = map[int]string{
	0: "General", 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00",
	5: `"$"#,##0_);("$"#,##0)`, 6: `"$"#,##0_);[Red]("$"#,##0)`,
	7: `"$"#,##0.00_);("$"#,##0.00)`, 8: `"$"#,##0.00_);[Red]("$"#,##0.00)`,
	9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??",
	14: "mm-dd-yy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy",
	18: "h:mm AM/PM", 19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss",
	22: "m/d/yy h:mm", 37: "#,##0_);(#,##0)", 38: "#,##0_);[Red](#,##0)",
	39: "#,##0.00_);(#,##0.00)", 40: "#,##0.00_);[Red](#,##0.00)",
	41: `_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)`,
	42: `_("$"* #,##0_);_("$"* \(#,##0\);_("$"* "-"_);_(@_)`,
	43: `_(* #,##0.00_);_(* \(#,##0.00\);_(* "-"??_);_(@_)`,
	44: `_("$"* #,##0.00_)_("$"* \(#,##0.00\)_("$"* "-"??_)_(@_)`,
	45: "mm:ss", 46: "[h]:mm:ss", 47: "mmss.0", 48: "##0.0E+0", 49: "@",
}

func (st *xlsxStyles) numFmt(style int) string {
	id := 0
	if xf := st.xf(style); xf != nil {
		id, _ = strconv.Atoi(xf.Attr["numFmtId"])
	}
	if f, ok := st.numFmts[id]; ok {
		return f
	}
	if f, ok := builtinNumFmts[id]; ok {
		return f
	}
	return "General"
}

// isDate is openpyxl's is_date_format on the style's number format:
// its first section, quoted text and brackets other than [h], [m], [s]
// left out, holds a date letter after some character other than a
// backslash (so "d" alone is no date).
func (st *xlsxStyles) isDate(style int) bool {
	f, _, _ := strings.Cut(st.numFmt(style), ";")
	f = dateStripRE.ReplaceAllStringFunc(f, func(m string) string {
		if m[0] == '[' && elapsedRE.MatchString(m) {
			return m
		}
		return ""
	})
	for i := 1; i < len(f); i++ {
		if strings.IndexByte("dmhysDMHYS", f[i]) >= 0 && f[i-1] != '\\' {
			return true
		}
	}
	return false
}

// isTimedelta is openpyxl's is_timedelta_format: an elapsed-time part
// ([h], [mm], [ss], ...) anywhere in the format.
func (st *xlsxStyles) isTimedelta(style int) bool {
	return timedeltaRE.MatchString(st.numFmt(style))
}

var (
	dateStripRE = regexp.MustCompile(`".*?"|\[[^\]]*\]`)
	elapsedRE   = regexp.MustCompile(`^\[(hh?|mm?|ss?)\]$`)
	timedeltaRE = regexp.MustCompile(`(?i)\[hh?\]|\[mm?\]|\[ss?\]`)
)

// openpyxlColorError is what openpyxl gives for the rgb of a theme or
// indexed colour.
const openpyxlColorError = "Values must be of type <class 'str'>"

// colorRGB is openpyxl's Color.rgb.
func colorRGB(c *Node) any {
	if c == nil {
		return nil
	}
	if _, ok := c.Attr["indexed"]; ok {
		return openpyxlColorError
	}
	if _, ok := c.Attr["theme"]; ok {
		return openpyxlColorError
	}
	if _, ok := c.Attr["auto"]; ok {
		if _, hasRGB := c.Attr["rgb"]; !hasRGB {
			return openpyxlColorError
		}
	}
	if v, ok := c.Attr["rgb"]; ok {
		return v
	}
	return "00000000"
}

// xmlBool reads an OOXML boolean element (val defaults to true).
func xmlBool(n *Node) any {
	if n == nil {
		return nil
	}
	v, ok := n.Attr["val"]
	if !ok {
		return true
	}
	switch strings.ToLower(v) {
	case "0", "false", "off", "none":
		return false
	}
	return true
}

// CellStyle is OSWorld's _read_cell_style for a plain cell (the
// differential styles of conditional formats are not read).
func (b *Book) CellStyle(prop string, s *Sheet, row, col int) (any, error) {
	c := s.Cells[[2]int{row, col}]
	st := b.styles
	style := 0
	hasValue := false
	if c != nil {
		style = c.Style
		hasValue = c.HasV || c.HasF || c.Inline != ""
	}
	xf := st.xf(style)
	font := st.part(st.fonts, xf, "fontId")
	fill := st.part(st.fills, xf, "fillId")
	switch prop {
	case "number_format":
		if !hasValue || c.HasF || !(c.Type == "" || c.Type == "n") {
			return nil, nil
		}
		return st.numFmt(style), nil
	case "font_name", "font_family", "font_color", "font_bold", "font_italic", "font_underline", "font_size":
		if !hasValue {
			return nil, nil
		}
		switch prop {
		case "font_name":
			if n := font.Child("name"); n != nil {
				return n.Attr["val"], nil
			}
			return nil, nil
		case "font_family":
			if n := font.Child("family"); n != nil {
				f, err := strconv.ParseFloat(n.Attr["val"], 64)
				if err == nil {
					return f, nil
				}
			}
			return nil, nil
		case "font_color":
			return colorRGB(font.Child("color")), nil
		case "font_bold", "font_italic":
			// openpyxl's Font reads an absent b or i as False.
			el := "b"
			if prop == "font_italic" {
				el = "i"
			}
			if v := xmlBool(font.Child(el)); v != nil {
				return v, nil
			}
			return false, nil
		case "font_underline":
			u := font.Child("u")
			if u == nil {
				return nil, nil
			}
			if v, ok := u.Attr["val"]; ok {
				if v == "none" {
					return nil, nil
				}
				return v, nil
			}
			return "single", nil
		case "font_size":
			if n := font.Child("sz"); n != nil {
				f, err := strconv.ParseFloat(n.Attr["val"], 64)
				if err == nil {
					return f, nil
				}
			}
			return nil, nil
		}
	case "fill_type", "bgcolor", "fgcolor":
		if fill == nil {
			return nil, nil
		}
		var inner *Node
		if len(fill.Children) > 0 {
			inner = fill.Children[0]
		}
		if inner == nil {
			return nil, nil
		}
		switch prop {
		case "fill_type":
			return inner.Name, nil
		case "bgcolor", "fgcolor":
			// OSWorld reads both as the cell fill's foreground colour
			// (fill.fgColor.rgb; the background colour only for the
			// differential styles of conditional formats).
			if inner.Name != "patternFill" {
				return nil, nil
			}
			if n := inner.Child("fgColor"); n != nil {
				return colorRGB(n), nil
			}
			return "00000000", nil
		}
	case "merge":
		// openpyxl's MergedCell: inside a merged range, not its top-left
		// cell.
		for _, m := range s.Root.Path("mergeCells").ChildrenNamed("mergeCell") {
			rs, err := ParseRanges(m.Attr["ref"])
			if err != nil || len(rs) != 1 {
				continue
			}
			r := rs[0]
			if col >= r.MinCol && col <= r.MaxCol && row >= r.MinRow && row <= r.MaxRow && (col != r.MinCol || row != r.MinRow) {
				return true, nil
			}
		}
		return false, nil
	case "hyperlink":
		if !hasValue {
			return nil, nil
		}
		ref := ColName(col) + strconv.Itoa(row)
		for _, h := range s.Root.Path("hyperlinks").ChildrenNamed("hyperlink") {
			if strings.EqualFold(h.Attr["ref"], ref) {
				if t, ok := b.pk.RelTarget(s.part, h.Attr["id"]); ok {
					return t, nil
				}
				rels, _ := b.pk.Rels(s.part)
				for _, r := range rels {
					if r.ID == h.Attr["id"] {
						return r.Target, nil
					}
				}
				return h.Attr["location"], nil
			}
		}
		return "", nil
	}
	return nil, fmt.Errorf("style %q not supported (want number_format, font_name, font_family, font_color, font_bold, font_italic, font_underline, font_size, fill_type, bgcolor, fgcolor, hyperlink or merge)", prop)
}

// roundHalfEven rounds as numpy's round does: scale, round half to even,
// unscale.
func roundHalfEven(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	y := math.RoundToEven(x*p) / p
	if math.IsInf(y, 0) || math.IsNaN(y) {
		return x
	}
	return y
}
