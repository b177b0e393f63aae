package office

import (
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
)

// FreezeKey is OSWorld's _freeze_compare_key: ("none",) without a pane;
// ("frozen", xSplit, ySplit) for a frozen pane (state frozen or
// frozenSplit, any case); ("other", xSplit, ySplit, topLeftCell) for any
// other pane (openpyxl's state defaults to split). The splits are
// Python's int() of openpyxl's floats, 0 when absent.
func FreezeKey(s *Sheet) []any {
	pane := s.Root.Path("sheetViews", "sheetView", "pane")
	if pane == nil {
		return []any{"none"}
	}
	split := func(k string) any {
		f, err := strconv.ParseFloat(strings.TrimSpace(pane.Attr[k]), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return py.IntNumber(0)
		}
		return json.Number(strconv.FormatFloat(math.Trunc(f), 'f', 0, 64))
	}
	state, ok := pane.Attr["state"]
	if !ok {
		state = "split"
	}
	if st := strings.ToLower(state); st == "frozen" || st == "frozensplit" {
		return []any{"frozen", split("xSplit"), split("ySplit")}
	}
	var tl any
	if v, ok := pane.Attr["topLeftCell"]; ok {
		tl = v
	}
	return []any{"other", split("xSplit"), split("ySplit"), tl}
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
		// openpyxl reads an absent boolean as None
		v, ok := dv.Attr[attr]
		if !ok {
			return nil
		}
		return v == "1" || strings.EqualFold(v, "true")
	case "str":
		// openpyxl leaves an absent attribute None (errorStyle
		// included, though the schema's default is stop).
		if v, ok := dv.Attr[attr]; ok {
			return v
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
