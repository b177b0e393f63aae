package task

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/deskrun/deskrun/runner/task/metric"
)

// TestDocCatalogue checks the package documentation against the tables:
// every step, getter and metric name a task may use, available or not,
// is named in doc.go.
func TestDocCatalogue(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	for _, w := range regexp.MustCompile(`[A-Za-z][A-Za-z0-9_]*`).FindAllString(string(doc), -1) {
		words[w] = true
	}
	var missing []string
	for _, n := range Names() {
		if !words[n.Name] {
			missing = append(missing, n.Kind+" "+n.Name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("doc.go does not name %d of the table's names:\n%s", len(missing), missing)
	}
	_ = metric.Names
}
