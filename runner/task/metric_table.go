package task

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Spreadsheet metrics: compare_table (OSWorld's rules sheet_name,
// sheet_data, sheet_print, sheet_fuzzy, chart, pivot_table, style,
// freeze, zoom, data_validation, row_props, col_props, filter and
// check_cell) and compare_conference_city_in_order.

func init() {
	addMetrics(map[string]metricSpec{
		"compare_table":                    {fn: withDeadline(compareTable), checkOptions: checkTableOptions},
		"compare_conference_city_in_order": {fn: withDeadline(compareConferenceCityInOrder), needsExpected: true, checkRules: needKeys("expected")},
	})
}

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
		return fmt.Errorf("rules: want a list of rules, got %s", typeName(opts["rules"]))
	}
	for i, e := range rules {
		r, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("rules[%d]: want an object, got %s", i, typeName(e))
		}
		t, _ := r["type"].(string)
		keys, ok := tableRuleKeys[t]
		if !ok {
			return fmt.Errorf("rules[%d].type: %s not supported", i, pyRepr(r["type"]))
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
			if _, _, err := splitCellRef(fmt.Sprint(r["coordinate"])); err != nil {
				return fmt.Errorf("rules[%d].coordinate: %w", i, err)
			}
			props, ok := r["props"].(map[string]any)
			if !ok {
				return fmt.Errorf("rules[%d].props: want an object, got %s", i, typeName(r["props"]))
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
				return fmt.Errorf("rules[%d].rules: want a list, got %s", i, typeName(r["rules"]))
			}
			for j, e := range list {
				m, ok := e.(map[string]any)
				if !ok {
					return fmt.Errorf("rules[%d].rules[%d]: want an object", i, j)
				}
				switch m["type"] {
				case "includes", "included_by", "fuzzy_match", "exact_match":
				default:
					return fmt.Errorf("rules[%d].rules[%d].type: want includes, included_by, fuzzy_match or exact_match, got %s", i, j, pyRepr(m["type"]))
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
	if _, ok := asInt(v); ok {
		return nil
	}
	return fmt.Errorf("want an index or a string, got %s", typeName(v))
}

// tableSide is one of the two workbooks of compare_table.
type tableSide struct {
	path string
	book *xlsxBook
}

type tableRun struct {
	res, exp *tableSide
}

// sheetRef is OSWorld's _parse_sheet_idx: which book and which sheet
// name ("" when the index is out of range).
func (tr *tableRun) sheetRef(idx any) (*tableSide, string, error) {
	if i, ok := asInt(idx); ok && typeName(idx) == "number" {
		return tr.res, pyIndex(tr.res.book.names, i), nil
	}
	s, _ := idx.(string)
	if len(s) < 2 {
		return nil, "", fmt.Errorf("sheet index %s not recognised", pyRepr(idx))
	}
	var side *tableSide
	switch s[0] {
	case 'R':
		side = tr.res
	case 'E':
		side = tr.exp
	}
	if side == nil || side.book == nil {
		return nil, "", fmt.Errorf("sheet index %s: no expected workbook", pyRepr(idx))
	}
	switch s[1] {
	case 'I':
		i, err := strconv.Atoi(s[2:])
		if err != nil {
			return side, "", nil
		}
		return side, pyIndex(side.book.names, i), nil
	case 'N':
		return side, s[2:], nil
	}
	return nil, "", fmt.Errorf("sheet index %s not recognised", pyRepr(idx))
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

func (tr *tableRun) loadSheet(idx any) (*tableSide, *xlsxSheet, string, error) {
	side, name, err := tr.sheetRef(idx)
	if err != nil {
		return nil, nil, "", err
	}
	s, err := side.book.sheet(name)
	if err != nil {
		return side, nil, name, err
	}
	return side, s, name, nil
}

func compareTable(env metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	rp, ok := result.(string)
	if !ok {
		return 0, fmt.Sprintf("result: want an xlsx file path, got %s", typeName(result)), nil
	}
	rb, err := openXLSX(rp)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	tr := &tableRun{res: &tableSide{path: rp, book: rb}, exp: &tableSide{}}
	if expected != nil {
		ep, ok := expected.(string)
		if !ok {
			return 0, fmt.Sprintf("expected: want an xlsx file path, got %s", typeName(expected)), nil
		}
		eb, err := openXLSX(ep)
		if err != nil {
			return 0, "expected: " + err.Error(), nil
		}
		tr.exp = &tableSide{path: ep, book: eb}
	}
	rules, _ := opts["rules"].([]any)
	for i, e := range rules {
		if err := env.ctx.Err(); err != nil {
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
		if strings.Join(tr.res.book.names, "\x00") == strings.Join(tr.exp.book.names, "\x00") && len(tr.res.book.names) == len(tr.exp.book.names) {
			return true, "", nil
		}
		return false, fmt.Sprintf("sheets %q, want %q", tr.res.book.names, tr.exp.book.names), nil
	case "sheet_data":
		return tr.sheetData(r)
	case "sheet_print":
		return tr.sheetPrint(r)
	case "sheet_fuzzy":
		return tr.sheetFuzzy(r)
	case "chart":
		return tr.pairCompare(r, "charts", func(side *tableSide, s *xlsxSheet) (any, error) { return loadCharts(side.book, s, r) })
	case "pivot_table":
		return tr.pairCompare(r, "pivot tables", func(side *tableSide, s *xlsxSheet) (any, error) { return loadPivots(side.book, s, r) })
	case "style":
		return tr.pairCompare(r, "styles", func(side *tableSide, s *xlsxSheet) (any, error) { return loadStyles(side.book, s, r) })
	case "row_props":
		return tr.pairCompare(r, "rows", func(side *tableSide, s *xlsxSheet) (any, error) { return loadDims(s, "row", r) })
	case "col_props":
		return tr.pairCompare(r, "columns", func(side *tableSide, s *xlsxSheet) (any, error) { return loadDims(s, "col", r) })
	case "filter":
		return tr.pairCompare(r, "filters", func(side *tableSide, s *xlsxSheet) (any, error) { return loadFilter(s), nil })
	case "freeze":
		_, s1, _, err := tr.loadSheet(r["sheet_idx0"])
		if err != nil {
			return false, "", err
		}
		_, s2, _, err := tr.loadSheet(r["sheet_idx1"])
		if err != nil {
			return false, "", err
		}
		f1, f2 := freezePanes(s1), freezePanes(s2)
		if pyEqual(f1, f2) {
			return true, "", nil
		}
		return false, fmt.Sprintf("frozen at %s, want %s", pyRepr(f1), pyRepr(f2)), nil
	case "zoom":
		_, s, _, err := tr.loadSheet(r["sheet_idx"])
		if err != nil {
			return false, "", err
		}
		z := 100.0
		if v, ok := s.root.path("sheetViews", "sheetView").attr("zoomScale"); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f != 0 {
				z = f
			}
		}
		if tableMatchRule(z, r) {
			return true, "", nil
		}
		return false, fmt.Sprintf("zoom %v does not match %v %s", z, r["method"], pyRepr(r["ref"])), nil
	case "data_validation":
		return tr.dataValidation(r)
	case "check_cell":
		return tr.checkCell(r)
	}
	return false, "", fmt.Errorf("rule type %q not supported", t)
}

// pairCompare loads a property of both sheets and compares them.
func (tr *tableRun) pairCompare(r map[string]any, what string, load func(*tableSide, *xlsxSheet) (any, error)) (bool, string, error) {
	var vals [2]any
	for i, k := range []string{"sheet_idx0", "sheet_idx1"} {
		side, name, err := tr.sheetRef(r[k])
		if err != nil {
			return false, "", err
		}
		s, err := side.book.sheet(name)
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
	if pyEqual(vals[0], vals[1]) {
		return true, "", nil
	}
	return false, fmt.Sprintf("%s differ: %s vs %s", what, truncate(pyRepr(vals[0]), 300), truncate(pyRepr(vals[1]), 300)), nil
}

// tableMatchRule is _match_value_to_rule with spreadsheet_range.
func tableMatchRule(value any, r map[string]any) bool {
	if r["method"] == "spreadsheet_range" {
		refs, _ := r["ref"].([]any)
		if len(refs) != 2 {
			return false
		}
		sub, err1 := parseRanges(fmt.Sprint(refs[0]))
		sup, err2 := parseRanges(fmt.Sprint(refs[1]))
		v, err3 := parseRanges(fmt.Sprint(value))
		if err1 != nil || err2 != nil || err3 != nil {
			return false
		}
		return rangesWithin(sub, v) && rangesWithin(v, sup)
	}
	if f, ok := value.(float64); ok {
		value = floatNumber(f)
	}
	return matchValueRule(value, r)
}

// floatNumber gives a float the JSON model's form (a Python float).
func floatNumber(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return json.Number(s)
}

func rangesWithin(sub, sup []cellRange) bool {
	for _, a := range sub {
		found := false
		for _, b := range sup {
			if a.within(b) {
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

// sheetFrame is the DataFrame pandas' read_excel gives: the first
// non-blank row as header, the later non-blank rows as data.
type sheetFrame struct {
	header []any
	cols   [][]any
	kinds  []string
}

// maxFrameCells bounds the dense frame sheet_data builds.
const maxFrameCells = 1 << 24

// loadFrame reads sheet s as pandas' read_excel does; float columns are
// rounded to precision digits, or not at all when precision < 0.
func loadFrame(b *xlsxBook, s *xlsxSheet, precision int, ignoreCase bool) (*sheetFrame, error) {
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
	byRow := map[int][]*xlsxCell{}
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
			v, isDate := b.cachedValue(c)
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
	fr := &sheetFrame{}
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
		key := pyRepr(h)
		if n, dup := seen[key]; dup {
			seen[key] = n + 1
			h = fmt.Sprintf("%s.%d", pyStr(h), n+1)
		} else {
			seen[key] = 0
		}
		fr.header[i] = h
	}
	fr.cols = make([][]any, width)
	fr.kinds = make([]string, width)
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
		fr.cols[c] = col
		fr.kinds[c] = kind
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
	fa, ok1 := cellFloat(a)
	fb, ok2 := cellFloat(b)
	if !ok1 || !ok2 {
		return false
	}
	return fa == fb || (math.IsNaN(fa) && math.IsNaN(fb))
}

func cellFloat(v any) (float64, bool) {
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
		return reprFloat(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return reprString(x)
	}
	return fmt.Sprint(v)
}

// framesEqual is DataFrame.equals: same shape, labels, column kinds and
// values (NaN equal to NaN).
func framesEqual(a, b *sheetFrame) (bool, string) {
	if len(a.header) != len(b.header) {
		return false, fmt.Sprintf("%d columns, want %d", len(a.header), len(b.header))
	}
	if len(a.cols) > 0 && len(b.cols) > 0 && len(a.cols[0]) != len(b.cols[0]) {
		return false, fmt.Sprintf("%d rows, want %d", len(a.cols[0]), len(b.cols[0]))
	}
	for i := range a.header {
		if !cellEqual(normCell(a.header[i]), normCell(b.header[i])) {
			return false, fmt.Sprintf("column %d is named %s, want %s", i+1, cellRepr(a.header[i]), cellRepr(b.header[i]))
		}
	}
	for c := range a.cols {
		if a.kinds[c] != b.kinds[c] {
			return false, fmt.Sprintf("column %s holds %s values, want %s", cellRepr(a.header[c]), a.kinds[c], b.kinds[c])
		}
		for r := range a.cols[c] {
			if !cellEqual(a.cols[c][r], b.cols[c][r]) {
				return false, fmt.Sprintf("column %s, data row %d: %s, want %s", cellRepr(a.header[c]), r+1, truncate(cellRepr(a.cols[c][r]), 100), truncate(cellRepr(b.cols[c][r]), 100))
			}
		}
	}
	return true, ""
}

func (tr *tableRun) sheetData(r map[string]any) (bool, string, error) {
	precision := 4
	if p, ok := r["precision"]; ok {
		n, ok := asInt(p)
		if !ok {
			return false, "", fmt.Errorf("precision: want an integer, got %s", pyRepr(p))
		}
		precision = n
	}
	ignoreCase := pyTruthy(r["ignore_case"])
	var frames [2]*sheetFrame
	for i, k := range []string{"sheet_idx0", "sheet_idx1"} {
		side, s, name, err := tr.loadSheet(r[k])
		if err != nil {
			if side != nil {
				return false, fmt.Sprintf("%s: no sheet %q", k, name), nil
			}
			return false, "", err
		}
		if frames[i], err = loadFrame(side.book, s, precision, ignoreCase); err != nil {
			return false, k + ": " + err.Error(), nil
		}
	}
	ok, why := framesEqual(frames[0], frames[1])
	return ok, why, nil
}

// printedLines reads the CSV export of a sheet next to the workbook
// (<book>-<sheet>.csv), stripped lines in reverse order without the
// trailing blank ones, as OSWorld's _load_sheet does.
func printedLines(book, sheet string) ([]string, error) {
	p := strings.TrimSuffix(book, filepath.Ext(book)) + "-" + sheet + ".csv"
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(p), errors.Unwrap(err))
	}
	lines := pySplitLines(universalNewlines(string(data)))
	var out []string
	started := false
	for i := len(lines) - 1; i >= 0; i-- {
		l := pyStrip(lines[i])
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
		if pyTruthy(r["ignore_case"]) {
			for j := range l {
				l[j] = pyLower(l[j])
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
			return false, fmt.Sprintf("printed line %d: %q, want %q", n-j, truncate(lines[0][j], 100), truncate(lines[1][j], 100)), nil
		}
	}
	return true, "", nil
}

func fuzzyRanges(v any) ([]cellRange, error) {
	var parts []string
	switch x := v.(type) {
	case string:
		parts = []string{x}
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("want range strings, got %s", typeName(e))
			}
			parts = append(parts, s)
		}
	default:
		return nil, fmt.Errorf("want a range or a list of ranges, got %s", typeName(v))
	}
	rs, err := parseRanges(strings.Join(parts, " "))
	if err != nil {
		return nil, err
	}
	total := 0
	for _, r := range rs {
		total += r.cells()
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
	var sheets [2]*xlsxSheet
	for i, k := range []string{"sheet_idx0", "sheet_idx1"} {
		side, name, err := tr.sheetRef(r[k])
		if err != nil {
			return false, "", err
		}
		sides[i], names[i] = side, name
		sheets[i], _ = side.book.sheet(name)
	}
	rules, _ := r["rules"].([]any)
	for _, e := range rules {
		rl, _ := e.(map[string]any)
		rs, err := fuzzyRanges(rl["range"])
		if err != nil {
			return false, "", err
		}
		for _, rg := range rs {
			for row := rg.minRow; row <= rg.maxRow; row++ {
				for col := rg.minCol; col <= rg.maxCol; col++ {
					var vals [2]string
					for i := range vals {
						var v any
						if sheets[i] != nil {
							v = sides[i].book.rawValue(sheets[i], row, col)
						}
						vals[i] = pyStrValue(v)
					}
					v1, v2 := vals[0], vals[1]
					if norms, ok := rl["normalization"].([]any); ok {
						for _, n := range norms {
							pair, _ := n.([]any)
							if len(pair) == 2 {
								a, b := pyStr(pair[0]), pyStr(pair[1])
								if a != "" {
									v1 = strings.ReplaceAll(v1, a, b)
									v2 = strings.ReplaceAll(v2, a, b)
								}
							}
						}
					}
					if t, ok := rl["trim_leadings"]; ok {
						v1, v2 = stripChars(v1, pyStr(t), true), stripChars(v2, pyStr(t), true)
					}
					if t, ok := rl["trim_trailings"]; ok {
						v1, v2 = stripChars(v1, pyStr(t), false), stripChars(v2, pyStr(t), false)
					}
					if ic, ok := rl["ignore_chars"]; ok {
						drop := pyStr(ic)
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
					if pyTruthy(rl["ignore_case"]) {
						v1, v2 = pyLower(v1), pyLower(v2)
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
							if f, isNum := number(t); isNum {
								th = f
							}
						}
						ok = fuzzRatio(v1, v2) >= th
					case "exact_match":
						ok = v1 == v2
					}
					if !ok {
						return false, fmt.Sprintf("%s%d: %q vs %q (%v)", colName(col), row, truncate(v1, 100), truncate(v2, 100), rl["type"]), nil
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
		return reprFloat(x)
	case string:
		return x
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
	col, row, err := splitCellRef(pyStr(r["coordinate"]))
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
			val = side.book.rawValue(s, row, col)
		} else {
			val, err = side.book.cellStyle(k, s, row, col)
			if err != nil {
				return false, "", err
			}
		}
		if !tableMatchRule(val, rule) {
			v := val
			if f, ok := v.(float64); ok {
				v = floatNumber(f)
			}
			return false, fmt.Sprintf("%s %s: %s does not match %v %s", pyStr(r["coordinate"]), k, truncate(pyRepr(v), 100), rule["method"], truncate(pyRepr(rule["ref"]), 100)), nil
		}
	}
	return true, "", nil
}

func freezePanes(s *xlsxSheet) any {
	pane := s.root.path("sheetViews", "sheetView", "pane")
	if pane == nil {
		return nil
	}
	if v, ok := pane.Attr["topLeftCell"]; ok {
		return v
	}
	return nil
}

var dvAttrs = map[string]string{
	"allowBlank": "bool", "showDropDown": "bool", "showInputMessage": "bool", "showErrorMessage": "bool",
	"type": "str", "operator": "str", "error": "str", "errorTitle": "str", "errorStyle": "str",
	"prompt": "str", "promptTitle": "str", "imeMode": "str",
}

// dvValue is openpyxl's attribute of a DataValidation.
func dvValue(dv *xmlNode, attr string) any {
	switch attr {
	case "ranges", "sqref":
		return dv.Attr["sqref"]
	case "formula1", "formula2":
		if n := dv.child(attr); n != nil {
			return n.Text
		}
		return nil
	}
	switch dvAttrs[attr] {
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

func (tr *tableRun) dataValidation(r map[string]any) (bool, string, error) {
	side, s, name, err := tr.loadSheet(r["sheet_idx"])
	if err != nil {
		if side != nil {
			return false, fmt.Sprintf("no sheet %q", name), nil
		}
		return false, "", err
	}
	dvs := s.root.path("dataValidations").children("dataValidation")
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
				if !tableMatchRule(dvValue(dv, attr), rule) {
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

// loadDims is OSWorld's load_rows_or_cols on the XML: the rows (or
// column groups) with attributes, each with the requested properties.
func loadDims(s *xlsxSheet, obj string, r map[string]any) (any, error) {
	props := map[string]bool{}
	if l, ok := r["props"].([]any); ok {
		for _, p := range l {
			props[pyStr(p)] = true
		}
	}
	out := map[string]any{}
	get := func(n *xmlNode, prop string) any {
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
					return intNumber(i)
				}
			}
			if prop == "outlineLevel" {
				return intNumber(0)
			}
			return nil
		}
		return nil
	}
	if obj == "row" {
		rowNo := 0
		for _, row := range s.root.path("sheetData").children("row") {
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
	for _, c := range s.root.path("cols").children("col") {
		mn, _ := strconv.Atoi(c.Attr["min"])
		info := map[string]any{}
		for p := range props {
			info[p] = get(c, p)
		}
		out[colName(mn)] = info
	}
	return out, nil
}

func loadFilter(s *xlsxSheet) any {
	af := s.root.child("autoFilter")
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
	for _, fc := range af.children("filterColumn") {
		m := map[string]any{}
		id, _ := strconv.Atoi(fc.Attr["colId"])
		m["col_id"] = intNumber(id)
		m["hidden_button"] = fc.Attr["hiddenButton"] == "1" || fc.Attr["hiddenButton"] == "true"
		m["show_button"] = fc.Attr["showButton"] != "0" && fc.Attr["showButton"] != "false"
		if f := fc.child("filters"); f != nil {
			m["filters_blank"] = f.Attr["blank"] == "1" || f.Attr["blank"] == "true"
			vals := map[string]bool{}
			for _, x := range f.children("filter") {
				vals[x.Attr["val"]] = true
			}
			m["filters"] = sortedSet(vals)
		}
		if cf := fc.child("customFilters"); cf != nil {
			m["custom_filters_op"] = cf.Attr["and"] == "1" || cf.Attr["and"] == "true"
			vals := map[string]bool{}
			for _, x := range cf.children("customFilter") {
				op := x.Attr["operator"]
				if op == "" {
					op = "equal"
				}
				vals[op+"\x00"+x.Attr["val"]] = true
			}
			m["custom_filters"] = sortedSet(vals)
		}
		cols = append(cols, m)
	}
	sort.SliceStable(cols, func(i, j int) bool {
		a, _ := asInt(cols[i]["col_id"])
		b, _ := asInt(cols[j]["col_id"])
		return a < b
	})
	list := make([]any, len(cols))
	for i, c := range cols {
		list[i] = c
	}
	out["filter_column"] = list
	if ss := af.child("sortState"); ss != nil {
		st := map[string]any{
			"sort":   ss.Attr["columnSort"] == "1" || ss.Attr["columnSort"] == "true",
			"case":   ss.Attr["caseSensitive"] == "1" || ss.Attr["caseSensitive"] == "true",
			"method": ss.Attr["sortMethod"],
			"ref":    ss.Attr["ref"],
		}
		var conds []any
		for _, c := range ss.children("sortCondition") {
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

// sortedSet represents a Python set as a sorted list, so that two sets
// compare with pyEqual.
func sortedSet(m map[string]bool) []any {
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

// loadStyles is OSWorld's load_xlsx_styles without conditional formats:
// for every cell of the used area, the listed style properties.
func loadStyles(b *xlsxBook, s *xlsxSheet, r map[string]any) (any, error) {
	props, _ := r["props"].([]any)
	out := map[string]any{}
	if s.maxRow*s.maxCol > 1<<20 {
		return nil, errors.New("sheet too large for a style comparison")
	}
	for row := 1; row <= s.maxRow; row++ {
		for col := 1; col <= s.maxCol; col++ {
			list := make([]any, len(props))
			for i, p := range props {
				v, err := b.cellStyle(pyStr(p), s, row, col)
				if err != nil {
					return nil, err
				}
				if f, ok := v.(float64); ok {
					v = floatNumber(f)
				}
				list[i] = v
			}
			out[colName(col)+strconv.Itoa(row)] = list
		}
	}
	return out, nil
}

func compareConferenceCityInOrder(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	want, _ := rules["expected"].([]any)
	b, err := openXLSX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if len(b.names) == 0 {
		return 0, "result: no sheet", nil
	}
	s, err := b.sheet(b.activeSheet())
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	for i := 0; i < 21; i++ {
		if i >= len(want) {
			return 0, fmt.Sprintf("C%d: no expected city", i+2), nil
		}
		v, _ := b.cachedValue(s.cells[[2]int{i + 2, 3}])
		got, isStr := v.(string)
		switch w := want[i].(type) {
		case string:
			if !isStr || !strings.Contains(got, w) {
				return 0, fmt.Sprintf("C%d: %s does not contain %q", i+2, truncate(pyRepr(anyValue(v)), 100), w), nil
			}
		case []any:
			found := false
			for _, e := range w {
				if es, ok := e.(string); ok && isStr && strings.Contains(got, es) {
					found = true
				}
			}
			if !found {
				return 0, fmt.Sprintf("C%d: %s contains none of %s", i+2, truncate(pyRepr(anyValue(v)), 100), pyRepr(w)), nil
			}
		default:
			return 0, fmt.Sprintf("expected[%d]: want a string or a list of strings", i), nil
		}
	}
	return 1, "", nil
}

func anyValue(v any) any {
	if f, ok := v.(float64); ok {
		return floatNumber(f)
	}
	return v
}

// activeSheet is the workbook's active sheet (bookViews activeTab).
func (b *xlsxBook) activeSheet() string {
	wb, err := b.pk.xml(b.wbPart)
	if err == nil {
		if v, ok := wb.path("bookViews", "workbookView").attr("activeTab"); ok {
			if i, err := strconv.Atoi(v); err == nil && i >= 0 && i < len(b.names) {
				return b.names[i]
			}
		}
	}
	return b.names[0]
}
