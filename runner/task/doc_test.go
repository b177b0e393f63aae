package task

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocCatalogue checks the package documentation's catalogue against
// the tables entry by entry: every step, getter and metric name a task
// may use, available or not, is named in the part of doc.go that lists
// its kind (a name left only in the YAML example or another kind's list
// does not count), and every name those lists give in the form of a
// table's name is in the tables.
func TestDocCatalogue(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	// between returns the text from the first from to the first to after it.
	between := func(from, to string) string {
		i := strings.Index(doc, from)
		if i < 0 {
			t.Fatalf("doc.go has no %q", from)
		}
		j := strings.Index(doc[i:], to)
		if j < 0 {
			t.Fatalf("doc.go has no %q after %q", to, from)
		}
		return doc[i : i+j]
	}
	chrome := between("//   - Chrome (", "//   - Others:")
	lists := map[string]string{
		"step":   between("// # Setup steps", "// # Getters and metrics") + between("the steps\n", "; the\n"),
		"getter": between("// # OSWorld's names", "// # Getters and metrics") + between("// Getters: ", "Metrics:") + between("; the\n", "the metrics is_expected_active_tab"),
		"metric": between("Metrics:\n", "// # Solutions") + chrome,
	}
	word := regexp.MustCompile(`[A-Za-z][A-Za-z0-9_]*`)
	words := map[string]map[string]bool{}
	files := regexp.MustCompile(`[\w/]+\.go\b`)
	for kind, text := range lists {
		words[kind] = map[string]bool{}
		for _, w := range word.FindAllString(files.ReplaceAllString(text, ""), -1) {
			words[kind][w] = true
		}
	}
	known := map[string]bool{}
	var missing []string
	for _, n := range Names() {
		known[n.Name] = true
		if !words[n.Kind][n.Name] {
			missing = append(missing, n.Kind+" "+n.Name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("doc.go's catalogue does not list %d of the table's names where their kind is listed:\n%s", len(missing), strings.Join(missing, "\n"))
	}
	// The metric lists name nothing the tables lack: a snake_case word
	// there is a metric, a getter, a step, or one of the options and
	// values named here.
	notNames := map[string]bool{}
	for _, w := range strings.Fields(`examine_ sheet_name sheet_data sheet_print sheet_fuzzy ignore_case
		fuzzy_match included_by chart_props pivot_table pivot_props dv_props spreadsheet_range row_props col_props
		check_cell data_validation ignore_blanks ignore_order content_only file_type read_excel url_path_parse
		chrome_font_size`) {
		notNames[w] = true
	}
	var unknown []string
	for w := range words["metric"] {
		if strings.Contains(w, "_") && w == strings.ToLower(w) && !known[w] && !notNames[w] && !strings.HasPrefix(w, "examine_") {
			unknown = append(unknown, w)
		}
	}
	slices.Sort(unknown)
	if len(unknown) > 0 {
		t.Errorf("doc.go's metric lists name %d words in the form of a metric that no table has (removed? renamed?):\n%s", len(unknown), strings.Join(unknown, "\n"))
	}
}
