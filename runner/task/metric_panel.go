package task

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/deskrun/deskrun/api"
)

// check_left_panel reads the accessibility tree (OSWorld's XML): Impress's
// slide panel is shown when a split-pane inside a panel of a root-pane
// sits at parent coordinates (0, 0) with a visible state. The attributes
// are matched in the tree's component and state namespaces; OSWorld's
// function names other namespace URIs, which the tree it is given does
// not use, and those are accepted too.

func init() {
	addMetrics(map[string]metricSpec{
		"check_left_panel": {fn: checkLeftPanel},
	})
}

func a11yURI(prefix string) string {
	for _, n := range api.A11yNamespaces {
		if n.Prefix == prefix {
			return n.URI
		}
	}
	return ""
}

func checkLeftPanel(_ metricEnv, result, _ any, _ map[string]any) (float64, string, error) {
	tree, ok := result.(string)
	if !ok || tree == "" {
		return 0, fmt.Sprintf("want the accessibility tree's XML, got %s", typeName(result)), nil
	}
	cp := map[string]bool{a11yURI("cp"): true, "uri:deskat:component.at-spi.gnome.org": true}
	st := map[string]bool{a11yURI("st"): true, "uri:deskat:state.at-spi.gnome.org": true}
	dec := xml.NewDecoder(strings.NewReader(tree))
	var stack []string
	inside := func(name string) bool {
		for _, s := range stack {
			if s == name {
				return true
			}
		}
		return false
	}
	seen := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, "result: not XML: " + err.Error(), nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "split-pane" && inside("root-pane") && inside("panel") {
				seen++
				var coord, visible string
				for _, a := range t.Attr {
					switch {
					case a.Name.Local == "parentcoord" && cp[a.Name.Space]:
						coord = a.Value
					case a.Name.Local == "visible" && st[a.Name.Space]:
						visible = a.Value
					}
				}
				if coord == "(0, 0)" && visible != "" {
					return 1, "", nil
				}
			}
			stack = append(stack, t.Name.Local)
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return 0, fmt.Sprintf("no visible split pane at (0, 0) among %d in the window's panels", seen), nil
}
