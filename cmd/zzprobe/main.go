package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

func med(ds []time.Duration) time.Duration { sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] }); return ds[len(ds)/2] }

func main() {
	actx, cancel := chromedp.NewRemoteAllocator(context.Background(), os.Args[1])
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Run(bctx); err != nil {
		panic(err)
	}
	ts, _ := chromedp.Targets(bctx)
	var id target.ID
	for _, t := range ts {
		if t.Type == "page" {
			id = t.TargetID
		}
	}
	tctx, cancel := chromedp.NewContext(bctx, chromedp.WithTargetID(id))
	defer cancel()
	yes := true
	run := func(name string, f func(ctx context.Context, t *chromedp.Target) error) {
		var ds []time.Duration
		for i := 0; i < 15; i++ {
			t0 := time.Now()
			err := chromedp.Run(tctx, chromedp.ActionFunc(func(ctx context.Context) error {
				return f(ctx, chromedp.FromContext(ctx).Target)
			}))
			if err != nil {
				panic(err)
			}
			ds = append(ds, time.Since(t0))
		}
		fmt.Printf("%s: median %v\n", name, med(ds))
	}
	n := 0
	run("ax", func(ctx context.Context, t *chromedp.Target) error {
		r, err := cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
		n = len(r.Nodes)
		return err
	})
	fmt.Println("nodes", n)
	run("snapshot-styles-rects", func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, domsnapshot.CaptureSnapshot, domsnapshot.CaptureSnapshotParams{ComputedStyles: []string{"display", "text-align", "direction"}, IncludeDOMRects: &yes})
		return err
	})
	run("snapshot-bare", func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, domsnapshot.CaptureSnapshot, domsnapshot.CaptureSnapshotParams{ComputedStyles: []string{}})
		return err
	})
	run("ax-raw", func(ctx context.Context, t *chromedp.Target) error {
		return t.Execute(ctx, "Accessibility.getFullAXTree", nil, nil)
	})
	run("snapshot-raw", func(ctx context.Context, t *chromedp.Target) error {
		return t.Execute(ctx, "DOMSnapshot.captureSnapshot", domsnapshot.CaptureSnapshotParams{ComputedStyles: []string{"display", "text-align", "direction"}, IncludeDOMRects: &yes}, nil)
	})
	run("eval", func(ctx context.Context, t *chromedp.Target) error {
		return t.Execute(ctx, "Runtime.evaluate", map[string]any{"expression": "1"}, nil)
	})
}
