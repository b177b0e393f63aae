package metric

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
)

// check_left_panel reads the accessibility tree (OSWorld's XML): Impress's
// slide panel is shown when the tree holds a document-frame named
// "Slides View" (the pane's own frame), wherever it sits and whatever its
// states, as OSWorld's function looks for it.

// checkLeftPanel implements OSWorld's check_left_panel
// (desktop_env/evaluators/metrics/slides.py).
func checkLeftPanel(_ context.Context, result, _ any, _ map[string]any) (float64, string, error) {
	tree, ok := result.(string)
	if !ok || tree == "" {
		return 0, fmt.Sprintf("want the accessibility tree's XML, got %s", py.TypeName(result)), nil
	}
	dec := xml.NewDecoder(strings.NewReader(tree))
	found := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, "result: not XML: " + err.Error(), nil
		}
		if t, ok := tok.(xml.StartElement); ok && t.Name.Space == "" && t.Name.Local == "document-frame" {
			for _, a := range t.Attr {
				if a.Name.Space == "" && a.Name.Local == "name" && a.Value == "Slides View" {
					found = true
				}
			}
		}
	}
	if found {
		return 1, "", nil
	}
	return 0, "no document-frame named Slides View (the slide pane is closed)", nil
}
