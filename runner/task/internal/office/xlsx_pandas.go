package office

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/deskrun/deskrun/internal/py"
)

// pandas' read_excel as OSWorld's sheet_data calls it (pandas 1.5 with
// openpyxl 3.0, read-only and data-only): openpyxl's values, pandas'
// cell conversion and row assembly, then its Python parser's header,
// NA strings and type inference, and the DataFrame's datetime inference.

// pkind is the Python type of a value pandas holds.
type pkind uint8

const (
	pStr       pkind = iota
	pInt             // a Python int (i)
	pFloat           // a float (f); NaN is pandas' missing value
	pBool            // b
	pDatetime        // datetime.datetime: t microseconds from 1899-12-30
	pDate            // datetime.date: t days from 1899-12-30
	pTime            // datetime.time: t microseconds from midnight
	pTimedelta       // datetime.timedelta: t microseconds
)

// pv is one value.
type pv struct {
	k pkind
	s string
	i *big.Int
	f float64
	b bool
	t int64
}

var nan = pv{k: pFloat, f: math.NaN()}

func (v pv) isNA() bool { return v.k == pFloat && math.IsNaN(v.f) }

// pandasNA is pandas' STR_NA_VALUES, the strings its parser reads as
// missing: those of the pandas OSWorld pins (2.2: requirements.txt
// pandas~=2.2.3), which since 2.0 include "None" (pandas 1.5 read it as
// the string).
var pandasNA = map[string]bool{
	"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true, "-1.#QNAN": true,
	"-NaN": true, "-nan": true, "1.#IND": true, "1.#QNAN": true, "<NA>": true, "N/A": true,
	"NA": true, "NULL": true, "NaN": true, "None": true, "n/a": true, "nan": true, "null": true,
}

var (
	int64Min  = big.NewInt(math.MinInt64)
	int64Max  = big.NewInt(math.MaxInt64)
	uint64Max = new(big.Int).SetUint64(math.MaxUint64)
)

// errRead is a read_excel that raises: OSWorld's _load_sheet gives None
// and sheet_data scores 0.
var errRead = errors.New("pandas cannot read the sheet")

// castNumber is openpyxl's _cast_number: a float when the text has a
// dot or an exponent, else an int.
func castNumber(s string) (pv, error) {
	if strings.ContainsAny(s, ".eE") {
		f, ok := py.ParseFloat(s)
		if !ok {
			return pv{}, fmt.Errorf("could not convert string to float: %s", py.Repr(s))
		}
		return pv{k: pFloat, f: f}, nil
	}
	i, ok := py.ParseInt(s)
	if !ok {
		return pv{}, fmt.Errorf("invalid literal for int() with base 10: %s", py.Repr(s))
	}
	return pv{k: pInt, i: i}, nil
}

// epoch microseconds: 1899-12-30 is 0; Python's datetime spans years 1
// to 9999.
var (
	excelEpoch = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	minDTus    = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Sub(excelEpoch).Microseconds()
	maxDTus    = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).Sub(excelEpoch).Microseconds()
	mac1904us  = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC).Sub(excelEpoch).Microseconds()
)

const usPerDay = 86400 * 1_000_000

// fromExcel is openpyxl's from_excel: a datetime (or a time for a serial
// in [0, 1), or a timedelta), false when Python overflows (openpyxl
// then makes the cell the error #VALUE!).
func fromExcel(v pv, date1904, timedelta bool) (pv, bool) {
	var x float64
	if v.k == pInt {
		if !v.i.IsInt64() {
			return pv{}, false
		}
		x = float64(v.i.Int64())
	} else {
		x = v.f
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e9 {
		return pv{}, false
	}
	if timedelta {
		us := math.RoundToEven(x * usPerDay)
		t := int64(us)
		if r := t % 1_000_000; r != 0 {
			if r < 0 {
				r += 1_000_000
			}
			t = t - r + int64(math.RoundToEven(float64(r)/1000))*1000
		}
		return pv{k: pTimedelta, t: t}, true
	}
	day := math.Floor(x)
	frac := x - day
	if v.k == pInt {
		frac = 0
	}
	ms := int64(math.RoundToEven(frac * 86400 * 1000))
	if x >= 0 && x < 1 && ms < 86400*1000 {
		return pv{k: pTime, t: ms * 1000}, true
	}
	if x > 0 && x < 60 && !date1904 {
		day++
	}
	t := int64(day)*usPerDay + ms*1000
	if date1904 {
		t += mac1904us
	}
	if t < minDTus || t > maxDTus {
		return pv{}, false
	}
	return pv{k: pDatetime, t: t}, true
}

var isoRE = regexp.MustCompile(`^((\d{4})-(\d{2})-(\d{2}))?T?((\d{2}):(\d{2})(:(\d{2})(\.\d{1,3})?)?)?Z?`)
var isoDurationRE = regexp.MustCompile(`^PT((\d+)H)?((\d+)M)?((\d+(\.\d{1,3})?)S)?`)

// fromISO8601 is openpyxl's from_ISO8601 (a t="d" cell).
func fromISO8601(s string) (pv, error) {
	if s == "" {
		return pv{}, nil
	}
	if m := isoRE.FindStringSubmatch(s); m != nil && strings.Join(m[1:], "") != "" {
		atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
		us := 0
		if m[10] != "" {
			f, _ := strconv.ParseFloat(m[10], 64)
			us = int(f * 1_000_000)
		}
		h, mi, sec := atoi(m[6]), atoi(m[7]), atoi(m[9])
		if h > 23 || mi > 59 || sec > 59 {
			return pv{}, errors.New("hour, minute or second out of range")
		}
		clock := int64(((h*60+mi)*60+sec)*1_000_000 + us)
		if m[1] == "" {
			return pv{k: pTime, t: clock}, nil
		}
		y, mo, d := atoi(m[2]), atoi(m[3]), atoi(m[4])
		date := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
		if y < 1 || mo < 1 || mo > 12 || d < 1 || date.Day() != d {
			return pv{}, errors.New("day is out of range for month")
		}
		days := int64(date.Sub(excelEpoch).Hours() / 24)
		if m[5] == "" {
			return pv{k: pDate, t: days}, nil
		}
		return pv{k: pDatetime, t: days*usPerDay + clock}, nil
	}
	if m := isoDurationRE.FindStringSubmatch(s); m != nil && strings.Join(m[1:], "") != "" {
		f := func(x string) float64 { v, _ := strconv.ParseFloat(x, 64); return v }
		us := math.RoundToEven((f(m[2])*3600 + f(m[4])*60 + f(m[6])) * 1_000_000)
		return pv{k: pTimedelta, t: int64(us)}, nil
	}
	return pv{}, fmt.Errorf("Invalid datetime value %s", s)
}

// excelValue is the value openpyxl gives a cell (data_only: a formula's
// cached value): ok false for an empty cell; isErr for an error cell.
func (b *Book) excelValue(c *Node) (v pv, ok, isErr bool, err error) {
	t, has := c.Attr["t"]
	if !has {
		t = "n"
	}
	if t == "inlineStr" {
		is := c.Child("is")
		if is == nil {
			return pv{}, false, false, nil
		}
		return pv{k: pStr, s: richContent(is)}, true, false, nil
	}
	vn := c.Child("v")
	if vn == nil || vn.Text == "" {
		return pv{}, false, false, nil
	}
	text := vn.Text
	switch t {
	case "n":
		v, err := castNumber(text)
		if err != nil {
			return pv{}, false, false, err
		}
		style, _ := strconv.Atoi(c.Attr["s"])
		if b.styles.isDate(style) {
			d, ok := fromExcel(v, b.date1904, b.styles.isTimedelta(style))
			if !ok {
				return pv{k: pStr, s: "#VALUE!"}, true, true, nil
			}
			return d, true, false, nil
		}
		return v, true, false, nil
	case "s":
		i, ok := py.ParseInt(text)
		if !ok {
			return pv{}, false, false, fmt.Errorf("invalid literal for int() with base 10: %s", py.Repr(text))
		}
		n := big.NewInt(int64(len(b.shared)))
		if i.Sign() < 0 {
			i = new(big.Int).Add(i, n)
		}
		if i.Sign() < 0 || i.Cmp(n) >= 0 {
			return pv{}, false, false, errors.New("IndexError: list index out of range")
		}
		return pv{k: pStr, s: b.shared[i.Int64()]}, true, false, nil
	case "b":
		i, ok := py.ParseInt(text)
		if !ok {
			return pv{}, false, false, fmt.Errorf("invalid literal for int() with base 10: %s", py.Repr(text))
		}
		return pv{k: pBool, b: i.Sign() != 0}, true, false, nil
	case "d":
		d, err := fromISO8601(text)
		if err != nil {
			return pv{}, false, false, err
		}
		return d, true, false, nil
	case "e":
		return pv{k: pStr, s: text}, true, true, nil
	}
	return pv{k: pStr, s: text}, true, false, nil // str, or a type openpyxl keeps as text
}

// richContent is openpyxl's Text.content: the element's own t, then its
// runs' t (phonetic runs left out).
func richContent(n *Node) string {
	var s strings.Builder
	if t := n.Child("t"); t != nil {
		s.WriteString(t.Text)
	}
	for _, r := range n.ChildrenNamed("r") {
		if t := r.Child("t"); t != nil {
			s.WriteString(t.Text)
		}
	}
	return s.String()
}

// pandasCell is pandas' _convert_cell: "" for an empty cell, NaN for an
// error, an int for a whole number.
func pandasCell(v pv, ok, isErr bool) (pv, error) {
	switch {
	case !ok:
		return pv{k: pStr}, nil
	case isErr:
		return nan, nil
	case v.k == pFloat:
		if math.IsInf(v.f, 0) {
			return pv{}, errors.New("OverflowError: cannot convert float infinity to integer")
		}
		if math.IsNaN(v.f) {
			return pv{}, errors.New("ValueError: cannot convert float NaN to integer")
		}
		if v.f == math.Trunc(v.f) {
			i, _ := new(big.Float).SetFloat64(v.f).Int(nil)
			return pv{k: pInt, i: i}, nil
		}
	}
	return v, nil
}

// sheetRows is openpyxl's read-only row iteration (missing rows empty,
// a row as wide as its last cell's column, rows out of order dropped)
// through pandas' get_sheet_data (trailing blanks trimmed, trailing
// blank rows dropped, rows padded to the widest with "").
func (b *Book) sheetRows(s *Sheet) ([][]pv, error) {
	var data [][]pv
	last := -1
	counter := 1
	rowNo := 0
	for _, row := range s.Root.Path("sheetData").ChildrenNamed("row") {
		if r, ok := row.Attr["r"]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(r))
			if err != nil {
				return nil, fmt.Errorf("row number %q: %w", r, errRead)
			}
			rowNo = n
		} else {
			rowNo++
		}
		if len(data) > maxFrameCells || rowNo-counter > maxFrameCells {
			return nil, fmt.Errorf("sheet too large: %w", errRead)
		}
		for ; counter < rowNo; counter++ {
			data = append(data, nil)
		}
		if counter > rowNo {
			continue
		}
		counter++
		type placed struct {
			col int
			v   pv
		}
		var cells []placed
		col := 0
		for _, c := range row.ChildrenNamed("c") {
			if ref, ok := c.Attr["r"]; ok {
				cc, _, err := SplitCellRef(ref)
				if err != nil {
					return nil, fmt.Errorf("cell %q: %w", ref, errRead)
				}
				col = cc
			} else {
				col++
			}
			v, ok, isErr, err := b.excelValue(c)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", err.Error(), errRead)
			}
			pc, err := pandasCell(v, ok, isErr)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", err.Error(), errRead)
			}
			cells = append(cells, placed{col, pc})
		}
		var conv []pv
		if len(cells) > 0 {
			width := cells[len(cells)-1].col
			conv = make([]pv, width)
			for _, c := range cells {
				if c.col >= 1 && c.col <= width {
					conv[c.col-1] = c.v
				}
			}
		}
		for len(conv) > 0 && conv[len(conv)-1].k == pStr && conv[len(conv)-1].s == "" {
			conv = conv[:len(conv)-1]
		}
		if len(conv) > 0 {
			last = len(data)
		}
		data = append(data, conv)
	}
	data = data[:last+1]
	width := 0
	for _, r := range data {
		width = max(width, len(r))
	}
	if len(data)*width > maxFrameCells {
		return nil, fmt.Errorf("sheet of %d rows and %d columns is too large: %w", len(data), width, errRead)
	}
	for i, r := range data {
		for len(r) < width {
			r = append(r, pv{k: pStr})
		}
		data[i] = r
	}
	return data, nil
}

// Frame is the DataFrame pandas' read_excel gives: its column labels,
// and per column its dtype and values.
type Frame struct {
	labels []pv
	cols   [][]pv
	kinds  []string
}

// Columns is the number of columns; Rows the number of data rows.
func (f *Frame) Columns() int { return len(f.cols) }

func (f *Frame) Rows() int {
	if len(f.cols) == 0 {
		return 0
	}
	return len(f.cols[0])
}

// Str is str() of the value at column c, row r, as pandas' astype(str)
// gives it.
func (f *Frame) Str(c, r int) string {
	v := f.cols[c][r]
	switch f.kinds[c] {
	case "datetime":
		if v.isNA() {
			return "NaT"
		}
	case "float":
		return py.Float(v.f)
	}
	return pyStr(v)
}

// LoadFrame reads sheet s as pandas' read_excel does, then rounds it as
// DataFrame.round(precision) does (precision < 0 leaves it as read).
func LoadFrame(b *Book, s *Sheet, precision int, _ bool) (*Frame, error) {
	data, err := b.sheetRows(s)
	if err != nil {
		return nil, err
	}
	fr := &Frame{}
	if len(data) == 0 {
		return fr, nil // EmptyDataError: an empty DataFrame
	}
	width := len(data[0])
	fr.labels = make([]pv, width)
	var unnamed []int
	for i, c := range data[0] {
		if c.k == pStr && c.s == "" {
			fr.labels[i] = pv{k: pStr, s: fmt.Sprintf("Unnamed: %d", i)}
			unnamed = append(unnamed, i)
		} else {
			fr.labels[i] = c
		}
	}
	mangle(fr.labels, unnamed)
	fr.cols = make([][]pv, width)
	fr.kinds = make([]string, width)
	for c := 0; c < width; c++ {
		col := make([]pv, len(data)-1)
		for r := range col {
			col[r] = data[r+1][c]
		}
		fr.kinds[c], fr.cols[c] = inferColumn(col)
		if precision >= 0 && fr.kinds[c] == "float" {
			for r, v := range fr.cols[c] {
				fr.cols[c][r] = pv{k: pFloat, f: numpyRound(v.f, precision)}
			}
		}
	}
	return fr, nil
}

// mangle is the parser's dedup of column labels: a repeated label L
// becomes "L.1", "L.2", ..., named columns before unnamed ones.
func mangle(labels []pv, unnamed []int) {
	isUnnamed := map[int]bool{}
	for _, i := range unnamed {
		isUnnamed[i] = true
	}
	var order []int
	for i := range labels {
		if !isUnnamed[i] {
			order = append(order, i)
		}
	}
	order = append(order, unnamed...)
	counts := map[string]int{}
	present := func(s string) bool {
		for _, l := range labels {
			if hashKey(l) == hashKey(pv{k: pStr, s: s}) {
				return true
			}
		}
		return false
	}
	for _, i := range order {
		key := hashKey(labels[i])
		cur := counts[key]
		if cur > 0 {
			base := pyStr(labels[i])
			var name string
			for cur > 0 {
				counts[key] = cur + 1
				name = fmt.Sprintf("%s.%d", base, cur)
				if present(name) {
					cur++
				} else {
					cur = counts[hashKey(pv{k: pStr, s: name})]
				}
			}
			labels[i] = pv{k: pStr, s: name}
			key = hashKey(labels[i])
		}
		counts[key] = cur + 1
	}
}

// hashKey is a key equal for values Python's dict takes as the same key
// (1, 1.0 and True; NaN only as itself, here as any NaN).
func hashKey(v pv) string {
	switch v.k {
	case pStr:
		return "s" + v.s
	case pInt:
		return "n" + v.i.String()
	case pBool:
		if v.b {
			return "n1"
		}
		return "n0"
	case pFloat:
		if v.f == math.Trunc(v.f) && !math.IsInf(v.f, 0) {
			i, _ := new(big.Float).SetFloat64(v.f).Int(nil)
			return "n" + i.String()
		}
		return "f" + strconv.FormatFloat(v.f, 'g', -1, 64)
	}
	return fmt.Sprintf("%d:%d", v.k, v.t)
}

// floatify is pandas' string to number of its parser: surrounding ASCII
// whitespace, decimal notation, inf and infinity in any case (nan is not
// a number here: it is an NA string or text). isInt says the text is a
// whole-number literal, then i holds it (false ok when it is beyond
// int64 and uint64: pandas raises "Integer out of range").
func floatify(s string) (f float64, i *big.Int, isInt, ok bool) {
	t := strings.Trim(s, " \t\n\r\f\v")
	body := strings.TrimLeft(t, "+-")
	if len(t)-len(body) > 1 || body == "" {
		return 0, nil, false, false
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		f = math.Inf(1)
		if t[0] == '-' {
			f = math.Inf(-1)
		}
		return f, nil, false, true
	}
	digits := func(x string) bool {
		for j := 0; j < len(x); j++ {
			if x[j] < '0' || x[j] > '9' {
				return false
			}
		}
		return true
	}
	if digits(body) {
		n, _ := new(big.Int).SetString(body, 10)
		if t[0] == '-' {
			n.Neg(n)
		}
		if n.Cmp(int64Min) < 0 || n.Cmp(uint64Max) > 0 {
			return 0, nil, true, false
		}
		f, _ = new(big.Float).SetInt(n).Float64()
		return f, n, true, true
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(body), "e")
	ip, fp, _ := strings.Cut(mant, ".")
	if (ip == "" && fp == "") || !digits(ip) || !digits(fp) || strings.Count(mant, ".") > 1 {
		return 0, nil, false, false
	}
	if hasExp {
		e := strings.TrimLeft(exp, "+-")
		if len(exp)-len(e) > 1 || e == "" || !digits(e) {
			return 0, nil, false, false
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, nil, false, false
	}
	return f, nil, false, true
}

// inferColumn is the parser's _infer_types on one column (numbers
// first, then booleans, NA strings made NaN) and the DataFrame's
// inference of datetime columns: the dtype's name and the values.
func inferColumn(col []pv) (string, []pv) {
	if kind, vals, ok := numericColumn(col); ok {
		return kind, vals
	}
	vals := make([]pv, len(col))
	for i, v := range col {
		if v.k == pStr && pandasNA[v.s] {
			v = nan
		}
		vals[i] = v
	}
	return objectColumn(vals)
}

// numericColumn is lib.maybe_convert_numeric: ok false when a value is
// neither a number, a bool, nor a string that reads as one.
func numericColumn(col []pv) (string, []pv, bool) {
	var null, flt, integer, uint, sint, boolean bool
	nums := make([]pv, len(col))
	sawInt := func(n *big.Int) {
		integer = true
		if n.Sign() < 0 && n.Cmp(int64Min) >= 0 {
			sint = true
		}
		if n.Cmp(int64Max) > 0 && n.Cmp(uint64Max) <= 0 {
			uint = true
		}
	}
	for i, v := range col {
		switch v.k {
		case pStr:
			if pandasNA[v.s] {
				null, flt = true, true
				nums[i] = nan
				continue
			}
			f, n, isInt, ok := floatify(v.s)
			if !ok {
				return "", nil, false
			}
			if isInt {
				sawInt(n)
				nums[i] = pv{k: pInt, i: n}
			} else {
				flt = true
				nums[i] = pv{k: pFloat, f: f}
			}
		case pFloat:
			if math.IsNaN(v.f) {
				null = true
			}
			flt = true
			nums[i] = v
		case pInt:
			sawInt(v.i)
			if v.i.Sign() >= 0 && v.i.Cmp(uint64Max) > 0 || v.i.Cmp(int64Min) < 0 {
				flt = true
			}
			nums[i] = v
		case pBool:
			boolean = true
			nums[i] = v
		default:
			return "", nil, false
		}
	}
	if uint && (null || sint) {
		// check_uint64_conflict: the values as they were
		return "object", col, true
	}
	switch {
	case flt:
		for i, v := range nums {
			nums[i] = pv{k: pFloat, f: toFloat(v)}
		}
		return "float", nums, true
	case integer:
		for i, v := range nums {
			if v.k == pBool {
				nums[i] = pv{k: pInt, i: big.NewInt(b2i(v.b))}
			}
		}
		if uint {
			return "uint", nums, true
		}
		return "int", nums, true
	case boolean:
		return "bool", nums, true
	}
	return "int", nums, true
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func toFloat(v pv) float64 {
	switch v.k {
	case pInt:
		f, _ := new(big.Float).SetInt(v.i).Float64()
		return f
	case pBool:
		return float64(b2i(v.b))
	}
	return v.f
}

// objectColumn is libops.maybe_convert_bool on an object column, then
// the DataFrame's datetime inference.
func objectColumn(vals []pv) (string, []pv) {
	isBool, hasNA := true, false
	bools := make([]pv, len(vals))
scan:
	for i, v := range vals {
		switch {
		case v.k == pBool:
			bools[i] = v
		case v.k == pStr && (v.s == "True" || v.s == "TRUE" || v.s == "true"):
			bools[i] = pv{k: pBool, b: true}
		case v.k == pStr && (v.s == "False" || v.s == "FALSE" || v.s == "false"):
			bools[i] = pv{k: pBool, b: false}
		case v.isNA():
			bools[i], hasNA = nan, true
		default:
			isBool = false
			break scan
		}
	}
	if isBool {
		if hasNA {
			return "object", bools
		}
		return "bool", bools
	}
	dt, td, any := true, true, false
	for _, v := range vals {
		if v.isNA() {
			continue
		}
		any = true
		dt = dt && v.k == pDatetime
		td = td && v.k == pTimedelta
	}
	switch {
	case any && dt:
		return "datetime", vals
	case any && td:
		return "timedelta", vals
	}
	return "object", vals
}

// numpyRound is numpy's round(x, decimals): scale by a power of ten,
// round half to even, scale back (by division for negative decimals).
func numpyRound(x float64, decimals int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	if decimals >= 0 {
		p := math.Pow(10, float64(decimals))
		y := math.RoundToEven(x*p) / p
		if math.IsInf(x*p, 0) {
			return x
		}
		return y
	}
	p := math.Pow(10, float64(-decimals))
	return math.RoundToEven(x/p) * p
}

// pyEqual is Python's == between two values, with NaN matching NaN (as
// DataFrame.equals takes missing values).
func pyEqual(a, b pv) bool {
	if a.isNA() || b.isNA() {
		return a.isNA() && b.isNA()
	}
	num := func(v pv) bool { return v.k == pInt || v.k == pFloat || v.k == pBool }
	if num(a) && num(b) {
		return numCmp(a, b) == 0
	}
	if a.k != b.k {
		return false
	}
	switch a.k {
	case pStr:
		return a.s == b.s
	}
	return a.t == b.t
}

// numCmp compares two numbers exactly, as Python compares an int with a
// float.
func numCmp(a, b pv) int {
	toBig := func(v pv) *big.Float {
		switch v.k {
		case pInt:
			return new(big.Float).SetInt(v.i)
		case pBool:
			return big.NewFloat(float64(b2i(v.b)))
		}
		return big.NewFloat(v.f)
	}
	if a.k == pFloat && b.k == pFloat {
		switch {
		case a.f < b.f:
			return -1
		case a.f > b.f:
			return 1
		}
		return 0
	}
	if (a.k == pFloat && math.IsInf(a.f, 0)) || (b.k == pFloat && math.IsInf(b.f, 0)) {
		fa, fb := toFloat(a), toFloat(b)
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	}
	return toBig(a).Cmp(toBig(b))
}

// pyStr is Python's str() of a value.
func pyStr(v pv) string {
	switch v.k {
	case pStr:
		return v.s
	case pInt:
		return v.i.String()
	case pFloat:
		return py.Float(v.f)
	case pBool:
		if v.b {
			return "True"
		}
		return "False"
	case pDatetime:
		t := excelEpoch.Add(time.Duration(v.t) * time.Microsecond)
		if v.t/usPerDay > 100000 || v.t/usPerDay < -100000 {
			d := v.t / usPerDay
			t = excelEpoch.AddDate(0, 0, int(d)).Add(time.Duration(v.t-d*usPerDay) * time.Microsecond)
		}
		if t.Nanosecond() != 0 {
			return t.Format("2006-01-02 15:04:05.000000")
		}
		return t.Format("2006-01-02 15:04:05")
	case pDate:
		return excelEpoch.AddDate(0, 0, int(v.t)).Format("2006-01-02")
	case pTime:
		t := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(v.t) * time.Microsecond)
		if t.Nanosecond() != 0 {
			return t.Format("15:04:05.000000")
		}
		return t.Format("15:04:05")
	case pTimedelta:
		return (time.Duration(v.t) * time.Microsecond).String()
	}
	return ""
}

func reprPV(v pv) string {
	if v.k == pStr {
		return py.Repr(v.s)
	}
	return pyStr(v)
}

// FramesEqual is DataFrame.equals: the same column labels, the same
// number of rows, and column by column the same dtype and values (NaN
// equal to NaN).
func FramesEqual(a, b *Frame) (bool, string) {
	if len(a.labels) != len(b.labels) {
		return false, fmt.Sprintf("%d columns, want %d", len(a.labels), len(b.labels))
	}
	for i := range a.labels {
		if !pyEqual(a.labels[i], b.labels[i]) {
			return false, fmt.Sprintf("column %d is named %s, want %s", i+1, reprPV(a.labels[i]), reprPV(b.labels[i]))
		}
	}
	if a.Rows() != b.Rows() {
		return false, fmt.Sprintf("%d rows, want %d", a.Rows(), b.Rows())
	}
	for c := range a.cols {
		if a.kinds[c] != b.kinds[c] {
			return false, fmt.Sprintf("column %s holds %s values, want %s", reprPV(a.labels[c]), a.kinds[c], b.kinds[c])
		}
		for r := range a.cols[c] {
			x, y := a.cols[c][r], b.cols[c][r]
			if !pyEqual(x, y) {
				return false, fmt.Sprintf("column %s, data row %d: %s, want %s", reprPV(a.labels[c]), r+1, py.Truncate(reprPV(x), 100), py.Truncate(reprPV(y), 100))
			}
		}
	}
	return true, ""
}

// OpenpyxlLoad is what openpyxl's load_workbook (not read-only, formulas
// kept) makes of the cells: an error where it raises on a value (a
// number it cannot cast, such as inf or nan, a shared-string index out of
// range, a boolean that is no integer, a date it cannot parse), nil when
// it loads. OSWorld's compare_table scores such a workbook 0.
func (b *Book) OpenpyxlLoad() error {
	for _, name := range b.Names {
		s, err := b.Sheet(name)
		if err != nil {
			return err
		}
		for _, row := range s.Root.Path("sheetData").ChildrenNamed("row") {
			for _, c := range row.ChildrenNamed("c") {
				if ref, ok := c.Attr["r"]; ok {
					if _, _, err := SplitCellRef(ref); err != nil {
						return fmt.Errorf("sheet %q: %w", name, err)
					}
				}
				if c.Child("f") != nil || c.Attr["t"] == "inlineStr" {
					continue
				}
				if _, _, _, err := b.excelValue(c); err != nil {
					return fmt.Errorf("sheet %q cell %s: %w", name, c.Attr["r"], err)
				}
			}
		}
	}
	return nil
}
