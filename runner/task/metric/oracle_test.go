package metric

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/api"
)

// The oracle: OSWorld's own metric functions, run by
// scripts/osworld-oracle/gen.py on generated files and values with the
// options and rules of OSWorld's task files, and their answers kept as data
// in testdata/oracle (cases.json; files/ holds each input once, named by
// its SHA-256). Every committed score must be deskrun's score to 1e-6.

type oracleCase struct {
	Metric   string            `json:"metric"`
	Note     string            `json:"note"`
	Result   any               `json:"result"`
	Expected any               `json:"expected"`
	Options  map[string]any    `json:"options"`
	Extra    map[string]string `json:"extra"`
	Args     string            `json:"args"`
	Score    json.Number       `json:"score"`
	Error    string            `json:"error"`
}

type oracleDoc struct {
	OSWorld  string            `json:"osworld"`
	Versions map[string]string `json:"versions"`
	Cases    []oracleCase      `json:"cases"`
}

func loadOracle(t testing.TB) oracleDoc {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "oracle", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := json.NewDecoder(f)
	d.UseNumber()
	var doc oracleDoc
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("decode cases.json: %v", err)
	}
	return doc
}

// place copies the case's files into dir under the names gen.py gives
// them and returns the value with paths in place of file references (a
// {"text_of": name} reference is the text of that file, as a string).
func place(t testing.TB, v any, dir, name string) any {
	switch x := v.(type) {
	case map[string]any:
		if f, ok := x["text_of"].(string); ok && len(x) == 1 {
			b, err := os.ReadFile(filepath.Join("testdata", "oracle", "files", f))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		f, ok := x["file"].(string)
		if !ok || len(x) > 2 {
			return v
		}
		if len(x) == 2 {
			if _, ok := x["as"]; !ok {
				return v
			}
		}
		to := name + filepath.Ext(f)
		if as, ok := x["as"].(string); ok {
			to = as
		}
		copyFile(t, filepath.Join("testdata", "oracle", "files", f), filepath.Join(dir, to))
		return filepath.Join(dir, to)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = place(t, e, dir, fmt.Sprintf("%s%d", name, i))
		}
		return out
	}
	return v
}

func copyFile(t testing.TB, from, to string) {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// oracleExceptions names the cases (metric and note) where deskrun
// knowingly differs from the oracle, each with the OSWorld behaviour that
// causes it. A note listed here that stops differing fails the test, so the
// list cannot go stale.
var oracleExceptions = pandasNoneCases()

// pandasNoneCases are the compare_table cases where one sheet holds the
// string "None" against a value pandas reads as missing: OSWorld pins
// pandas 2.2 (requirements.txt, pandas~=2.2.3), whose default NA strings
// include "None" since pandas 2.0 (pandas issue 52493: "None" read by
// pandas 1 as the string, by pandas 2 as NaN), and deskrun reads as that
// pandas reads; the oracle ran Debian's pandas 1.5, which reads the
// string. Both sides missing, pandas 2.2 scores these 1, the oracle 0.
func pandasNoneCases() map[string]string {
	const why = "the oracle's pandas 1.5 reads the string None as text; OSWorld's pinned pandas 2.2, as deskrun, reads it as NaN"
	out := map[string]string{}
	for _, other := range []string{"#N/A N/A", "#N/A_text", "#NA", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "<NA>", "N/A",
		"NA", "NULL", "NaN", "blank", "empty_str", "err_DIV0", "err_NA", "err_NAME", "err_empty", "n/a", "nan", "null"} {
		out["compare_table|na: None vs "+other] = why
		out["compare_table|na: "+other+" vs None"] = why
	}
	for _, other := range []string{"NA", "blank", "empty_str", "err_DIV0", "err_NA", "nan"} {
		out["compare_table|na text: None vs "+other] = why
		out["compare_table|na text: "+other+" vs None"] = why
	}
	return out
}

func TestOracle(t *testing.T) {
	doc := loadOracle(t)
	type tally struct{ n, ok, known int }
	excused := map[string]string{}
	per := map[string]*tally{}
	rules := map[string]*tally{}
	var bad []string
	ctx := context.Background()
	for i, c := range doc.Cases {
		tl := per[c.Metric]
		if tl == nil {
			tl = &tally{}
			per[c.Metric] = tl
		}
		tl.n++
		// compare_table also by rule: "compare_table[sheet_data]" for a
		// case of one rule, "compare_table[rules]" for several
		var rt *tally
		if c.Metric == "compare_table" {
			k := "compare_table[rules]"
			if rs, _ := c.Options["rules"].([]any); len(rs) == 1 {
				r, _ := rs[0].(map[string]any)
				k = fmt.Sprintf("compare_table[%v]", r["type"])
			}
			if rt = rules[k]; rt == nil {
				rt = &tally{}
				rules[k] = rt
			}
			rt.n++
		}
		if _, ok := Lookup(c.Metric); !ok {
			bad = append(bad, fmt.Sprintf("%s: not implemented", c.Metric))
			continue
		}
		want, _ := c.Score.Float64()
		got, detail := gradeOracleCase(ctx, t, i, c)
		if math.Abs(got-want) <= 1e-6 {
			tl.ok++
			if rt != nil {
				rt.ok++
			}
			continue
		}
		key := fmt.Sprintf("%s/%d", c.Metric, i)
		if why, known := exception(c.Metric, c.Note); known {
			tl.known++
			excused[exceptionKey(c.Metric, c.Note)] = why
			continue
		}
		r, _ := json.Marshal(c.Result)
		e, _ := json.Marshal(c.Expected)
		o, _ := json.Marshal(c.Options)
		bad = append(bad, fmt.Sprintf("%s (%s): got %.6g (%s), OSWorld %.6g %s\n\tresult=%.200s\n\texpected=%.200s\n\toptions=%.200s",
			key, c.Note, got, detail, want, c.Error, r, e, o))
	}
	names := make([]string, 0, len(per))
	for n := range per {
		names = append(names, n)
	}
	sort.Strings(names)
	total, agree := 0, 0
	var sum strings.Builder
	for _, n := range names {
		tl := per[n]
		total += tl.n
		agree += tl.ok
		fmt.Fprintf(&sum, "%-45s %4d/%4d %5.1f%%", n, tl.ok, tl.n, 100*float64(tl.ok)/float64(tl.n))
		if tl.known > 0 {
			fmt.Fprintf(&sum, " (%d named exceptions)", tl.known)
		}
		sum.WriteByte('\n')
	}
	names = names[:0]
	for n := range rules {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&sum, "%-45s %4d/%4d %5.1f%%\n", n, rules[n].ok, rules[n].n, 100*float64(rules[n].ok)/float64(rules[n].n))
	}
	t.Logf("OSWorld %s: %d/%d cases agree (%.1f%%)\n%s", doc.OSWorld, agree, total, 100*float64(agree)/float64(total), sum.String())
	for k, why := range excused {
		t.Logf("exception %s: %s", k, why)
	}
	for k := range oracleExceptions {
		if _, seen := excused[k]; !seen && !strings.HasSuffix(k, "|*") {
			bad = append(bad, fmt.Sprintf("%s: every case agrees now; remove it from oracleExceptions", k))
		}
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// gradeOracleCase places case i's files in a directory of its own and
// grades it; an error is a score of 0 with the error as detail.
func gradeOracleCase(ctx context.Context, t *testing.T, i int, c oracleCase) (float64, string) {
	m, _ := Lookup(c.Metric)
	dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
	res := place(t, c.Result, dir, "result")
	exp := place(t, c.Expected, dir, "expected")
	for name, f := range c.Extra {
		copyFile(t, filepath.Join("testdata", "oracle", "files", f), filepath.Join(dir, name))
	}
	if c.Args == "result_only" {
		exp = nil
	}
	opts := c.Options
	if opts == nil {
		opts = map[string]any{}
	}
	got, detail, err := m.Score(ctx, hostSandbox{}, res, exp, opts)
	if err != nil {
		got, detail = 0, "error: "+err.Error()
	}
	return got, detail
}

// TestOracleRaisesScoreZero grades every oracle input on which OSWorld's
// metric raises (its harness then scores 0): deskrun must score each 0,
// never pass what OSWorld rejects. The junk cases give every metric the
// task files name arguments of the wrong kind or pointing nowhere; a
// metric on which OSWorld never raises is listed in the log.
func TestOracleRaisesScoreZero(t *testing.T) {
	doc := loadOracle(t)
	ctx := context.Background()
	raised := map[string]int{}
	all := map[string]bool{}
	for i, c := range doc.Cases {
		all[c.Metric] = true
		if c.Error == "" {
			continue
		}
		raised[c.Metric]++
		if _, ok := Lookup(c.Metric); !ok {
			continue
		}
		if got, detail := gradeOracleCase(ctx, t, i, c); got != 0 {
			r, _ := json.Marshal(c.Result)
			t.Errorf("%s/%d (%s): scored %g (%s) where OSWorld raises %s\n\tresult=%.200s", c.Metric, i, c.Note, got, detail, c.Error, r)
		}
	}
	var never []string
	for m := range all {
		if raised[m] == 0 {
			never = append(never, m)
		}
	}
	sort.Strings(never)
	n := 0
	for _, k := range raised {
		n += k
	}
	t.Logf("%d inputs on which OSWorld raises, over %d of %d metrics; none for %s", n, len(raised), len(all), strings.Join(never, ", "))
}

// hostSandbox runs a sandbox metric's commands (run_sqlite3's python3)
// on this host, as OSWorld runs its metrics beside its harness.
type hostSandbox struct{}

func (hostSandbox) WriteFile(_ context.Context, path string, data []byte) error {
	return os.WriteFile(path, data, 0o600)
}

func (hostSandbox) Exec(ctx context.Context, argv []string, stdin string) (api.ExecResult, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return api.ExecResult{}, err
	}
	return api.ExecResult{ExitCode: cmd.ProcessState.ExitCode(), Stdout: out.String(), Stderr: errb.String()}, nil
}

func exceptionKey(metric, note string) string {
	if _, ok := oracleExceptions[metric+"|"+note]; ok {
		return metric + "|" + note
	}
	return metric + "|*"
}

func exception(metric, note string) (string, bool) {
	if why, ok := oracleExceptions[metric+"|"+note]; ok {
		return why, true
	}
	why, ok := oracleExceptions[metric+"|*"]
	return why, ok
}

// BenchmarkOracle grades each metric's oracle cases, one sub-benchmark per
// metric (an op is every case of that metric, files already in place), and
// the whole suite as "all".
func BenchmarkOracle(b *testing.B) {
	doc := loadOracle(b)
	type prepared struct {
		m        Metric
		res, exp any
		opts     map[string]any
	}
	by := map[string][]prepared{}
	var names []string
	for i, c := range doc.Cases {
		m, ok := Lookup(c.Metric)
		if !ok {
			continue
		}
		dir := filepath.Join(b.TempDir(), fmt.Sprint(i))
		p := prepared{m: m, res: place(b, c.Result, dir, "result"), exp: place(b, c.Expected, dir, "expected"), opts: c.Options}
		for name, f := range c.Extra {
			copyFile(b, filepath.Join("testdata", "oracle", "files", f), filepath.Join(dir, name))
		}
		if c.Args == "result_only" {
			p.exp = nil
		}
		if p.opts == nil {
			p.opts = map[string]any{}
		}
		if _, ok := by[c.Metric]; !ok {
			names = append(names, c.Metric)
		}
		by[c.Metric] = append(by[c.Metric], p)
	}
	sort.Strings(names)
	ctx := context.Background()
	grade := func(ps []prepared) {
		for _, p := range ps {
			p.m.Score(ctx, hostSandbox{}, p.res, p.exp, p.opts)
		}
	}
	for _, n := range names {
		b.Run(n, func(b *testing.B) {
			for b.Loop() {
				grade(by[n])
			}
		})
	}
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			for _, n := range names {
				grade(by[n])
			}
		}
	})
}
