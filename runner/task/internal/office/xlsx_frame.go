package office

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
)

// Frame is the DataFrame pandas' read_excel gives: the first
// non-blank row as header, the later non-blank rows as data.
type Frame struct {
	header []any
	Cols   [][]any
	Kinds  []string
}

// LoadFrame reads sheet s as pandas' read_excel does; float columns are
// rounded to precision digits, or not at all when precision < 0.
func LoadFrame(b *Book, s *Sheet, precision int, ignoreCase bool) (*Frame, error) {
	if s.maxRow*s.maxCol > maxFrameCells && len(s.order) > 0 {
		// the used area, not the cell count, decides the frame's size
		minR, minC := s.maxRow, s.maxCol
		for _, c := range s.order {
			minR, minC = min(minR, c.Row), min(minC, c.Col)
		}
		if (s.maxRow-minR+1)*s.maxCol > maxFrameCells {
			return nil, fmt.Errorf("sheet of %d rows and %d columns is too large", s.maxRow-minR+1, s.maxCol)
		}
	}
	type rowT []any
	var rows []rowT
	var dates []map[int]bool
	byRow := map[int][]*Cell{}
	for _, c := range s.order {
		byRow[c.Row] = append(byRow[c.Row], c)
	}
	rowNos := make([]int, 0, len(byRow))
	for r := range byRow {
		rowNos = append(rowNos, r)
	}
	sort.Ints(rowNos)
	width := 0
	for _, rn := range rowNos {
		var row rowT
		dm := map[int]bool{}
		for _, c := range byRow[rn] {
			v, isDate := b.CachedValue(c)
			if v == nil {
				continue
			}
			if str, ok := v.(string); ok && ignoreCase {
				v = strings.ToLower(str)
			}
			for len(row) < c.Col {
				row = append(row, nil)
			}
			row[c.Col-1] = v
			dm[c.Col-1] = isDate
		}
		if len(row) == 0 {
			continue // pandas skips blank lines
		}
		width = max(width, len(row))
		rows = append(rows, row)
		dates = append(dates, dm)
	}
	fr := &Frame{}
	if len(rows) == 0 {
		return fr, nil
	}
	fr.header = make([]any, width)
	seen := map[string]int{}
	for i := 0; i < width; i++ {
		var h any
		if i < len(rows[0]) {
			h = normCell(rows[0][i])
		}
		if h == nil {
			h = fmt.Sprintf("Unnamed: %d", i)
		}
		key := py.Repr(h)
		if n, dup := seen[key]; dup {
			seen[key] = n + 1
			h = fmt.Sprintf("%s.%d", py.Str(h), n+1)
		} else {
			seen[key] = 0
		}
		fr.header[i] = h
	}
	fr.Cols = make([][]any, width)
	fr.Kinds = make([]string, width)
	for c := 0; c < width; c++ {
		col := make([]any, len(rows)-1)
		kind := ""
		hasNaN := false
		for i, row := range rows[1:] {
			var v any
			if c < len(row) {
				v = normCell(row[c])
			}
			col[i] = v
			k := ""
			switch x := v.(type) {
			case nil:
				hasNaN = true
				continue
			case int64:
				k = "int"
			case float64:
				k = "float"
				_ = x
			case bool:
				k = "bool"
			default:
				k = "object"
			}
			if dates[i+1][c] {
				k = "datetime"
			}
			switch {
			case kind == "":
				kind = k
			case kind == k:
			case (kind == "int" && k == "float") || (kind == "float" && k == "int"):
				kind = "float"
			default:
				kind = "object"
			}
		}
		if kind == "" {
			kind = "float" // all NaN
		}
		if hasNaN && kind == "int" {
			kind = "float"
		}
		if hasNaN && kind == "bool" {
			kind = "object"
		}
		for i, v := range col {
			switch kind {
			case "float":
				switch x := v.(type) {
				case int64:
					col[i] = float64(x)
					if precision >= 0 {
						col[i] = roundHalfEven(float64(x), precision)
					}
				case float64:
					if precision >= 0 {
						col[i] = roundHalfEven(x, precision)
					}
				}
			case "int":
				// round keeps integers as they are
			}
		}
		fr.Cols[c] = col
		fr.Kinds[c] = kind
	}
	return fr, nil
}

// normCell turns whole floats into integers, as pandas' openpyxl reader
// does.
func normCell(v any) any {
	if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return v
}

func cellEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	fa, ok1 := CellFloat(a)
	fb, ok2 := CellFloat(b)
	if !ok1 || !ok2 {
		return false
	}
	return fa == fb || (math.IsNaN(fa) && math.IsNaN(fb))
}

func CellFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func cellRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "NaN"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return py.Float(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return py.Repr(x)
	}
	return fmt.Sprint(v)
}

// FramesEqual is DataFrame.equals: same shape, labels, column kinds and
// values (NaN equal to NaN).
func FramesEqual(a, b *Frame) (bool, string) {
	if len(a.header) != len(b.header) {
		return false, fmt.Sprintf("%d columns, want %d", len(a.header), len(b.header))
	}
	if len(a.Cols) > 0 && len(b.Cols) > 0 && len(a.Cols[0]) != len(b.Cols[0]) {
		return false, fmt.Sprintf("%d rows, want %d", len(a.Cols[0]), len(b.Cols[0]))
	}
	for i := range a.header {
		if !cellEqual(normCell(a.header[i]), normCell(b.header[i])) {
			return false, fmt.Sprintf("column %d is named %s, want %s", i+1, cellRepr(a.header[i]), cellRepr(b.header[i]))
		}
	}
	for c := range a.Cols {
		if a.Kinds[c] != b.Kinds[c] {
			return false, fmt.Sprintf("column %s holds %s values, want %s", cellRepr(a.header[c]), a.Kinds[c], b.Kinds[c])
		}
		for r := range a.Cols[c] {
			if !cellEqual(a.Cols[c][r], b.Cols[c][r]) {
				return false, fmt.Sprintf("column %s, data row %d: %s, want %s", cellRepr(a.header[c]), r+1, py.Truncate(cellRepr(a.Cols[c][r]), 100), py.Truncate(cellRepr(b.Cols[c][r]), 100))
			}
		}
	}
	return true, ""
}

func FreezePanes(s *Sheet) any {
	pane := s.Root.Path("sheetViews", "sheetView", "pane")
	if pane == nil {
		return nil
	}
	if v, ok := pane.Attr["topLeftCell"]; ok {
		return v
	}
	return nil
}

// DvValue is openpyxl's attribute of a DataValidation.
func DvValue(dv *Node, attr string) any {
	switch attr {
	case "ranges", "sqref":
		return dv.Attr["sqref"]
	case "formula1", "formula2":
		if n := dv.Child(attr); n != nil {
			return n.Text
		}
		return nil
	}
	switch DVAttrs[attr] {
	case "bool":
		v, ok := dv.Attr[attr]
		return ok && (v == "1" || strings.EqualFold(v, "true"))
	case "str":
		if v, ok := dv.Attr[attr]; ok {
			return v
		}
		if attr == "errorStyle" {
			return "stop"
		}
		return nil
	}
	return nil
}

// LoadDims is OSWorld's load_rows_or_cols on the XML: the rows (or
// column groups) with attributes, each with the requested properties.
func LoadDims(s *Sheet, obj string, r map[string]any) (any, error) {
	props := map[string]bool{}
	if l, ok := r["props"].([]any); ok {
		for _, p := range l {
			props[py.Str(p)] = true
		}
	}
	out := map[string]any{}
	get := func(n *Node, prop string) any {
		switch prop {
		case "hidden", "collapsed", "customHeight", "customWidth", "bestFit":
			v := n.Attr[prop]
			return v == "1" || strings.EqualFold(v, "true")
		case "auto_size":
			v := n.Attr["bestFit"]
			return v == "1" || strings.EqualFold(v, "true")
		case "height":
			if v, ok := n.Attr["ht"]; ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					return f
				}
			}
			return nil
		case "width":
			if v, ok := n.Attr["width"]; ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					return f
				}
			}
			return 13.0
		case "min", "max", "outlineLevel":
			if v, ok := n.Attr[prop]; ok {
				if i, err := strconv.Atoi(v); err == nil {
					return py.IntNumber(i)
				}
			}
			if prop == "outlineLevel" {
				return py.IntNumber(0)
			}
			return nil
		}
		return nil
	}
	if obj == "row" {
		rowNo := 0
		for _, row := range s.Root.Path("sheetData").ChildrenNamed("row") {
			if n, err := strconv.Atoi(row.Attr["r"]); err == nil {
				rowNo = n
			} else {
				rowNo++
			}
			relevant := false
			for k := range row.Attr {
				if k != "r" && k != "spans" && k != "dyDescent" {
					relevant = true
				}
			}
			if !relevant {
				continue
			}
			info := map[string]any{}
			for p := range props {
				info[p] = get(row, p)
			}
			out[strconv.Itoa(rowNo)] = info
		}
		return out, nil
	}
	for _, c := range s.Root.Path("cols").ChildrenNamed("col") {
		mn, _ := strconv.Atoi(c.Attr["min"])
		info := map[string]any{}
		for p := range props {
			info[p] = get(c, p)
		}
		out[ColName(mn)] = info
	}
	return out, nil
}

func LoadFilter(s *Sheet) any {
	af := s.Root.Child("autoFilter")
	out := map[string]any{}
	if af == nil {
		out["ref"] = nil
		out["filter_column"] = []any{}
		return out
	}
	if v, ok := af.Attr["ref"]; ok {
		out["ref"] = v
	} else {
		out["ref"] = nil
	}
	var cols []map[string]any
	for _, fc := range af.ChildrenNamed("filterColumn") {
		m := map[string]any{}
		id, _ := strconv.Atoi(fc.Attr["colId"])
		m["col_id"] = py.IntNumber(id)
		m["hidden_button"] = fc.Attr["hiddenButton"] == "1" || fc.Attr["hiddenButton"] == "true"
		m["show_button"] = fc.Attr["showButton"] != "0" && fc.Attr["showButton"] != "false"
		if f := fc.Child("filters"); f != nil {
			m["filters_blank"] = f.Attr["blank"] == "1" || f.Attr["blank"] == "true"
			vals := map[string]bool{}
			for _, x := range f.ChildrenNamed("filter") {
				vals[x.Attr["val"]] = true
			}
			m["filters"] = SortedSet(vals)
		}
		if cf := fc.Child("customFilters"); cf != nil {
			m["custom_filters_op"] = cf.Attr["and"] == "1" || cf.Attr["and"] == "true"
			vals := map[string]bool{}
			for _, x := range cf.ChildrenNamed("customFilter") {
				op := x.Attr["operator"]
				if op == "" {
					op = "equal"
				}
				vals[op+"\x00"+x.Attr["val"]] = true
			}
			m["custom_filters"] = SortedSet(vals)
		}
		cols = append(cols, m)
	}
	sort.SliceStable(cols, func(i, j int) bool {
		a, _ := py.AsInt(cols[i]["col_id"])
		b, _ := py.AsInt(cols[j]["col_id"])
		return a < b
	})
	list := make([]any, len(cols))
	for i, c := range cols {
		list[i] = c
	}
	out["filter_column"] = list
	if ss := af.Child("sortState"); ss != nil {
		st := map[string]any{
			"sort":   ss.Attr["columnSort"] == "1" || ss.Attr["columnSort"] == "true",
			"case":   ss.Attr["caseSensitive"] == "1" || ss.Attr["caseSensitive"] == "true",
			"method": ss.Attr["sortMethod"],
			"ref":    ss.Attr["ref"],
		}
		var conds []any
		for _, c := range ss.ChildrenNamed("sortCondition") {
			conds = append(conds, map[string]any{
				"descending": c.Attr["descending"] == "1" || c.Attr["descending"] == "true",
				"key":        c.Attr["sortBy"], "ref": c.Attr["ref"], "custom_list": c.Attr["customList"],
				"dxf_id": c.Attr["dxfId"], "icon": c.Attr["iconSet"], "iconid": c.Attr["iconId"],
			})
		}
		st["condition"] = conds
		out["sort_state"] = st
	}
	return out
}

// SortedSet represents a Python set as a sorted list, so that two sets
// compare with py.Equal.
func SortedSet(m map[string]bool) []any {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return out
}

// LoadStyles is OSWorld's load_xlsx_styles without conditional formats:
// for every cell of the used area, the listed style properties.
func LoadStyles(b *Book, s *Sheet, r map[string]any) (any, error) {
	props, _ := r["props"].([]any)
	out := map[string]any{}
	if s.maxRow*s.maxCol > 1<<20 {
		return nil, errors.New("sheet too large for a style comparison")
	}
	for row := 1; row <= s.maxRow; row++ {
		for col := 1; col <= s.maxCol; col++ {
			list := make([]any, len(props))
			for i, p := range props {
				v, err := b.CellStyle(py.Str(p), s, row, col)
				if err != nil {
					return nil, err
				}
				if f, ok := v.(float64); ok {
					v = FloatNumber(f)
				}
				list[i] = v
			}
			out[ColName(col)+strconv.Itoa(row)] = list
		}
	}
	return out, nil
}

// ActiveSheet is the workbook's active sheet (bookViews activeTab).
func (b *Book) ActiveSheet() string {
	wb, err := b.pk.XML(b.wbPart)
	if err == nil {
		if v, ok := wb.Path("bookViews", "workbookView").Attribute("activeTab"); ok {
			if i, err := strconv.Atoi(v); err == nil && i >= 0 && i < len(b.Names) {
				return b.Names[i]
			}
		}
	}
	return b.Names[0]
}

// FloatNumber gives a float the JSON model's form (a Python float).
func FloatNumber(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return json.Number(s)
}

// maxFrameCells bounds the dense frame sheet_data builds.
const maxFrameCells = 1 << 24

var DVAttrs = map[string]string{
	"allowBlank": "bool", "showDropDown": "bool", "showInputMessage": "bool", "showErrorMessage": "bool",
	"type": "str", "operator": "str", "error": "str", "errorTitle": "str", "errorStyle": "str",
	"prompt": "str", "promptTitle": "str", "imeMode": "str",
}
