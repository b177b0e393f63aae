package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/webax"
)

// axSessions are the page sessions the accessibility reads use, one per
// tab, kept attached between reads (attaching costs more than a read).
type axSessions struct {
	mu   sync.Mutex
	tabs map[target.ID]*axSession
}

type axSession struct {
	ctx    context.Context
	cancel context.CancelFunc
	ready  chan struct{}
	err    error
}

// live is the browser's context when it runs, without waiting for a call
// in progress (which may hold b.mu for a whole navigation); a browser
// reached over a DevTools port is connected first.
func (b *Browser) live() (context.Context, error) {
	if b.mu.TryLock() {
		defer b.mu.Unlock()
		if b.cfg.Remote != "" {
			if err := b.start(); err != nil {
				return nil, err
			}
		}
		if b.bctx == nil || b.bctx.Err() != nil {
			return nil, errdefs.ErrUnavailable.WithMessage("the browser is not running")
		}
		b.liveCtx.Store(&b.bctx)
		return b.bctx, nil
	}
	if p := b.liveCtx.Load(); p != nil && (*p).Err() == nil {
		return *p, nil
	}
	return nil, errdefs.ErrUnavailable.WithMessage("the browser is busy starting")
}

// PID is the process id of the browser agentd started, 0 when it is not
// running or is reached over a DevTools port.
func (b *Browser) PID() int {
	if b.cfg.Remote != "" || !b.mu.TryLock() {
		if p := b.liveCtx.Load(); p != nil && (*p).Err() == nil && b.cfg.Remote == "" {
			if c := chromedp.FromContext(*p); c != nil && c.Browser != nil && c.Browser.Process() != nil {
				return c.Browser.Process().Pid
			}
		}
		return 0
	}
	defer b.mu.Unlock()
	if b.bctx == nil || b.bctx.Err() != nil {
		return 0
	}
	if c := chromedp.FromContext(b.bctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		return c.Browser.Process().Pid
	}
	return 0
}

// PageTarget is one tab as the accessibility reads match it.
type PageTarget struct {
	ID    target.ID
	Title string
	URL   string
}

// PageTargets lists the browser's tabs (page targets), without starting a
// browser agentd has not started.
func (b *Browser) PageTargets(ctx context.Context) ([]PageTarget, error) {
	bctx, err := b.live()
	if err != nil {
		return nil, err
	}
	ts, err := chromedp.Targets(bctx)
	if err != nil {
		return nil, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("list the tabs: %v", err))
	}
	var out []PageTarget
	for _, t := range ts {
		if t.Type == "page" {
			out = append(out, PageTarget{ID: t.TargetID, Title: t.Title, URL: t.URL})
		}
	}
	b.ax.prune(ts)
	return out, nil
}

// prune detaches the sessions of tabs that are gone.
func (s *axSessions) prune(ts []*target.Info) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, x := range s.tabs {
		found := false
		for _, t := range ts {
			found = found || t.TargetID == id
		}
		if !found {
			x.cancel()
			delete(s.tabs, id)
		}
	}
}

func (s *axSessions) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, x := range s.tabs {
		x.cancel()
		delete(s.tabs, id)
	}
}

// session returns the attached session of tab id, attaching once.
func (b *Browser) session(ctx context.Context, id target.ID) (context.Context, error) {
	bctx, err := b.live()
	if err != nil {
		return nil, err
	}
	s := &b.ax
	s.mu.Lock()
	if s.tabs == nil {
		s.tabs = map[target.ID]*axSession{}
	}
	x := s.tabs[id]
	if x != nil && x.ctx.Err() != nil {
		delete(s.tabs, id)
		x = nil
	}
	if x == nil {
		x = &axSession{ready: make(chan struct{})}
		x.ctx, x.cancel = chromedp.NewContext(bctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
		s.tabs[id] = x
		go func() {
			x.err = chromedp.Do(x.ctx)
			close(x.ready)
		}()
	}
	s.mu.Unlock()
	select {
	case <-x.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if x.err != nil {
		s.mu.Lock()
		if s.tabs[id] == x {
			x.cancel()
			delete(s.tabs, id)
		}
		s.mu.Unlock()
		return nil, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("attach to the tab: %v", x.err))
	}
	return x.ctx, nil
}

// PageTree reads what [webax.Build] needs of tab id: the accessibility
// tree of its main frame and of each frame in its process, the DOM
// snapshot with layout boxes and the device scale.
func (b *Browser) PageTree(ctx context.Context, id target.ID) (*webax.Page, error) {
	tctx, err := b.session(ctx, id)
	if err != nil {
		return nil, err
	}
	rctx, cancel := joinTimeout(tctx, ctx, 10*time.Second)
	defer cancel()
	p := &webax.Page{Frames: map[cdp.FrameID][]*accessibility.Node{}}
	err = chromedp.Do(rctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		// the three calls go out at once; Chromium answers them in order
		var wg sync.WaitGroup
		var axErr, snapErr error
		var ax accessibility.GetFullAXTreeResult
		var snap domsnapshot.CaptureSnapshotResult
		var scale runtime.EvaluateResult
		t0 := time.Now()
		wg.Go(func() {
			ax, axErr = cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
			p.AXTook = time.Since(t0)
		})
		wg.Go(func() {
			yes := true
			snap, snapErr = cdp.Call(ctx, t, domsnapshot.CaptureSnapshot, domsnapshot.CaptureSnapshotParams{ComputedStyles: webax.Styles, IncludeDOMRects: &yes})
			p.SnapshotTook = time.Since(t0)
		})
		wg.Go(func() {
			yes := true
			scale, _ = cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: "window.devicePixelRatio", ReturnByValue: &yes, Silent: &yes})
		})
		wg.Wait()
		if axErr != nil {
			return fmt.Errorf("Accessibility.getFullAXTree: %w", axErr)
		}
		if snapErr != nil {
			return fmt.Errorf("DOMSnapshot.captureSnapshot: %w", snapErr)
		}
		p.Snapshot = &snap
		if len(ax.Nodes) > 0 {
			p.MainFrame = ax.Nodes[0].FrameID
		}
		if len(snap.Documents) > 0 {
			p.MainFrame = cdp.FrameID(str(snap.Strings, int64(snap.Documents[0].FrameID)))
		}
		p.Frames[p.MainFrame] = ax.Nodes
		if scale.Result != nil {
			_ = json.Unmarshal(scale.Result.Value, &p.Scale)
		}
		// the frames' own trees (frames in other processes answer an
		// error and are left out)
		type fr struct {
			id    cdp.FrameID
			nodes []*accessibility.Node
		}
		var frames []fr
		var mu sync.Mutex
		var fw sync.WaitGroup
		for _, d := range snap.Documents[min(1, len(snap.Documents)):] {
			fid := cdp.FrameID(str(snap.Strings, int64(d.FrameID)))
			if fid == "" || fid == p.MainFrame {
				continue
			}
			fw.Go(func() {
				r, err := cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{FrameID: fid})
				if err == nil {
					mu.Lock()
					frames = append(frames, fr{fid, r.Nodes})
					mu.Unlock()
				}
			})
		}
		fw.Wait()
		for _, f := range frames {
			p.Frames[f.id] = f.nodes
		}
		return nil
	}))
	if err != nil {
		return nil, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("read the page's tree: %v", err))
	}
	return p, nil
}

func str(s []string, i int64) string {
	if i < 0 || int(i) >= len(s) {
		return ""
	}
	return s[i]
}

// ElementCall runs the JavaScript function fn (source text, taking the
// element as this and args) on the element with DOM node id node in tab
// id, and answers its result as JSON.
func (b *Browser) ElementCall(ctx context.Context, id target.ID, node cdp.BackendNodeID, fn string, args ...any) (json.RawMessage, error) {
	tctx, err := b.session(ctx, id)
	if err != nil {
		return nil, err
	}
	rctx, cancel := joinTimeout(tctx, ctx, 10*time.Second)
	defer cancel()
	var out json.RawMessage
	err = chromedp.Do(rctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		r, err := cdp.Call(ctx, t, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node})
		if err != nil {
			return fmt.Errorf("%w: element %d: %v", errdefs.ErrNotFound, node, err)
		}
		var cargs []*runtime.CallArgument
		for _, a := range args {
			v, err := json.Marshal(a)
			if err != nil {
				return err
			}
			cargs = append(cargs, &runtime.CallArgument{Value: v})
		}
		yes := true
		res, err := cdp.Call(ctx, t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{FunctionDeclaration: fn, ObjectID: r.Object.ObjectID,
			Arguments: cargs, ReturnByValue: &yes, AwaitPromise: &yes, UserGesture: &yes})
		_, _ = cdp.Call(ctx, t, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: r.Object.ObjectID})
		if err != nil {
			return err
		}
		if res.ExceptionDetails != nil {
			return fmt.Errorf("%s", exceptionText(res.ExceptionDetails))
		}
		if res.Result != nil {
			out = json.RawMessage(res.Result.Value)
		}
		return nil
	}))
	return out, err
}

// Visible reports whether tab id's document is visible (the tab shown in
// its window).
func (b *Browser) Visible(ctx context.Context, id target.ID) (bool, error) {
	tctx, err := b.session(ctx, id)
	if err != nil {
		return false, err
	}
	rctx, cancel := joinTimeout(tctx, ctx, 5*time.Second)
	defer cancel()
	return chromedp.Run(rctx, chromedp.Evaluate[bool](`document.visibilityState === 'visible'`))
}
