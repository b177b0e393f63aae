package agentd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/atspi"
	"github.com/deskrun/deskrun/agentd/browser"
	"github.com/deskrun/deskrun/agentd/webax"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/pick"
)

// Pages of Chromium through the DevTools protocol: where a browser on
// this desktop is reachable over DevTools (the one agentd started, or one
// started with --remote-debugging-port, as OSWorld's tasks start
// google-chrome), the AT-SPI read of that browser stops at its pages'
// "document web" objects and their content comes from two DevTools calls
// per page (package webax); the browser's own toolbar and tabs, and other
// applications, are read through AT-SPI as before, and so are pages no
// DevTools session reaches.

// webIDPrefix starts the ID of an element of a page read over DevTools:
// web/PID/TARGET/NODE (the browser's process, the tab, the DOM node).
const webIDPrefix = "web/"

// devtoolsBrowsers finds the browsers on this desktop reachable over
// DevTools, by the pid of their browser process (the pid AT-SPI gives
// their application). The list of processes is read at most once a second.
func (s *Server) devtoolsBrowsers() map[int]*browser.Browser {
	out := map[int]*browser.Browser{}
	for pid, port := range s.debugPorts() {
		if b, err := s.browsers.pick(port); err == nil {
			out[pid] = b
		}
	}
	s.browsers.mu.Lock()
	own := s.browsers.own
	s.browsers.mu.Unlock()
	if own != nil {
		if pid := own.PID(); pid > 0 {
			out[pid] = own
		}
	}
	return out
}

// debugPorts lists the browser processes started with
// --remote-debugging-port, by pid. Their environment cannot tell their
// display (Chromium writes its process title over it), and need not: only
// the ones that are applications on this desktop's accessibility bus are
// asked for pages.
func (s *Server) debugPorts() map[int]int {
	w := &s.webPorts
	w.mu.Lock()
	defer w.mu.Unlock()
	if time.Since(w.at) < time.Second && w.ports != nil {
		return w.ports
	}
	ports := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte("--remote-debugging-port=")) || bytes.Contains(b, []byte("--type=")) {
			continue
		}
		if m := debugPort.FindSubmatch(b); m != nil {
			if n, _ := strconv.Atoi(string(m[1])); n > 0 {
				ports[pid] = n
			}
		}
	}
	w.ports, w.at = ports, time.Now()
	return ports
}

// webPorts caches debugPorts.
type webPorts struct {
	mu    sync.Mutex
	at    time.Time
	ports map[int]int
}

// pageFetch reads the tabs of one browser ahead, while AT-SPI reads the
// rest: the tabs' list, and each tab's tree (at most maxPrefetch tabs;
// others are read when their document is met).
type pageFetch struct {
	b     *browser.Browser
	done  chan struct{}
	tabs  []browser.PageTarget
	err   error
	reads map[target.ID]*pageRead
}

type pageRead struct {
	done chan struct{}
	p    *webax.Page
	err  error
}

const maxPrefetch = 4

func (s *Server) prefetch(ctx context.Context, b *browser.Browser, t *phases) *pageFetch {
	f := &pageFetch{b: b, done: make(chan struct{}), reads: map[target.ID]*pageRead{}}
	start := time.Now()
	go func() {
		defer close(f.done)
		f.tabs, f.err = b.PageTargets(ctx)
		t.atLeast("cdp-tabs", time.Since(start))
		for i, tab := range f.tabs {
			if i >= maxPrefetch {
				break
			}
			r := &pageRead{done: make(chan struct{})}
			f.reads[tab.ID] = r
			go func() {
				defer close(r.done)
				r.p, r.err = s.pageTree(ctx, b, tab.ID)
				t.atLeast("cdp", time.Since(start))
				if r.err == nil {
					t.atLeast("cdp-ax", r.p.AXTook)
					t.atLeast("cdp-snapshot", r.p.SnapshotTook)
				}
			}()
		}
	}()
	return f
}

// read is tab id's tree, read ahead or now.
func (f *pageFetch) read(ctx context.Context, s *Server, id target.ID) (*webax.Page, error) {
	if r := f.reads[id]; r != nil {
		select {
		case <-r.done:
			return r.p, r.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.pageTree(ctx, f.b, id)
}

// fillPages puts the content of the pages the snapshot left as stubs in
// place: from DevTools where the tab is found, else from AT-SPI. The
// snapshot's nodes may be shared with the client's cache, so the nodes on
// the way to a stub are copied, never changed.
func (s *Server) fillPages(ctx context.Context, c *atspi.Client, d *atspi.Desktop, pages map[int]*pageFetch, detail atspi.Detail, t *phases) *atspi.Desktop {
	start := time.Now()
	out := *d
	out.Apps = make([]*atspi.Node, len(d.Apps))
	var wg sync.WaitGroup
	for i, a := range d.Apps {
		f := pages[a.PID]
		if f == nil {
			out.Apps[i] = a
			continue
		}
		wg.Go(func() {
			select {
			case <-f.done:
			case <-ctx.Done():
			}
			out.Apps[i] = graft(a, func(doc *atspi.Node) *atspi.Node {
				n := *doc
				n.Stub = false
				if f.err == nil && ctx.Err() == nil {
					if kids, ok := s.pageObjects(ctx, f, a.PID, doc, detail, start, t); ok {
						n.Children = kids
						return &n
					}
				}
				// no DevTools answer for this document: AT-SPI walks it
				if full := c.Subtree(ctx, doc.Ref, detail); full != nil {
					n.Children, n.Partial, n.Error = full.Children, full.Partial, full.Error
				}
				return &n
			})
		})
	}
	wg.Wait()
	return &out
}

// graft returns n with fill's answer in place of each stub below it,
// copying the nodes on the way and sharing the rest.
func graft(n *atspi.Node, fill func(*atspi.Node) *atspi.Node) *atspi.Node {
	if n.Stub {
		return fill(n)
	}
	var kids []*atspi.Node
	for i, k := range n.Children {
		g := graft(k, fill)
		if g != k && kids == nil {
			kids = append(make([]*atspi.Node, 0, len(n.Children)), n.Children[:i]...)
		}
		if kids != nil {
			kids = append(kids, g)
		}
	}
	if kids == nil {
		return n
	}
	c := *n
	c.Children = kids
	return &c
}

// pageObjects reads the content of the tab whose document doc is (matched
// by its title; of equal titles, the visible one) over DevTools.
func (s *Server) pageObjects(ctx context.Context, f *pageFetch, pid int, doc *atspi.Node, detail atspi.Detail, since time.Time, t *phases) ([]*atspi.Node, bool) {
	b := f.b
	var cands []browser.PageTarget
	for _, tab := range f.tabs {
		if tab.Title == doc.Name || doc.Name == "" && tab.Title == tab.URL {
			cands = append(cands, tab)
		}
	}
	if len(cands) == 0 {
		return nil, false
	}
	if len(cands) > 1 {
		var vis []browser.PageTarget
		for _, tab := range cands {
			if v, err := b.Visible(ctx, tab.ID); err == nil && v {
				vis = append(vis, tab)
			}
		}
		if len(vis) != 1 {
			return nil, false
		}
		cands = vis
	}
	tab := cands[0]
	p, err := f.read(ctx, s, tab.ID)
	if err != nil {
		return nil, false
	}
	t.atLeast("devtools", time.Since(since))
	t0 := time.Now()
	defer func() { t.add("build", time.Since(t0)) }()
	return webax.Build(p, webax.Options{Origin: doc.Bounds, IDPrefix: fmt.Sprintf("%s%d/%s/", webIDPrefix, pid, tab.ID), Detail: detail}), true
}

// pageTree reads a tab, concurrent reads of one tab sharing one read.
func (s *Server) pageTree(ctx context.Context, b *browser.Browser, id target.ID) (*webax.Page, error) {
	v, err, _ := s.pageReads.Do(string(id), func() (any, error) {
		return b.PageTree(context.WithoutCancel(ctx), id)
	})
	if err != nil {
		return nil, err
	}
	// webax.Build only reads the page
	return v.(*webax.Page), nil
}

// parseWebID splits a page element's ID.
func parseWebID(id string) (pid int, tab target.ID, node cdp.BackendNodeID, ok bool) {
	parts := strings.Split(strings.TrimPrefix(id, webIDPrefix), "/")
	if !strings.HasPrefix(id, webIDPrefix) || len(parts) != 3 {
		return 0, "", 0, false
	}
	p, err1 := strconv.Atoi(parts[0])
	n, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || parts[1] == "" {
		return 0, "", 0, false
	}
	return p, target.ID(parts[1]), cdp.BackendNodeID(n), true
}

// webAction acts on a page element read over DevTools, through the page's
// DOM: click and do press it as a click would, focus focuses it, set_value
// and set_text set a field's text (with the input and change events a
// person's typing fires), pick a select's option by its label (as
// [pick] chooses) or a range's number.
func (s *Server) webAction(ctx context.Context, req api.ElementAction) error {
	pid, tab, node, ok := parseWebID(req.ID)
	if !ok {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("id: %q is not of the form web/PID/TAB/NODE", req.ID))
	}
	b := s.devtoolsBrowsers()[pid]
	if b == nil {
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("element %s: its browser is gone; capture again", req.ID))
	}
	var fn string
	var args []any
	switch req.Action {
	case api.ElementClick, api.ElementDo:
		fn = `function() { this.scrollIntoViewIfNeeded ? this.scrollIntoViewIfNeeded() : this.scrollIntoView(); if (this.focus) this.focus(); this.click(); return ""; }`
	case api.ElementFocus:
		fn = `function() { this.focus(); return document.activeElement === this ? "" : "it takes no focus"; }`
	case api.ElementSetValue, api.ElementSetText:
		if req.Action == api.ElementSetValue {
			if r, err := b.ElementCall(ctx, tab, node, `function() { return this.tagName === "SELECT" ? Array.from(this.options, o => o.label) : null; }`); err == nil && string(r) != "null" {
				var labels []string
				if json.Unmarshal(r, &labels) == nil {
					return s.webSelect(ctx, b, tab, node, req, labels)
				}
			}
		}
		fn = `function(v) {
			const set = (o, p) => { const d = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(o), p); d && d.set ? d.set.call(o, v) : (o[p] = v); };
			if (this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement) {
				this.focus(); set(this, "value");
			} else if (this.isContentEditable) {
				this.focus(); this.textContent = v;
			} else return "it takes no text: it is neither a text field, a select nor editable";
			this.dispatchEvent(new InputEvent("input", {bubbles: true, inputType: "insertReplacementText", data: v}));
			this.dispatchEvent(new Event("change", {bubbles: true}));
			return "";
		}`
		args = []any{req.Value}
	default:
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("action: %q is not one of click, focus, set_value, set_text, do", req.Action))
	}
	r, err := b.ElementCall(ctx, tab, node, fn, args...)
	return webResult(req.ID, r, err)
}

// webSelect picks the option of a select by its label.
func (s *Server) webSelect(ctx context.Context, b *browser.Browser, tab target.ID, node cdp.BackendNodeID, req api.ElementAction, labels []string) error {
	cands := make([]pick.Candidate, len(labels))
	for i, l := range labels {
		cands[i] = pick.Candidate{Name: l, Role: "menu item"}
	}
	c := pick.Choose(req.Value, pick.Select, cands)
	if len(c.Tied) > 0 {
		return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("element %s has several options matching %q (%s match): %s; give the whole label", req.ID, req.Value, c.Match,
			pick.Describe(len(c.Tied), func(i int) string { return strconv.Quote(labels[c.Tied[i]]) })))
	}
	if c.Index < 0 {
		return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("element %s has no option %q (options: %s)", req.ID, req.Value, strings.Join(labels, ", ")))
	}
	r, err := b.ElementCall(ctx, tab, node, `function(i) { this.selectedIndex = i; this.dispatchEvent(new Event("input", {bubbles: true})); this.dispatchEvent(new Event("change", {bubbles: true})); return ""; }`, c.Index)
	return webResult(req.ID, r, err)
}

func webResult(id string, r json.RawMessage, err error) error {
	if err != nil {
		if errors.Is(err, errdefs.ErrNotFound) || strings.Contains(err.Error(), "No node with given id") {
			return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("element %s no longer exists; capture again", id))
		}
		return errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("element %s: %v", id, err))
	}
	var msg string
	if json.Unmarshal(r, &msg) == nil && msg != "" {
		return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("element %s: %s", id, msg))
	}
	return nil
}
