package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // formats of saved images
	_ "image/jpeg" // formats of saved images
	_ "image/png"  // formats of saved images
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto"
	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/containerd/errdefs"
)

// View is the page as browser_view shows it.
type View struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	// Text is the readable text, each interactive element written in
	// place as [N]<tag attrs>label</tag>.
	Text string `json:"text"`
	// Elements is how many elements are numbered (0..Elements-1).
	Elements int `json:"elements"`
	// Scroll says where the viewport is on the page.
	Scroll string `json:"scroll"`
	// Screenshot is the viewport as PNG.
	Screenshot []byte `json:"screenshot,omitempty"`
}

// View reads the page, numbers its interactive elements (the numbers stay
// valid until the next view or navigation) and, with shot, takes a
// screenshot of the viewport.
func (b *Browser) View(ctx context.Context, shot bool) (View, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.view(ctx, shot)
}

func (b *Browser) view(ctx context.Context, shot bool) (View, error) {
	b.gen++
	v, err := eval[View](b, ctx, "("+strings.TrimSpace(stripComments(viewJS))+")("+strconv.Itoa(b.gen)+")")
	if err != nil {
		return View{}, fmt.Errorf("read the page: %w", err)
	}
	b.setViewOK(true)
	if shot {
		png, err := run(b, ctx, 10*time.Second, chromedp.Action[[]byte](func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
			r, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{})
			return r.Data, err
		}))
		if err != nil {
			return View{}, fmt.Errorf("screenshot of the page: %w", err)
		}
		v.Screenshot = png
	}
	return v, nil
}

// stripComments drops the // comment lines heading view.js.
func stripComments(js string) string {
	var out []string
	for l := range strings.SplitSeq(js, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "//") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// Target is where a click or an input goes: an element of the last view
// (Index) or a viewport point (X, Y).
type Target struct {
	Index *int
	X, Y  *float64
}

func (t Target) check() error {
	if t.Index == nil && (t.X == nil || t.Y == nil) {
		return errdefs.ErrInvalidArgument.WithMessage("index: give an element index or both coordinate_x and coordinate_y")
	}
	if t.Index != nil && *t.Index < 0 {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("index: %d is negative", *t.Index))
	}
	if t.Index == nil {
		return checkPoint(*t.X, *t.Y)
	}
	return nil
}

// maxCoordinate bounds a viewport coordinate in CSS pixels. The page's
// input pipeline takes what it is given: a point of 1e39 leaves its
// pointer state broken until the next navigation.
const maxCoordinate = 100000

// checkPoint refuses a viewport point that is not a number or lies
// outside 0..maxCoordinate.
func checkPoint(x, y float64) error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"coordinate_x", x}, {"coordinate_y", y}} {
		if math.IsNaN(c.v) || c.v < 0 || c.v > maxCoordinate {
			return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%s: %g is outside 0..%d (CSS pixels of the viewport)", c.name, c.v, maxCoordinate))
		}
	}
	return nil
}

// element checks that index i of the last view is still valid and returns
// a JavaScript expression for it.
func (b *Browser) element(ctx context.Context, i int) (string, error) {
	b.evMu.Lock()
	ok := b.viewOK && b.gen > 0
	b.evMu.Unlock()
	if !ok {
		return "", errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("index: element %d is stale: the page changed since the last browser_view (or there was none); call browser_view and use its numbers", i))
	}
	state, err := eval[string](b, ctx, fmt.Sprintf(`(() => {
		if (window.__deskrunGen !== %d || !window.__deskrunElems) return 'stale';
		const el = window.__deskrunElems[%d];
		if (!el) return 'range:' + window.__deskrunElems.length;
		return el.isConnected ? 'ok' : 'gone';
	})()`, b.gen, i))
	if err != nil {
		return "", err
	}
	switch {
	case state == "ok":
		return fmt.Sprintf("window.__deskrunElems[%d]", i), nil
	case strings.HasPrefix(state, "range:"):
		return "", errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("index: no element %d (the last browser_view numbered 0..%s)", i, lastIndex(strings.TrimPrefix(state, "range:"))))
	case state == "gone":
		return "", errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("index: element %d is stale: it left the page; call browser_view again", i))
	}
	return "", errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("index: element %d is stale: the page changed since the last browser_view; call browser_view again", i))
}

func lastIndex(n string) string {
	v, _ := strconv.Atoi(n)
	return strconv.Itoa(v - 1)
}

// point scrolls element i into view and returns its centre.
func (b *Browser) point(ctx context.Context, t Target) (float64, float64, error) {
	if t.Index == nil {
		return *t.X, *t.Y, nil
	}
	el, err := b.element(ctx, *t.Index)
	if err != nil {
		return 0, 0, err
	}
	p, err := eval[[2]float64](b, ctx, `(() => { const el = `+el+`;
		el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
		const r = el.getBoundingClientRect();
		return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
	if err != nil {
		return 0, 0, err
	}
	return p[0], p[1], nil
}

// Click clicks an element of the last view or a viewport point with the
// left button, as a person's click (pressed and released events through
// the browser's input pipeline).
func (b *Browser) Click(ctx context.Context, t Target) error {
	if err := t.check(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.click(ctx, t)
}

func (b *Browser) click(ctx context.Context, t Target) error {
	x, y, err := b.point(ctx, t)
	if err != nil {
		return err
	}
	_, err = run(b, ctx, 10*time.Second, chromedp.Steps(
		chromedp.MouseEvent(chromedp.MouseMoved, x, y),
		chromedp.MouseClickXY(x, y),
	))
	return err
}

// Input clears the editable element at t and types text into it (any
// Unicode text arrives as given), then presses Enter if asked.
func (b *Browser) Input(ctx context.Context, t Target, text string, enter bool) error {
	if err := t.check(); err != nil {
		return err
	}
	if !utf8.ValidString(text) {
		return errdefs.ErrInvalidArgument.WithMessage("text: not valid UTF-8")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var target string
	if t.Index != nil {
		el, err := b.element(ctx, *t.Index)
		if err != nil {
			return err
		}
		target = el
	} else {
		if err := b.click(ctx, t); err != nil {
			return err
		}
		target = "document.activeElement"
	}
	// Focus the element and empty it the way the page sees an edit.
	res, err := eval[string](b, ctx, `(() => { const el = `+target+`;
		if (!el) return 'none';
		el.focus();
		if (el.isContentEditable) {
			const r = document.createRange(); r.selectNodeContents(el);
			const s = getSelection(); s.removeAllRanges(); s.addRange(r);
			document.execCommand('delete');
			return 'ok';
		}
		if (!('value' in el) || el.tagName === 'SELECT' || el.tagName === 'BUTTON') return 'not:' + el.tagName.toLowerCase();
		if (el.readOnly || el.disabled) return 'ro:' + el.tagName.toLowerCase();
		const proto = Object.getPrototypeOf(el);
		const set = Object.getOwnPropertyDescriptor(proto, 'value');
		if (set && set.set) set.set.call(el, ''); else el.value = '';
		el.dispatchEvent(new Event('input', {bubbles: true}));
		return 'ok'; })()`)
	if err != nil {
		return err
	}
	switch {
	case res == "none":
		return errdefs.ErrFailedPrecondition.WithMessage("index: no element has the focus at those coordinates")
	case strings.HasPrefix(res, "not:"):
		return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("index: the element is a <%s>, not an editable field", res[4:]))
	case strings.HasPrefix(res, "ro:"):
		return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("index: the <%s> is read-only or disabled", res[3:]))
	}
	if text != "" {
		if _, err := run(b, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
			return err
		})); err != nil {
			return fmt.Errorf("type the text: %w", err)
		}
	}
	if enter {
		return b.pressKey(ctx, "Enter")
	}
	return nil
}

// MoveMouse moves the pointer to a viewport point.
func (b *Browser) MoveMouse(ctx context.Context, x, y float64) error {
	if err := checkPoint(x, y); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	_, err := run(b, ctx, 10*time.Second, chromedp.MouseEvent(chromedp.MouseMoved, x, y))
	return err
}

// keyNames are the names browser_press_key accepts beyond single
// characters (the DOM's key values, and common spellings).
var keyNames = map[string]string{
	"enter": kb.Enter, "return": kb.Enter, "tab": kb.Tab, "escape": kb.Escape, "esc": kb.Escape,
	"backspace": kb.Backspace, "delete": kb.Delete, "del": kb.Delete, "insert": kb.Insert,
	"arrowup": kb.ArrowUp, "up": kb.ArrowUp, "arrowdown": kb.ArrowDown, "down": kb.ArrowDown,
	"arrowleft": kb.ArrowLeft, "left": kb.ArrowLeft, "arrowright": kb.ArrowRight, "right": kb.ArrowRight,
	"home": kb.Home, "end": kb.End, "pageup": kb.PageUp, "pagedown": kb.PageDown,
	"space": " ", "spacebar": " ",
	"f1": kb.F1, "f2": kb.F2, "f3": kb.F3, "f4": kb.F4, "f5": kb.F5, "f6": kb.F6,
	"f7": kb.F7, "f8": kb.F8, "f9": kb.F9, "f10": kb.F10, "f11": kb.F11, "f12": kb.F12,
}

var modifierNames = map[string]chromedp.Modifier{
	"control": chromedp.ModifierCtrl, "ctrl": chromedp.ModifierCtrl,
	"shift": chromedp.ModifierShift, "alt": chromedp.ModifierAlt, "option": chromedp.ModifierAlt,
	"meta": chromedp.ModifierMeta, "cmd": chromedp.ModifierMeta, "command": chromedp.ModifierMeta, "super": chromedp.ModifierMeta,
}

// ParseKey reads "Enter", "a", "Control+Enter", "Shift+Tab" into the
// key's character (as package kb names it) and its modifiers.
func ParseKey(s string) (string, chromedp.Modifier, error) {
	if strings.TrimSpace(s) == "" {
		return "", 0, errdefs.ErrInvalidArgument.WithMessage("key: empty")
	}
	parts := strings.Split(s, "+")
	if strings.HasSuffix(s, "++") || s == "+" { // the plus key itself
		parts = append(strings.Split(strings.TrimSuffix(s, "++"), "+"), "+")
		if s == "+" {
			parts = []string{"+"}
		}
	}
	var mods chromedp.Modifier
	for _, p := range parts[:len(parts)-1] {
		m, ok := modifierNames[strings.ToLower(strings.TrimSpace(p))]
		if !ok {
			return "", 0, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("key: unknown modifier %q in %q (want Control, Shift, Alt or Meta)", p, s))
		}
		mods |= m
	}
	last := parts[len(parts)-1]
	if utf8.RuneCountInString(last) == 1 {
		return last, mods, nil
	}
	if k, ok := keyNames[strings.ToLower(strings.TrimSpace(last))]; ok {
		return k, mods, nil
	}
	return "", 0, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("key: unknown key %q in %q (e.g. Enter, Tab, ArrowUp, a, Control+Enter)", last, s))
}

// PressKey presses a key or a combination such as Control+Enter in the
// page.
func (b *Browser) PressKey(ctx context.Context, key string) error {
	if _, _, err := ParseKey(key); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pressKey(ctx, key)
}

func (b *Browser) pressKey(ctx context.Context, key string) error {
	k, mods, err := ParseKey(key)
	if err != nil {
		return err
	}
	_, err = run(b, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, r := range k {
			for _, ev := range kb.Encode(r) {
				ev.Modifiers |= int64(mods)
				if mods&^chromedp.ModifierShift != 0 && ev.Type == kb.KeyChar {
					continue // a shortcut types nothing
				}
				if mods&^chromedp.ModifierShift != 0 {
					ev.Text, ev.UnmodifiedText = "", ""
				}
				if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, *ev); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	return err
}

// SelectOption picks option n (from 0) of the <select> at index i of the
// last view, firing input and change as a person's choice does.
func (b *Browser) SelectOption(ctx context.Context, i, n int) error {
	if i < 0 {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("index: %d is negative", i))
	}
	if n < 0 {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("option: %d is negative", n))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	el, err := b.element(ctx, i)
	if err != nil {
		return err
	}
	res, err := eval[string](b, ctx, fmt.Sprintf(`(() => { const el = %s;
		if (el.tagName !== 'SELECT') return 'not:' + el.tagName.toLowerCase();
		if (%d >= el.options.length) return 'range:' + el.options.length;
		el.focus();
		el.selectedIndex = %d;
		el.dispatchEvent(new Event('input', {bubbles: true}));
		el.dispatchEvent(new Event('change', {bubbles: true}));
		return 'ok'; })()`, el, n, n))
	if err != nil {
		return err
	}
	switch {
	case strings.HasPrefix(res, "not:"):
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("index: element %d is a <%s>, not a dropdown list (<select>)", i, res[4:]))
	case strings.HasPrefix(res, "range:"):
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("option: no option %d (the list has %s options, numbered from 0)", n, res[6:]))
	}
	return nil
}

// Scroll scrolls the page one viewport up (dir -1) or down (dir 1), or to
// its top or bottom with edge.
func (b *Browser) Scroll(ctx context.Context, dir int, edge bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	js := fmt.Sprintf("window.scrollBy({top: %d * window.innerHeight, behavior: 'instant'})", dir)
	if edge {
		if dir < 0 {
			js = "window.scrollTo({top: 0, behavior: 'instant'})"
		} else {
			js = "window.scrollTo({top: document.documentElement.scrollHeight, behavior: 'instant'})"
		}
	}
	_, err := eval[chromedp.Void](b, ctx, js)
	return err
}

// ConsoleExec evaluates JavaScript in the page as the console does and
// returns its value as JSON (promises are awaited); an exception is an
// error ([errdefs.ErrFailedPrecondition]) carrying its text.
func (b *Browser) ConsoleExec(ctx context.Context, js string) (json.RawMessage, error) {
	if strings.TrimSpace(js) == "" {
		return nil, errdefs.ErrInvalidArgument.WithMessage("javascript: empty")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t0 := time.Now()
	v, err := run(b, ctx, 30*time.Second, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise, scriptBound))
	if err := stoppedScript(err, time.Since(t0)); err != nil {
		return nil, err
	}
	if ee := asException(err); ee != "" {
		return nil, errdefs.ErrFailedPrecondition.WithMessage(ee)
	}
	if err != nil {
		if isUndefined(err) {
			return json.RawMessage("null"), nil
		}
		return nil, err
	}
	if len(v) == 0 {
		v = []byte("null")
	}
	// Chrome escapes non-ASCII text; give it back as written.
	var x any
	if json.Unmarshal(v, &x) == nil {
		if out, err := json.Marshal(x); err == nil {
			v = out
		}
	}
	return v, nil
}

// maxScript bounds a script of console_exec: the page runs one thing at a
// time, so a script that never ends would leave every later call waiting.
const maxScript = 10 * time.Second

// scriptBound has the page stop a script after maxScript.
func scriptBound(p *runtime.EvaluateParams) {
	p.Timeout = runtime.TimeDelta(maxScript.Milliseconds())
}

// stoppedScript returns the error of a script the page stopped at
// maxScript, or nil for any other outcome.
// The page answers such a script with an internal error (-32603).
func stoppedScript(err error, took time.Duration) error {
	var ce *cdproto.Error
	if !errors.As(err, &ce) || ce.Code != -32603 || took < maxScript-50*time.Millisecond {
		return nil
	}
	return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf(
		"javascript: stopped after %s: the script did not finish (an endless loop?); the page is usable again", maxScript))
}

// ConsoleLines returns the last max (default 100) console lines of the
// tools' tab.
func (b *Browser) ConsoleLines(ctx context.Context, max int) ([]string, error) {
	if max < 0 {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("max_lines: %d is negative", max))
	}
	if max == 0 {
		max = 100
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := b.current(); err != nil {
		return nil, err
	}
	b.evMu.Lock()
	defer b.evMu.Unlock()
	lines := b.console
	if len(lines) > max {
		lines = lines[len(lines)-max:]
	}
	return append([]string{}, lines...), nil
}

// SaveImage saves the image at viewport point (x, y) as
// dir/base.<ext>, ext from the image's real format, and returns the path.
func (b *Browser) SaveImage(ctx context.Context, x, y float64, dir, base string) (string, error) {
	if err := checkPoint(x, y); err != nil {
		return "", err
	}
	if !filepath.IsAbs(dir) {
		return "", errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("save_dir: %q is not an absolute path", dir))
	}
	if base == "" || strings.ContainsAny(base, "/\x00") || base == "." || base == ".." {
		return "", errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("base_name: %q is not a file name stem (no directory, not empty)", base))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	src, err := eval[string](b, ctx, fmt.Sprintf(`(() => {
		let el = document.elementFromPoint(%g, %g);
		for (let e = el; e; e = e.parentElement) {
			if (e.tagName === 'IMG') return e.currentSrc || e.src;
			if (e.tagName === 'PICTURE') { const i = e.querySelector('img'); if (i) return i.currentSrc || i.src; }
			if (e.tagName === 'CANVAS') { try { return e.toDataURL('image/png'); } catch (x) { return ''; } }
			if (e.tagName === 'svg' || e.tagName === 'SVG') return 'data:image/svg+xml;utf8,' + encodeURIComponent(e.outerHTML);
			const bg = getComputedStyle(e).backgroundImage;
			const m = bg && bg.match(/^url\("?(.*?)"?\)$/);
			if (m) return new URL(m[1], location.href).href;
		}
		return '';
	})()`, x, y))
	if err != nil {
		return "", err
	}
	if src == "" {
		return "", errdefs.ErrNotFound.WithMessage(fmt.Sprintf("coordinate_x: no image at (%g, %g) in the viewport", x, y))
	}
	data, err := b.fetch(ctx, src)
	if err != nil {
		return "", err
	}
	ext := imageExt(data)
	if ext == "" {
		return "", errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("the resource at (%g, %g) is not an image in a known format", x, y))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("save_dir: %v", err))
	}
	p := filepath.Join(dir, base+"."+ext)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return "", errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("save_dir: %v", err))
	}
	return p, nil
}

// fetch reads an image's bytes: from the page's resources when the page
// loaded it, else with the page's own fetch (same cookies and origin).
func (b *Browser) fetch(ctx context.Context, src string) ([]byte, error) {
	if strings.HasPrefix(src, "data:") {
		return decodeDataURL(src)
	}
	data, err := run(b, ctx, 30*time.Second, chromedp.Action[[]byte](func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		tree, err := cdp.Call(ctx, t, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return nil, err
		}
		r, err := cdp.Call(ctx, t, page.GetResourceContent, page.GetResourceContentParams{FrameID: tree.FrameTree.Frame.ID, URL: src})
		if err != nil {
			return nil, err
		}
		return r.Content, nil
	}))
	if err == nil && len(data) > 0 {
		return data, nil
	}
	s, err := eval[string](b, ctx, `fetch(`+strconv.Quote(src)+`).then(r => r.blob()).then(b => new Promise((ok, no) => {
		const f = new FileReader(); f.onload = () => ok(f.result); f.onerror = () => no(f.error); f.readAsDataURL(b); }))`)
	if err != nil {
		return nil, fmt.Errorf("read the image %s: %w", src, err)
	}
	return decodeDataURL(s)
}

// imageExt names the format of an image by its content.
func imageExt(data []byte) string {
	if _, format, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		switch format {
		case "jpeg":
			return "jpg"
		default:
			return format
		}
	}
	switch {
	case len(data) > 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "webp"
	case len(data) > 2 && string(data[:2]) == "BM":
		return "bmp"
	case len(data) > 4 && (string(data[:4]) == "\x00\x00\x01\x00"):
		return "ico"
	case len(data) > 12 && string(data[4:12]) == "ftypavif":
		return "avif"
	}
	head := strings.ToLower(string(data[:min(len(data), 512)]))
	if strings.Contains(head, "<svg") {
		return "svg"
	}
	return ""
}

// Tab is one page of the browser.
type Tab struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
	// Active marks the tab the browser shows (the one whose page is
	// visible), as far as the browser can tell.
	Active bool `json:"active"`
}

// Tabs lists the browser's page tabs, the active one marked.
func (b *Browser) Tabs(ctx context.Context) ([]Tab, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.start(); err != nil {
		return nil, err
	}
	return b.tabs(ctx)
}

func (b *Browser) tabs(ctx context.Context) ([]Tab, error) {
	infos, err := chromedp.Targets(b.bctx)
	if err != nil {
		return nil, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("list tabs: %v", err))
	}
	var out []Tab
	for _, ti := range infos {
		if ti.Type != "page" || strings.HasPrefix(ti.URL, "devtools://") {
			continue
		}
		out = append(out, Tab{ID: string(ti.TargetID), URL: ti.URL, Title: ti.Title})
	}
	// The visible tab is the one whose document is visible; ask each.
	for i := range out {
		vis, err := b.visible(ctx, target.ID(out[i].ID))
		if err == nil && vis {
			out[i].Active = true
			break
		}
	}
	if len(out) > 0 {
		found := false
		for _, t := range out {
			found = found || t.Active
		}
		if !found {
			out[0].Active = true
		}
	}
	return out, nil
}

// visible reports whether tab id's document is visible.
func (b *Browser) visible(ctx context.Context, id target.ID) (bool, error) {
	tctx, cancel := chromedp.NewContext(b.bctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	defer cancel()
	if err := chromedp.Do(tctx); err != nil {
		return false, err
	}
	rctx, rcancel := joinTimeout(tctx, ctx, 5*time.Second)
	defer rcancel()
	return chromedp.Run(rctx, chromedp.Evaluate[bool](`document.visibilityState === 'visible'`))
}

// OpenTabs opens each URL in a new tab, waiting for each to load (at most
// the load timeout); the last one opened is the tools' tab. A page that
// does not load in time stays open and the others are still opened; the
// answer is then a deadline error naming them.
func (b *Browser) OpenTabs(ctx context.Context, urls []string) (slow error) {
	for i, u := range urls {
		if err := CheckURL(fmt.Sprintf("urls[%d]", i), u); err != nil {
			return err
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.start(); err != nil {
		return err
	}
	for _, u := range urls {
		res, err := b.newTab(ctx)
		if err != nil {
			return errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("open a tab: %v", err))
		}
		tctx, cancel := chromedp.NewContext(b.bctx, chromedp.WithTargetID(res), chromedp.WithDetachOnCancel())
		if err := b.useTab(res, tctx, cancel); err != nil {
			cancel()
			return err
		}
		if err := b.navigate(ctx, tctx, strings.TrimSpace(u)); err != nil {
			if !errdefs.IsDeadlineExceeded(err) || ctx.Err() != nil {
				return err
			}
			slow = errors.Join(slow, err) // the tab stays open, still loading
		}
		_ = chromedp.Do(tctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, page.BringToFront, cdp.Empty{})
			return err
		}))
	}
	return nil
}

// CloseTabs closes the tabs with the given IDs (as Tabs lists them) and
// answers how many it closed; unknown IDs are skipped.
func (b *Browser) CloseTabs(ctx context.Context, ids []string) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.start(); err != nil {
		return 0, err
	}
	n := 0
	var closed []target.ID
	for _, id := range ids {
		_, err := cdp.Call(ctx, chromedp.FromContext(b.bctx).Browser, target.CloseTarget, target.CloseTargetParams{TargetID: target.ID(id)})
		if err != nil {
			continue // gone already, or not a tab
		}
		if target.ID(id) == b.tabID {
			b.forgetTab()
		}
		closed = append(closed, target.ID(id))
		n++
	}
	// Chrome answers closeTarget before the tab is gone; until it is, the
	// tab still lists and a tool following to "another" tab could pick it.
	for deadline := time.Now().Add(2 * time.Second); len(closed) > 0 && time.Now().Before(deadline); {
		infos, err := chromedp.Targets(b.bctx)
		if err != nil || !slices.ContainsFunc(infos, func(ti *target.Info) bool { return slices.Contains(closed, ti.TargetID) }) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return n, nil
}

// setDownloads sends downloads to dir without asking.
func setDownloads(ctx context.Context, t *chromedp.Target, dir string) error {
	c := chromedp.FromContext(ctx)
	if c == nil || c.Browser == nil {
		return nil
	}
	_, err := cdp.Call(ctx, c.Browser, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir,
	})
	return err
}

// forgetTab drops the tools' tab (it was closed); the next call picks
// another. The caller holds b.mu.
func (b *Browser) forgetTab() {
	if b.tabCancel != nil {
		b.tabCancel()
	}
	b.tab, b.tabCancel, b.tabID = nil, nil, ""
	b.setViewOK(false)
}

// Page is a page's address, title and HTML.
type Page struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Content string `json:"content"`
}

// Page reads a page. With url, it loads url in a new tab, reads it and
// closes the tab (a page that does not load in time is read as it is);
// otherwise it reads tab id, or the active tab when id is empty.
func (b *Browser) Page(ctx context.Context, id, url string) (Page, error) {
	const js = `({url: location.href, title: document.title, content: document.documentElement ? '<!DOCTYPE html>' + document.documentElement.outerHTML : ''})`
	if url != "" {
		if err := CheckURL("url", url); err != nil {
			return Page{}, err
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.start(); err != nil {
		return Page{}, err
	}
	if url == "" {
		var err error
		if id, err = b.tabOrActive(ctx, id); err != nil {
			return Page{}, err
		}
		var p Page
		raw, err := b.evalIn(ctx, target.ID(id), js)
		if err == nil {
			err = json.Unmarshal(raw, &p)
		}
		return p, err
	}
	res, err := b.newTab(ctx)
	if err != nil {
		return Page{}, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("open a tab: %v", err))
	}
	tctx, cancel := chromedp.NewContext(b.bctx, chromedp.WithTargetID(res)) // closes the tab when done
	defer cancel()
	// Attach on a context without deadline: the first run binds the tab's
	// session to its context.
	if err := chromedp.Do(tctx); err != nil {
		return Page{}, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("attach to the tab: %v", err))
	}
	if err := b.navigate(ctx, tctx, url); err != nil && !errdefs.IsDeadlineExceeded(err) {
		return Page{}, err
	}
	rctx, rcancel := joinTimeout(tctx, ctx, 10*time.Second)
	defer rcancel()
	return chromedp.Run(rctx, chromedp.Evaluate[Page](js))
}

// tabOrActive returns id, or the active tab's ID when id is empty.
func (b *Browser) tabOrActive(ctx context.Context, id string) (string, error) {
	if id != "" {
		return id, nil
	}
	tabs, err := b.tabs(ctx)
	if err != nil {
		return "", err
	}
	for _, t := range tabs {
		if t.Active {
			return t.ID, nil
		}
	}
	return "", errdefs.ErrNotFound.WithMessage("the browser has no tab")
}

// EvalIn evaluates JavaScript in tab id (the active tab when empty) and
// returns its value as JSON, as ConsoleExec does for the tools' tab.
func (b *Browser) EvalIn(ctx context.Context, id, js string) (json.RawMessage, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.start(); err != nil {
		return nil, err
	}
	id, err := b.tabOrActive(ctx, id)
	if err != nil {
		return nil, err
	}
	return b.evalIn(ctx, target.ID(id), js)
}

func (b *Browser) evalIn(ctx context.Context, id target.ID, js string) (json.RawMessage, error) {
	tctx, cancel := chromedp.NewContext(b.bctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	defer cancel()
	if err := chromedp.Do(tctx); err != nil {
		return nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("tab: %s: %v", id, err))
	}
	rctx, rcancel := joinTimeout(tctx, ctx, 30*time.Second)
	defer rcancel()
	t0 := time.Now()
	v, err := chromedp.Run(rctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise, scriptBound))
	if err := stoppedScript(err, time.Since(t0)); err != nil {
		return nil, err
	}
	if ee := asException(err); ee != "" {
		return nil, errdefs.ErrFailedPrecondition.WithMessage(ee)
	}
	if isUndefined(err) || (err == nil && len(v) == 0) {
		return json.RawMessage("null"), nil
	}
	if err != nil {
		return nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("tab: %s: %v", id, err))
	}
	return v, nil
}

// newTab opens a blank tab with a browser-level call (running an action
// on the browser's context would attach it to a tab, opening one in a
// browser agentd attached to). The caller holds b.mu after start.
func (b *Browser) newTab(ctx context.Context) (target.ID, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r, err := cdp.Call(ctx, chromedp.FromContext(b.bctx).Browser, target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
	return r.TargetID, err
}
