package agentd

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/atspi"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/py"
)

// freePort is a TCP port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// allowed is a difference between the AT-SPI walk of a page and the tree
// built from DevTools that the test accepts, with the reason.
type allowed struct {
	name string
	ok   func(path string, a, c *atspi.Node, field string) bool
}

// allowedDiffs are every difference TestDevToolsMatchesATSPI accepts.
var allowedDiffs = []allowed{
	{"the selected option of a closed select: Chromium's AT-SPI gives it the select's width and a height of its own (11 px for a 20 px select); DevTools gives the select's box",
		func(path string, a, c *atspi.Node, field string) bool {
			return field == "bounds" && a.Role == "menu item" && a.Has("selected") && a.Bounds != nil && c.Bounds != nil &&
				a.Bounds.X == c.Bounds.X && a.Bounds.Y == c.Bounds.Y && a.Bounds.W == c.Bounds.W
		}},
	{"inside a date or time field: Chromium's own parts (the month, day and year fields, the picker button) are not in the DOM snapshot, so they have no box, tag or display there, and DevTools names them differently",
		func(path string, a, c *atspi.Node, field string) bool {
			return strings.Contains(path, "/date-editor[") && !strings.HasSuffix(path, "/date-editor["+trunc(a.Name)+"]")
		}},
}

// diffNodes compares two trees of one page field by field and reports each
// difference, with its path, not allowed by allowedDiffs; used counts the
// allowed ones by name.
func diffNodes(a, c *atspi.Node, path string, used map[string]int) []string {
	path += "/" + atspi.Tag(a.Role) + "[" + trunc(a.Name) + "]"
	var out []string
	report := func(field, av, cv string) {
		for _, al := range allowedDiffs {
			if al.ok(path, a, c, field) {
				used[al.name]++
				return
			}
		}
		out = append(out, fmt.Sprintf("%s %s: atspi %s, devtools %s", path, field, av, cv))
	}
	if a.Role != c.Role || a.Name != c.Name {
		report("object", fmt.Sprintf("%s %q", a.Role, a.Name), fmt.Sprintf("%s %q", c.Role, c.Name))
		return out
	}
	if !slices.Equal(a.States, c.States) {
		report("states", strings.Join(a.States, ","), strings.Join(c.States, ","))
	}
	if fmt.Sprint(a.Attrs) != fmt.Sprint(c.Attrs) {
		report("attributes", fmt.Sprint(a.Attrs), fmt.Sprint(c.Attrs))
	}
	if fmt.Sprint(a.Bounds) != fmt.Sprint(c.Bounds) {
		report("bounds", fmt.Sprint(a.Bounds), fmt.Sprint(c.Bounds))
	}
	if a.Text != c.Text {
		report("text", fmt.Sprintf("%q", a.Text), fmt.Sprintf("%q", c.Text))
	}
	if fmt.Sprint(a.ActionNames()) != fmt.Sprint(c.ActionNames()) {
		report("actions", fmt.Sprint(a.ActionNames()), fmt.Sprint(c.ActionNames()))
	}
	if fmt.Sprint(valueOf(a)) != fmt.Sprint(valueOf(c)) {
		report("value", fmt.Sprint(valueOf(a)), fmt.Sprint(valueOf(c)))
	}
	if a.Image != c.Image || a.Selection != c.Selection {
		report("interfaces", fmt.Sprint(a.Image, a.Selection), fmt.Sprint(c.Image, c.Selection))
	}
	if len(a.Children) != len(c.Children) {
		names := func(ns []*atspi.Node) (s []string) {
			for _, n := range ns {
				s = append(s, n.Role+" "+trunc(n.Name))
			}
			return s
		}
		report("children", fmt.Sprint(names(a.Children)), fmt.Sprint(names(c.Children)))
	}
	for i := range min(len(a.Children), len(c.Children)) {
		out = append(out, diffNodes(a.Children[i], c.Children[i], path, used)...)
	}
	return out
}

func valueOf(n *atspi.Node) []string {
	if n.Value == nil {
		return nil
	}
	var out []string
	for _, f := range []*float64{n.Value.Current, n.Value.Min, n.Value.Max, n.Value.Step} {
		if f == nil {
			out = append(out, "-")
		} else {
			out = append(out, py.Float(*f))
		}
	}
	return out
}

func trunc(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}

// document finds the page's document in a snapshot of the browser.
func document(d *atspi.Desktop) *atspi.Node {
	var found *atspi.Node
	var walk func(n *atspi.Node)
	walk = func(n *atspi.Node) {
		if found != nil {
			return
		}
		if n.Role == "document web" && len(n.Children) > 0 {
			found = n
			return
		}
		for _, k := range n.Children {
			walk(k)
		}
	}
	for _, a := range d.Apps {
		walk(a)
	}
	return found
}

// linksAndFields is a page of n paragraphs of a link and a field, longer
// than the screen.
func linksAndFields(n int) string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Links and Fields</title></head><body><h1>Bench</h1>`)
	for i := range n {
		fmt.Fprintf(&b, `<p><a href="#%d">link %d</a> <input aria-label="field %d" value="v%d"></p>`, i, i, i, i)
	}
	b.WriteString(`</body></html>`)
	return b.String()
}

// TestDevToolsMatchesATSPI reads real pages (a form with a label-wrapped
// field, a select, a table, an iframe and shadow DOM; a long article with
// landmarks, lists, tabs, a list box, a radio group, a progress bar,
// number, password, read-only and required fields, contenteditable and a
// table, scrolled down; a page of 230 links and fields; widgets: multiple
// and disabled selects, ARIA checkbox, toggle, menu, slider, tree and
// dialog, a popup button, a meter, open details, search, e-mail, date and
// read-only fields, a description list, abbr, mark, sup and sub) both ways, the
// AT-SPI walk and the tree built from DevTools, and diffs them object by
// object: role, name, states, attributes, screen box, text, actions,
// value. Every difference it accepts is named in allowedDiffs.
// wholeWalks gives s's AT-SPI reads the time of a loaded machine, for
// tests that compare whole walks: there a page of hundreds of objects
// takes Chromium longer than the default budget of one application's
// tree, and the walk comes back partial.
func wholeWalks(s *Server) {
	s.a11y.mu.Lock()
	defer s.a11y.mu.Unlock()
	s.a11y.deadlines = loadedDeadlines
}

// loadedDeadlines are AT-SPI deadlines for a loaded machine.
var loadedDeadlines = atspi.Options{CallTimeout: 20 * time.Second, AppBudget: 2 * time.Minute}

func TestDevToolsMatchesATSPI(t *testing.T) {
	needX(t)
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	os.Unsetenv("AT_SPI_BUS_ADDRESS")
	s, c := start(t)
	wholeWalks(s)
	ctx := context.Background()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "pages", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	used := map[string]int{}
	for _, p := range []struct {
		name, html, want string
		scroll           bool
	}{
		{"form", read("form.html"), `"Shadow Btn"`, false},
		{"article", read("article.html"), `"Home"`, true},
		{"links and fields", linksAndFields(230), `"field 3"`, false},
		{"widgets", read("widgets.html"), `"Bold"`, false},
	} {
		t.Run(p.name, func(t *testing.T) {
			startChromium(t, c, p.html, freePort(t), p.want)
			if p.scroll {
				if _, err := c.Input(ctx, []api.Action{{Type: api.ActionClick, Button: api.ButtonLeft, Count: 1, X: ptr(900), Y: ptr(500)},
					{Type: api.ActionKey, Keys: []string{"Next"}}, {Type: api.ActionKey, Keys: []string{"Next"}}}); err != nil {
					t.Fatal(err)
				}
			}
			var a, cd *atspi.Desktop
			var diffs []string
			var took [2]time.Duration
			// the page settles (the scroll, late layout): the two reads
			// must agree within a few tries. An AT-SPI walk that ran
			// out of its time budget (a loaded machine: the walk asks
			// Chromium's UI thread four calls an object) has nothing to
			// compare and is tried again.
			walks := 0
			for try := 0; try < 5 && walks < 12; try++ {
				time.Sleep(500 * time.Millisecond)
				t0 := time.Now()
				var err error
				a, _, err = s.snapshot(ctx, treeRead{App: "chromium", Fresh: true, Detail: atspi.DetailFull, Walk: true})
				if err != nil {
					t.Fatal(err)
				}
				if walks++; a.Partial {
					try--
					continue
				}
				t1 := time.Now()
				cd, _, err = s.snapshot(ctx, treeRead{App: "chromium", Fresh: true, Detail: atspi.DetailFull})
				if err != nil {
					t.Fatal(err)
				}
				took = [2]time.Duration{t1.Sub(t0), time.Since(t1)}
				ad, cdoc := document(a), document(cd)
				if ad == nil || cdoc == nil {
					t.Fatalf("no page document: atspi %v, devtools %v", ad != nil, cdoc != nil)
				}
				if !strings.HasPrefix(cdoc.Children[0].ID, webIDPrefix) {
					t.Fatalf("the page was not read over DevTools: first object %s", cdoc.Children[0].ID)
				}
				clear(used)
				diffs = diffNodes(ad, cdoc, "", used)
				if len(diffs) == 0 {
					break
				}
			}
			if a.Partial {
				t.Fatalf("the AT-SPI walk ran out of its time budget in each of %d tries", walks)
			}
			for _, d := range diffs {
				t.Error(d)
			}
			t.Logf("AT-SPI walk %s, DevTools %s; allowed differences: %v", took[0], took[1], used)
			// the answer names where its time went
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.Addr()+"/v1/accessibility?format=xml&app=chromium&fresh=true", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			st := resp.Header.Get("Server-Timing")
			for _, part := range []string{"atspi;dur=", "cdp;dur=", "devtools;dur=", "build;dur=", "encode;dur="} {
				if !strings.Contains(st, part) {
					t.Errorf("Server-Timing %q has no %s", st, part)
				}
			}
			t.Logf("Server-Timing: %s", st)
		})
	}
}

func ptr(i int) *int { return &i }

// TestListWalkSkipsUnseen checks that the element list's walk, which
// leaves out what is below an object not showing, lists exactly what the
// whole walk lists, on a page longer than the screen read through
// AT-SPI: the same elements, from far fewer objects.
func TestListWalkSkipsUnseen(t *testing.T) {
	needX(t)
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	os.Unsetenv("AT_SPI_BUS_ADDRESS")
	s, c := start(t)
	wholeWalks(s)
	ctx := context.Background()
	startChromium(t, c, linksAndFields(230), 0, `"field 3"`)
	count := func(d *atspi.Desktop) int {
		n := 0
		var walk func(*atspi.Node)
		walk = func(x *atspi.Node) {
			n++
			for _, k := range x.Children {
				walk(k)
			}
		}
		for _, a := range d.Apps {
			walk(a)
		}
		return n
	}
	key := func(e atspi.Element) string { return fmt.Sprintf("%s %q %v %v", e.Role, e.Name, e.Bounds, e.States) }
	diff, partial := "", 0
	for try := 0; try < 5; try++ {
		time.Sleep(500 * time.Millisecond)
		all, _, err := s.snapshot(ctx, treeRead{App: "chromium", Fresh: true, Detail: atspi.DetailXML, Walk: true})
		if err != nil {
			t.Fatal(err)
		}
		list, _, err := s.snapshot(ctx, treeRead{App: "chromium", Fresh: true, Detail: atspi.DetailList, Walk: true})
		if err != nil {
			t.Fatal(err)
		}
		if all.Partial || list.Partial {
			partial++
			continue
		}
		var a, l []string
		for _, e := range all.Elements(1280, 800) {
			a = append(a, key(e))
		}
		for _, e := range list.Elements(1280, 800) {
			l = append(l, key(e))
		}
		na, nl := count(all), count(list)
		if slices.Equal(a, l) {
			t.Logf("%d elements from %d objects (the whole walk: %d)", len(l), nl, na)
			if len(l) < 10 || nl*2 > na {
				t.Errorf("the list's walk read %d objects of %d for %d elements: it does not leave out what is not showing", nl, na, len(l))
			}
			return
		}
		diff = fmt.Sprintf("whole walk:\n%s\nlist walk:\n%s", strings.Join(a, "\n"), strings.Join(l, "\n"))
	}
	t.Fatalf("the lists differ (%d of 5 tries had a partial walk): %s", partial, diff)
}
