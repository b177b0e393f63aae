package metric

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/office"
)

// Spreadsheet metrics: compare_table (OSWorld's rules sheet_name,
// sheet_data, sheet_print, sheet_fuzzy, chart, pivot_table, style,
// freeze, zoom, data_validation, row_props, col_props, filter and
// check_cell) and compare_conference_city_in_order.

var tableRuleKeys = map[string][]string{
	"sheet_name":      nil,
	"sheet_data":      {"sheet_idx0", "sheet_idx1"},
	"sheet_print":     {"sheet_idx0", "sheet_idx1"},
	"sheet_fuzzy":     {"sheet_idx0", "sheet_idx1", "rules"},
	"chart":           {"sheet_idx0", "sheet_idx1"},
	"pivot_table":     {"sheet_idx0", "sheet_idx1"},
	"style":           {"sheet_idx0", "sheet_idx1"},
	"freeze":          {"sheet_idx0", "sheet_idx1"},
	"zoom":            {"sheet_idx", "method", "ref"},
	"data_validation": {"sheet_idx", "dv_props"},
	"row_props":       {"sheet_idx0", "sheet_idx1"},
	"col_props":       {"sheet_idx0", "sheet_idx1"},
	"filter":          {"sheet_idx0", "sheet_idx1"},
	"check_cell":      {"sheet_idx", "coordinate", "props"},
}

func checkTableOptions(opts map[string]any) error {
	rules, ok := opts["rules"].([]any)
	if !ok {
		return fmt.Errorf("rules: want a list of rules, got %s", py.TypeName(opts["rules"]))
	}
	for i, e := range rules {
		r, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("rules[%d]: want an object, got %s", i, py.TypeName(e))
		}
		t, _ := r["type"].(string)
		keys, ok := tableRuleKeys[t]
		if !ok {
			return fmt.Errorf("rules[%d].type: %s not supported", i, py.Repr(r["type"]))
		}
		for _, k := range keys {
			if _, ok := r[k]; !ok {
				return fmt.Errorf("rules[%d].%s: required by %s", i, k, t)
			}
		}
		for _, k := range []string{"sheet_idx", "sheet_idx0", "sheet_idx1"} {
			if v, ok := r[k]; ok {
				if err := checkSheetIdx(v); err != nil {
					return fmt.Errorf("rules[%d].%s: %w", i, k, err)
				}
			}
		}
		if t == "check_cell" {
			if _, _, err := office.SplitCellRef(fmt.Sprint(r["coordinate"])); err != nil {
				return fmt.Errorf("rules[%d].coordinate: %w", i, err)
			}
			props, ok := r["props"].(map[string]any)
			if !ok {
				return fmt.Errorf("rules[%d].props: want an object, got %s", i, py.TypeName(r["props"]))
			}
			for k, v := range props {
				m, ok := v.(map[string]any)
				if !ok {
					return fmt.Errorf("rules[%d].props.%s: want {method, ref}", i, k)
				}
				if err := checkTableValueRule(m); err != nil {
					return fmt.Errorf("rules[%d].props.%s: %w", i, k, err)
				}
			}
		}
		if t == "sheet_fuzzy" {
			list, ok := r["rules"].([]any)
			if !ok {
				return fmt.Errorf("rules[%d].rules: want a list, got %s", i, py.TypeName(r["rules"]))
			}
			for j, e := range list {
				m, ok := e.(map[string]any)
				if !ok {
					return fmt.Errorf("rules[%d].rules[%d]: want an object", i, j)
				}
				switch m["type"] {
				case "includes", "included_by", "fuzzy_match", "exact_match":
				default:
					return fmt.Errorf("rules[%d].rules[%d].type: want includes, included_by, fuzzy_match or exact_match, got %s", i, j, py.Repr(m["type"]))
				}
				if _, err := fuzzyRanges(m["range"]); err != nil {
					return fmt.Errorf("rules[%d].rules[%d].range: %w", i, j, err)
				}
			}
		}
		if t == "zoom" {
			if err := checkTableValueRule(r); err != nil {
				return fmt.Errorf("rules[%d]: %w", i, err)
			}
		}
	}
	return nil
}

func checkTableValueRule(m map[string]any) error {
	if m["method"] == "spreadsheet_range" {
		l, ok := m["ref"].([]any)
		if !ok || len(l) != 2 {
			return errors.New("ref: want [subset, superset] for spreadsheet_range")
		}
		return nil
	}
	return checkValueRule(m)
}

func checkSheetIdx(v any) error {
	if s, ok := v.(string); ok {
		if len(s) >= 2 && (s[:2] == "RI" || s[:2] == "RN" || s[:2] == "EI" || s[:2] == "EN") {
			return nil
		}
		return fmt.Errorf("%q: want an index or RI<n>, RN<name>, EI<n>, EN<name>", s)
	}
	if _, ok := py.AsInt(v); ok {
		return nil
	}
	return fmt.Errorf("want an index or a string, got %s", py.TypeName(v))
}

// tableSide is one of the two workbooks of compare_table.
type tableSide struct {
	path string
	book *office.Book
}

type tableRun struct {
	res, exp *tableSide
}

// sheetRef is OSWorld's _parse_sheet_idx: which book and which sheet
// name ("" when the index is out of range).
func (tr *tableRun) sheetRef(idx any) (*tableSide, string, error) {
	if i, ok := py.AsInt(idx); ok && py.TypeName(idx) == "number" {
		return tr.res, pyIndex(tr.res.book.Names, i), nil
	}
	s, _ := idx.(string)
	if len(s) < 2 {
		return nil, "", fmt.Errorf("sheet index %s not recognised", py.Repr(idx))
	}
	var side *tableSide
	switch s[0] {
	case 'R':
		side = tr.res
	case 'E':
		side = tr.exp
	}
	if side == nil || side.book == nil {
		return nil, "", fmt.Errorf("sheet index %s: no expected workbook", py.Repr(idx))
	}
	switch s[1] {
	case 'I':
		i, err := strconv.Atoi(s[2:])
		if err != nil {
			return side, "", nil
		}
		return side, pyIndex(side.book.Names, i), nil
	case 'N':
		return side, s[2:], nil
	}
	return nil, "", fmt.Errorf("sheet index %s not recognised", py.Repr(idx))
}

func pyIndex(names []string, i int) string {
	if i < 0 {
		i += len(names)
	}
	if i < 0 || i >= len(names) {
		return ""
	}
	return names[i]
}

func (tr *tableRun) loadSheet(idx any) (*tableSide, *office.Sheet, string, error) {
	side, name, err := tr.sheetRef(idx)
	if err != nil {
		return nil, nil, "", err
	}
	s, err := side.book.Sheet(name)
	if err != nil {
		return side, nil, name, err
	}
	return side, s, name, nil
}

// compareTable implements OSWorld's compare_table
// (desktop_env/evaluators/metrics/table.py).
func compareTable(ctx context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	rp, ok := result.(string)
	if !ok {
		return 0, fmt.Sprintf("result: want an xlsx file path, got %s", py.TypeName(result)), nil
	}
	rb, err := office.OpenXLSX(rp)
	if err == nil {
		err = rb.OpenpyxlLoad()
	}
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	tr := &tableRun{res: &tableSide{path: rp, book: rb}, exp: &tableSide{}}
	if expected != nil {
		ep, ok := expected.(string)
		if !ok {
			return 0, fmt.Sprintf("expected: want an xlsx file path, got %s", py.TypeName(expected)), nil
		}
		eb, err := office.OpenXLSX(ep)
		if err == nil {
			err = eb.OpenpyxlLoad()
		}
		if err != nil {
			return 0, "expected: " + err.Error(), nil
		}
		tr.exp = &tableSide{path: ep, book: eb}
	}
	rules, _ := opts["rules"].([]any)
	for i, e := range rules {
		if err := ctx.Err(); err != nil {
			return 0, "", err
		}
		r, _ := e.(map[string]any)
		ok, why, err := tr.rule(r)
		if err != nil {
			return 0, fmt.Sprintf("rule %d (%s): %v", i, r["type"], err), nil
		}
		if !ok {
			return 0, fmt.Sprintf("rule %d (%s): %s", i, r["type"], why), nil
		}
	}
	return 1, "", nil
}

func (tr *tableRun) rule(r map[string]any) (bool, string, error) {
	t, _ := r["type"].(string)
	switch t {
	case "sheet_name":
		if tr.exp.book == nil {
			return false, "no expected workbook", nil
		}
		if strings.Join(tr.res.book.Names, "\x00") == strings.Join(tr.exp.book.Names, "\x00") && len(tr.res.book.Names) == len(tr.exp.book.Names) {
			return true, "", nil
		}
		return false, fmt.Sprintf("sheets %q, want %q", tr.res.book.Names, tr.exp.book.Names), nil
	case "sheet_data":
		return tr.sheetData(r)
	case "sheet_print":
		return tr.sheetPrint(r)
	case "sheet_fuzzy":
		return tr.sheetFuzzy(r)
	case "chart":
		return tr.pairCompare(r, "charts", func(side *tableSide, s *office.Sheet) (any, error) { return office.LoadCharts(side.book, s, r) })
	case "pivot_table":
		return tr.pairCompare(r, "pivot tables", func(side *tableSide, s *office.Sheet) (any, error) { return office.LoadPivots(side.book, s, r) })
	case "style":
		return tr.pairCompare(r, "styles", func(side *tableSide, s *office.Sheet) (any, error) { return office.LoadStyles(side.book, s, r) })
	case "row_props":
		return tr.pairCompare(r, "rows", func(side *tableSide, s *office.Sheet) (any, error) { return office.LoadDims(s, "row", r) })
	case "col_props":
		return tr.pairCompare(r, "columns", func(side *tableSide, s *office.Sheet) (any, error) { return office.LoadDims(s, "col", r) })
	case "filter":
		return tr.pairCompare(r, "filters", func(side *tableSide, s *office.Sheet) (any, error) { return office.LoadFilter(s), nil })
	case "freeze":
		_, s1, _, err := tr.loadSheet(r["sheet_idx0"])
		if err != nil {
			return false, "", err
		}
		_, s2, _, err := tr.loadSheet(r["sheet_idx1"])
		if err != nil {
			return false, "", err
		}
		f1, f2 := office.FreezeKey(s1), office.FreezeKey(s2)
		if py.Equal(f1, f2) {
			return true, "", nil
		}
		return false, fmt.Sprintf("frozen at %s, want %s", py.Repr(f1), py.Repr(f2)), nil
	case "zoom":
		_, s, _, err := tr.loadSheet(r["sheet_idx"])
		if err != nil {
			return false, "", err
		}
		z := 100.0
		if v, ok := s.Root.Path("sheetViews", "sheetView").Attribute("zoomScale"); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f != 0 {
				z = f
			}
		}
		if tableMatchRule(z, r) {
			return true, "", nil
		}
		return false, fmt.Sprintf("zoom %v does not match %v %s", z, r["method"], py.Repr(r["ref"])), nil
	case "data_validation":
		return tr.dataValidation(r)
	case "check_cell":
		return tr.checkCell(r)
	}
	return false, "", fmt.Errorf("rule type %q not supported", t)
}

// pairCompare loads a property of both sheets and compares them.
func (tr *tableRun) pairCompare(r map[string]any, what string, load func(*tableSide, *office.Sheet) (any, error)) (bool, string, error) {
	var vals [2]any
	for i, k := range []string{"sheet_idx0", "sheet_idx1"} {
		side, name, err := tr.sheetRef(r[k])
		if err != nil {
			return false, "", err
		}
		s, err := side.book.Sheet(name)
		if err != nil {
			// openpyxl's loaders give {} for a sheet that is not there.
			vals[i] = map[string]any{}
			continue
		}
		v, err := load(side, s)
		if err != nil {
			return false, "", err
		}
		vals[i] = v
	}
	if py.Equal(vals[0], vals[1]) {
		return true, "", nil
	}
	return false, fmt.Sprintf("%s differ: %s vs %s", what, py.Truncate(py.Repr(vals[0]), 300), py.Truncate(py.Repr(vals[1]), 300)), nil
}

// tableMatchRule is _match_value_to_rule with spreadsheet_range.
func tableMatchRule(value any, r map[string]any) bool {
	if r["method"] == "spreadsheet_range" {
		refs, _ := r["ref"].([]any)
		if len(refs) != 2 {
			return false
		}
		sub, err1 := office.ParseRanges(fmt.Sprint(refs[0]))
		sup, err2 := office.ParseRanges(fmt.Sprint(refs[1]))
		v, err3 := office.ParseRanges(fmt.Sprint(value))
		if err1 != nil || err2 != nil || err3 != nil {
			return false
		}
		return rangesWithin(sub, v) && rangesWithin(v, sup)
	}
	if f, ok := value.(float64); ok {
		value = office.FloatNumber(f)
	}
	return matchValueRule(value, r)
}

func rangesWithin(sub, sup []office.CellRange) bool {
	for _, a := range sub {
		found := false
		for _, b := range sup {
			if a.Within(b) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (tr *tableRun) sheetData(r map[string]any) (bool, string, error) {
	precision := 4
	if p, ok := r["precision"]; ok {
		n, ok := py.AsInt(p)
		if !ok {
			return false, "", fmt.Errorf("precision: want an integer, got %s", py.Repr(p))
		}
		precision = n
	}
	// OSWorld's sheet_data has no ignore_case (tasks pass one; it is
	// not read).
	const ignoreCase = false
	var frames [2]*office.Frame
	for i, k := range []string{"sheet_idx0", "sheet_idx1"} {
		side, s, name, err := tr.loadSheet(r[k])
		if err != nil {
			if side != nil {
				return false, fmt.Sprintf("%s: no sheet %q", k, name), nil
			}
			return false, "", err
		}
		if frames[i], err = office.LoadFrame(side.book, s, precision, ignoreCase); err != nil {
			return false, k + ": " + err.Error(), nil
		}
	}
	ok, why := office.FramesEqual(frames[0], frames[1])
	return ok, why, nil
}

// printedLines reads the CSV export of a sheet next to the workbook
// (<book>-<sheet>.csv), stripped lines in reverse order without the
// trailing blank ones, as OSWorld's _load_sheet does (through
// _safe_read_file: UTF-8, else Latin-1).
func printedLines(book, sheet string) ([]string, error) {
	p := strings.TrimSuffix(book, filepath.Ext(book)) + "-" + sheet + ".csv"
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(p), errors.Unwrap(err))
	}
	text := py.UniversalNewlines(string(data))
	if !utf8.Valid(data) {
		text = py.UniversalNewlines(latin1(data))
	}
	lines := py.SplitLines(text)
	var out []string
	started := false
	for i := len(lines) - 1; i >= 0; i-- {
		l := py.Strip(lines[i])
		if !started && l == "" {
			continue
		}
		started = true
		out = append(out, l)
	}
	return out, nil
}

func (tr *tableRun) sheetPrint(r map[string]any) (bool, string, error) {
	var lines [2][]string
	for i, k := range []string{"sheet_idx0", "sheet_idx1"} {
		side, name, err := tr.sheetRef(r[k])
		if err != nil {
			return false, "", err
		}
		l, err := printedLines(side.path, name)
		if err != nil {
			return false, k + ": " + err.Error(), nil
		}
		if py.Truthy(r["ignore_case"]) {
			for j := range l {
				l[j] = py.Lower(l[j])
			}
		}
		lines[i] = l
	}
	if len(lines[0]) != len(lines[1]) {
		return false, fmt.Sprintf("%d printed lines, want %d", len(lines[0]), len(lines[1])), nil
	}
	n := len(lines[0])
	for j := range lines[0] {
		if lines[0][j] != lines[1][j] {
			return false, fmt.Sprintf("printed line %d: %q, want %q", n-j, py.Truncate(lines[0][j], 100), py.Truncate(lines[1][j], 100)), nil
		}
	}
	return true, "", nil
}

func fuzzyRanges(v any) ([]office.CellRange, error) {
	var parts []string
	switch x := v.(type) {
	case string:
		parts = []string{x}
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("want range strings, got %s", py.TypeName(e))
			}
			// MultiCellRange takes each item of a list as one CellRange
			if s != strings.Join(strings.Fields(s), "") {
				return nil, fmt.Errorf("%q: not one range (openpyxl's CellRange refuses it)", s)
			}
			parts = append(parts, s)
		}
	default:
		return nil, fmt.Errorf("want a range or a list of ranges, got %s", py.TypeName(v))
	}
	rs, err := office.ParseRanges(strings.Join(parts, " "))
	if err != nil {
		return nil, err
	}
	total := 0
	for _, r := range rs {
		total += r.Cells()
		if total > 1<<20 {
			return nil, errors.New("more than a million cells")
		}
	}
	return rs, nil
}

// stripChars is Python's str.lstrip/rstrip with a set of characters.
func stripChars(s, chars string, left bool) string {
	if left {
		return strings.TrimLeft(s, chars)
	}
	return strings.TrimRight(s, chars)
}

func (tr *tableRun) sheetFuzzy(r map[string]any) (bool, string, error) {
	var sides [2]*tableSide
	var names [2]string
	for i, k := range []string{"sheet_idx0", "sheet_idx1"} {
		side, name, err := tr.sheetRef(r[k])
		if err != nil {
			return false, "", err
		}
		sides[i], names[i] = side, name
	}
	rules, _ := r["rules"].([]any)
	for _, e := range rules {
		rl, _ := e.(map[string]any)
		rs, err := fuzzyRanges(rl["range"])
		if err != nil {
			return false, "", err
		}
		for _, rg := range rs {
			for row := rg.MinRow; row <= rg.MaxRow; row++ {
				for col := rg.MinCol; col <= rg.MaxCol; col++ {
					var vals [2]string
					for i := range vals {
						v, err := sides[i].book.ReadCellValueAt(names[i], row, col)
						if err != nil {
							return false, "", fmt.Errorf("%s%d: %w", office.ColName(col), row, err)
						}
						vals[i] = pyStrValue(v)
					}
					v1, v2 := vals[0], vals[1]
					if norms, ok := rl["normalization"].([]any); ok {
						for _, n := range norms {
							pair, _ := n.([]any)
							if len(pair) == 2 {
								a, b := py.Str(pair[0]), py.Str(pair[1])
								if a != "" {
									v1 = strings.ReplaceAll(v1, a, b)
									v2 = strings.ReplaceAll(v2, a, b)
								}
							}
						}
					}
					if t, ok := rl["trim_leadings"]; ok {
						v1, v2 = stripChars(v1, py.Str(t), true), stripChars(v2, py.Str(t), true)
					}
					if t, ok := rl["trim_trailings"]; ok {
						v1, v2 = stripChars(v1, py.Str(t), false), stripChars(v2, py.Str(t), false)
					}
					if ic, ok := rl["ignore_chars"]; ok {
						drop := py.Str(ic)
						f := func(s string) string {
							return strings.Map(func(r rune) rune {
								if strings.ContainsRune(drop, r) {
									return -1
								}
								return r
							}, s)
						}
						v1, v2 = f(v1), f(v2)
					}
					if py.Truthy(rl["ignore_case"]) {
						v1, v2 = py.Lower(v1), py.Lower(v2)
					}
					var ok bool
					switch rl["type"] {
					case "includes":
						ok = strings.Contains(v1, v2)
					case "included_by":
						ok = strings.Contains(v2, v1)
					case "fuzzy_match":
						th := 85.0
						if t, has := rl["threshold"]; has {
							if f, isNum := py.Number(t); isNum {
								th = f
							}
						}
						ok = py.FuzzRatio(v1, v2) >= th
					case "exact_match":
						ok = v1 == v2
					}
					if !ok {
						return false, fmt.Sprintf("%s%d: %q vs %q (%v)", office.ColName(col), row, py.Truncate(v1, 100), py.Truncate(v2, 100), rl["type"]), nil
					}
				}
			}
		}
	}
	return true, "", nil
}

// pyStrValue is Python's str() of a cell value.
func pyStrValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case float64:
		return py.Float(x)
	case string:
		return x
	case office.XMLDict:
		return x.Repr()
	case office.XMLList:
		parts := make([]string, len(x))
		for i, e := range x {
			switch y := e.(type) {
			case nil:
				parts[i] = "None"
			case office.XMLDict:
				parts[i] = y.Repr()
			default:
				parts[i] = py.Repr(e)
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func (tr *tableRun) checkCell(r map[string]any) (bool, string, error) {
	side, s, name, err := tr.loadSheet(r["sheet_idx"])
	if err != nil {
		if side != nil {
			return false, fmt.Sprintf("no sheet %q", name), nil
		}
		return false, "", err
	}
	col, row, err := office.SplitCellRef(py.Str(r["coordinate"]))
	if err != nil {
		return false, "", err
	}
	props, _ := r["props"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		rule, _ := props[k].(map[string]any)
		var val any
		if k == "value" {
			// read_cell_value's exceptions are caught here: None
			val, _ = side.book.ReadCellValue(name, py.Str(r["coordinate"]))
		} else {
			val, err = side.book.CellStyle(k, s, row, col)
			if err != nil {
				return false, "", err
			}
		}
		if !tableMatchRule(val, rule) {
			v := val
			if f, ok := v.(float64); ok {
				v = office.FloatNumber(f)
			}
			return false, fmt.Sprintf("%s %s: %s does not match %v %s", py.Str(r["coordinate"]), k, py.Truncate(py.Repr(v), 100), rule["method"], py.Truncate(py.Repr(rule["ref"]), 100)), nil
		}
	}
	return true, "", nil
}

func (tr *tableRun) dataValidation(r map[string]any) (bool, string, error) {
	side, s, name, err := tr.loadSheet(r["sheet_idx"])
	if err != nil {
		if side != nil {
			return false, fmt.Sprintf("no sheet %q", name), nil
		}
		return false, "", err
	}
	dvs := s.Root.Path("dataValidations").ChildrenNamed("dataValidation")
	props, _ := r["dv_props"].([]any)
	if len(dvs) < len(props) {
		return false, fmt.Sprintf("%d data validations, want at least %d", len(dvs), len(props)), nil
	}
	for i, dv := range dvs {
		matched := false
		for _, p := range props {
			pm, _ := p.(map[string]any)
			all := true
			for attr, mr := range pm {
				rule, _ := mr.(map[string]any)
				if !tableMatchRule(office.DvValue(dv, attr), rule) {
					all = false
					break
				}
			}
			if all {
				matched = true
				break
			}
		}
		if !matched {
			return false, fmt.Sprintf("data validation %d (%s) matches none of dv_props", i, dv.Attr["sqref"]), nil
		}
	}
	return true, "", nil
}

// compareConferenceCityInOrder implements OSWorld's
// compare_conference_city_in_order
// (desktop_env/evaluators/metrics/table.py): each of C2:C22 on the active
// sheet must contain, once both are normalised (cityKey), the expected
// city or one of its alternatives, in order.
func compareConferenceCityInOrder(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	want, _ := rules["expected"].([]any)
	b, err := office.OpenXLSX(result)
	if err == nil {
		err = b.OpenpyxlLoad()
	}
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if len(b.Names) == 0 {
		return 0, "result: no sheet", nil
	}
	s, err := b.Sheet(b.ActiveSheet())
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	for i := 0; i < 21; i++ {
		if i >= len(want) {
			return 0, fmt.Sprintf("C%d: no expected city", i+2), nil
		}
		v, _ := b.CachedValue(s.Cells[[2]int{i + 2, 3}])
		got := cityKey(anyValue(v))
		var cands []any
		switch w := want[i].(type) {
		case string:
			cands = []any{w}
		case []any:
			cands = w
		default:
			return 0, fmt.Sprintf("expected[%d]: want a string or a list of strings", i), nil
		}
		found := false
		for _, c := range cands {
			if k := cityKey(c); k != "" && strings.Contains(got, k) {
				found = true
				break
			}
		}
		if !found {
			return 0, fmt.Sprintf("C%d: %s matches none of %s", i+2, py.Truncate(py.Repr(anyValue(v)), 100), py.Repr(cands)), nil
		}
	}
	return 1, "", nil
}

var nonCityKey = regexp.MustCompile(`[^a-z0-9]+`)

// cityKey is OSWorld's _normalize_city_string: str() of the value, NFKD
// with the combining marks dropped, lower-cased, every run of characters
// other than a-z and 0-9 made one space, stripped; "" for None.
func cityKey(v any) string {
	if v == nil {
		return ""
	}
	s := py.Str(v)
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if norm.NFD.PropertiesString(string(r)).CCC() != 0 {
			continue
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(nonCityKey.ReplaceAllString(py.Lower(b.String()), " "))
}

func anyValue(v any) any {
	if f, ok := v.(float64); ok {
		return office.FloatNumber(f)
	}
	return v
}
