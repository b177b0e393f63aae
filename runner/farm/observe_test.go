package farm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/deskrun/deskrun/runner/agent"
)

// TestObservationTree runs an http agent that asks for the accessibility
// tree from the first step (#observation=screenshot_a11y_tree), opens a
// GTK window, waits for its button in the tree, then switches to som.
func TestObservationTree(t *testing.T) {
	if _, err := exec.Command("/usr/bin/python3", "-c", "import gi; gi.require_version('Gtk','3.0')").CombinedOutput(); err != nil {
		t.Fatalf("python3-gi with GTK 3 is not installed (scripts/install-deps.sh installs it): %v", err)
	}
	p := newTestProvider(t)
	m := newManager(t, p)
	app, err := filepath.Abs("../../agentd/atspi/testdata/gtkapp.py")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []agent.Observation
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req agent.Request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		seen = append(seen, req.Observation)
		mu.Unlock()
		o := req.Observation
		var resp map[string]any
		switch {
		case req.Step == 0:
			cmd := fmt.Sprintf("setsid /usr/bin/python3 %s 'Observed Window' >/dev/null 2>&1 &", app)
			resp = map[string]any{"dialect": "anthropic", "calls": []map[string]any{{"tool": "bash", "args": map[string]any{"command": cmd}}}}
		case strings.Contains(o.Elements, `"Press Me"`) && o.AccessibilityTree == "":
			resp = map[string]any{"done": true} // the som observation came
		case strings.Contains(o.AccessibilityTree, `name="Press Me"`):
			resp = map[string]any{"observation_type": "som"}
		default:
			resp = map[string]any{"calls": []map[string]any{{"tool": "computer", "args": map[string]any{"action": "wait", "duration": 0.5}}}}
		}
		json.NewEncoder(w).Encode(resp)
	}))
	defer srv.Close()
	ag, err := agent.FromSpec(srv.URL+"/step#observation=screenshot_a11y_tree", agent.SpecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	results, err := Run(t.Context(), Config{Manager: m, Agent: ag, Out: t.TempDir(), MaxSteps: 20}, loadSuite(t, "shell-md5sum"))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(results) != 1 || results[0].Status == StatusAgentError || results[0].Status == StatusInfraError {
		t.Fatalf("results: %+v", results)
	}
	if len(seen) < 3 {
		t.Fatalf("%d observations", len(seen))
	}
	first := seen[0]
	if !strings.HasPrefix(first.AccessibilityTree, "<desktop-frame") || len(first.Screenshot) == 0 || first.AccessibilityError != "" {
		t.Errorf("step 0 observation: tree %.200q, %d bytes of screenshot, error %q", first.AccessibilityTree, len(first.Screenshot), first.AccessibilityError)
	}
	last, prev := seen[len(seen)-1], seen[len(seen)-2]
	if !strings.Contains(prev.AccessibilityTree, `<push-button name="Press Me"`) || !strings.Contains(prev.Elements, `push button "Press Me"`) {
		t.Errorf("the tree before som: %.300q / %q", prev.AccessibilityTree, prev.Elements)
	}
	if last.AccessibilityTree != "" || !strings.Contains(last.Elements, `push button "Press Me"`) || !bytes.HasPrefix(last.Screenshot, []byte("\x89PNG")) || last.Width == 0 {
		t.Errorf("som observation: tree %.100q, elements %q, %d bytes of image", last.AccessibilityTree, last.Elements, len(last.Screenshot))
	}
}
