// Package browser drives the sandbox's Chromium for agentd: it starts the
// browser on demand on the desktop's X display (so screenshots and desktop
// input see the same windows), and implements the browser tools (view,
// navigate, click, input, keys, select, scroll, console, save image,
// restart) and the tab operations OSWorld's tasks use (list, open, close).
//
// The DevTools protocol is spoken through github.com/chromedp/chromedp and
// its generated github.com/chromedp/cdproto types: a maintained client
// whose allocator starts Chromium with DevTools on a pipe (nothing listens
// on a port), follows targets and tears the process down with the
// context, instead of protocol code of our own. A Chromium started by
// someone else with --remote-debugging-port (as OSWorld's tasks launch
// google-chrome) is reached on 127.0.0.1 through chromedp/remote.
//
// A Browser is safe for concurrent use; calls are serialised.
package browser

import (
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/containerd/errdefs"
)

//go:embed view.js
var viewJS string

// DefaultLoadTimeout bounds how long a navigation waits for the page's
// load event.
const DefaultLoadTimeout = 30 * time.Second

// maxConsole is how many console lines a tab keeps.
const maxConsole = 1000

// Config says how to start (or reach) the browser.
type Config struct {
	// Display is the X display the browser's window opens on.
	Display string
	// ExecPath is the browser binary; empty means the first of chromium,
	// chromium-browser, google-chrome, google-chrome-stable on $PATH.
	ExecPath string
	// ProfileDir is the user-data-dir; empty means
	// ~/.config/deskrun-chromium.
	ProfileDir string
	// DownloadDir is where downloads go; empty means ~/Downloads.
	DownloadDir string
	// Width and Height are the window's size (the screen's).
	Width, Height int
	// Remote, when set ("http://127.0.0.1:9222"), attaches to a browser
	// already listening there instead of starting one.
	Remote string
	// LoadTimeout bounds navigations; zero means DefaultLoadTimeout.
	LoadTimeout time.Duration
}

// Browser is one Chromium (started on first use) and the state of the
// browser tools: the tab they act on, the numbered elements of the last
// view and the console lines.
type Browser struct {
	cfg Config

	mu          sync.Mutex
	allocCancel context.CancelFunc
	bctx        context.Context // the browser's first context
	bcancel     context.CancelFunc
	tab         context.Context // the tab the tools act on
	tabCancel   context.CancelFunc
	tabID       target.ID
	gen         int // generation of the last view; 0: none

	// evMu guards what the tab's event listener writes; mu is held by a
	// call while it waits on events, so the listener cannot take it.
	evMu    sync.Mutex
	viewOK  bool // false after a navigation
	console []string

	// liveCtx is bctx as last seen running (for reads that must not wait
	// on b.mu); ax the sessions of the accessibility reads.
	liveCtx atomic.Pointer[context.Context]
	ax      axSessions
}

// New returns a Browser; nothing starts until the first call.
func New(cfg Config) *Browser {
	if cfg.LoadTimeout == 0 {
		cfg.LoadTimeout = DefaultLoadTimeout
	}
	return &Browser{cfg: cfg}
}

// ExecPath finds the browser binary: path if set, else the first known
// name on $PATH.
func ExecPath(path string) (string, error) {
	if path != "" {
		return exec.LookPath(path)
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", errdefs.ErrNotImplemented.WithMessage("no browser installed (chromium or google-chrome)")
}

// Flags are the command-line switches the browser runs with inside a
// locked-down container (no user namespaces for Chromium's sandbox, no GPU,
// a small /dev/shm) and without first-run UI.
func Flags(profile, downloads string, w, h int) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(profile),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,DownloadBubble"),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-session-crashed-bubble", true),
		chromedp.Flag("hide-crash-restore-bubble", true),
		chromedp.Flag("disable-search-engine-choice-screen", true),
		chromedp.Flag("no-service-autorun", true),
		chromedp.Flag("window-position", "0,0"),
		chromedp.WindowSize(w, h),
	}
}

// start launches (or attaches to) the browser. The caller holds b.mu.
func (b *Browser) start() error {
	if b.bctx != nil {
		select {
		case <-b.bctx.Done():
			b.stopLocked()
		default:
			return nil
		}
	}
	var actx context.Context
	if b.cfg.Remote != "" {
		actx, b.allocCancel = remote.NewAllocator(context.Background(), b.cfg.Remote)
	} else {
		path, err := ExecPath(b.cfg.ExecPath)
		if err != nil {
			return err
		}
		home, _ := os.UserHomeDir()
		profile := b.cfg.ProfileDir
		if profile == "" {
			profile = filepath.Join(home, ".config", "deskrun-chromium")
		}
		downloads := b.cfg.DownloadDir
		if downloads == "" {
			downloads = filepath.Join(home, "Downloads")
		}
		if err := os.MkdirAll(downloads, 0o755); err != nil {
			return fmt.Errorf("make the downloads folder: %w", err)
		}
		if err := os.MkdirAll(profile, 0o700); err != nil {
			return fmt.Errorf("make the profile folder: %w", err)
		}
		b.cfg.DownloadDir = downloads
		w, h := b.cfg.Width, b.cfg.Height
		if w == 0 {
			w, h = 1280, 800
		}
		opts := append(Flags(profile, downloads, w, h), chromedp.ExecPath(path))
		if b.cfg.Display != "" {
			opts = append(opts, chromedp.Env("DISPLAY="+b.cfg.Display))
		}
		actx, b.allocCancel = chromedp.NewExecAllocator(context.Background(), opts...)
	}
	bctx, bcancel := newContext(actx)
	if b.cfg.Remote != "" {
		// Connect without opening a tab (a first run would open one in a
		// browser we did not start); the tools take one of its tabs.
		if _, err := chromedp.Targets(bctx); err != nil {
			bcancel()
			b.allocCancel()
			b.allocCancel = nil
			return errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("reach the browser at %s: %v", b.cfg.Remote, err))
		}
		b.bctx, b.bcancel = bctx, bcancel
		b.tab, b.tabCancel, b.tabID = nil, nil, ""
		return nil
	}
	// The first run starts the browser and attaches to its first tab; its
	// context must not carry a deadline, which would end the browser.
	if err := chromedp.Do(bctx); err != nil {
		bcancel()
		b.allocCancel()
		b.allocCancel = nil
		return errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("start the browser: %v", err))
	}
	b.bctx, b.bcancel = bctx, bcancel
	b.tab, b.tabCancel = nil, nil
	if err := b.useTab(chromedp.FromContext(bctx).Target.TargetID, bctx, nil); err != nil {
		b.stopLocked()
		return err
	}
	return nil
}

// newContext is chromedp.NewContext with the library's own logging off
// (agentd reports through errors).
func newContext(parent context.Context, opts ...chromedp.ContextOption) (context.Context, context.CancelFunc) {
	quiet := func(string, ...any) {}
	return chromedp.NewContext(parent, append(opts, chromedp.WithLogf(quiet), chromedp.WithErrorf(quiet))...)
}

// useTab makes the tab of ctx the tools' tab and follows its console.
func (b *Browser) useTab(id target.ID, ctx context.Context, cancel context.CancelFunc) error {
	if b.tabCancel != nil {
		b.tabCancel()
	}
	b.tab, b.tabCancel, b.tabID = ctx, cancel, id
	b.gen, b.viewOK, b.console = 0, false, nil
	tid := id
	_ = chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			parts := make([]string, 0, len(ev.Args))
			for _, a := range ev.Args {
				parts = append(parts, remoteText(a))
			}
			b.addConsole(tid, fmt.Sprintf("[%s] %s", ev.Type, strings.Join(parts, " ")))
		case *runtime.EventExceptionThrown:
			b.addConsole(tid, "[exception] "+exceptionText(ev.ExceptionDetails))
		case *page.EventFrameNavigated:
			if ev.Frame.ParentID == "" {
				b.navigated(tid)
			}
		}
	})
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.Enable, page.EnableParams{})
		return err
	})); err != nil {
		return errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("attach to the tab: %v", err))
	}
	if b.cfg.Remote == "" && b.cfg.DownloadDir != "" {
		_ = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			return setDownloads(ctx, t, b.cfg.DownloadDir)
		}))
	}
	return nil
}

func (b *Browser) addConsole(id target.ID, line string) {
	(&b.evMu).Lock()
	defer (&b.evMu).Unlock()
	if id != b.tabID {
		return
	}
	b.console = append(b.console, line)
	if len(b.console) > maxConsole {
		b.console = b.console[len(b.console)-maxConsole:]
	}
}

func (b *Browser) navigated(id target.ID) {
	(&b.evMu).Lock()
	defer (&b.evMu).Unlock()
	if id == b.tabID {
		b.viewOK = false
	}
}

// Close ends the browser (when this Browser started it) and every tab
// context; safe to call more than once.
func (b *Browser) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopLocked()
}

func (b *Browser) stopLocked() {
	if b.tabCancel != nil {
		b.tabCancel()
	}
	if b.bcancel != nil {
		if b.cfg.Remote == "" {
			_ = chromedp.Cancel(b.bctx) // closes the browser gracefully
		}
		b.bcancel()
	}
	if b.allocCancel != nil {
		b.allocCancel() // waits for the process to exit
	}
	b.ax.closeAll()
	b.liveCtx.Store(nil)
	b.bctx, b.bcancel, b.allocCancel, b.tab, b.tabCancel, b.tabID = nil, nil, nil, nil, nil, ""
	b.gen, b.viewOK = 0, false
}

// Restart ends the browser and starts a fresh one.
func (b *Browser) Restart(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopLocked()
	return b.start()
}

// Running reports whether a browser is running.
func (b *Browser) Running() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bctx != nil && b.bctx.Err() == nil
}

// current starts the browser if needed and returns the tools' tab; when it
// was closed, the most recent page tab becomes the tools' tab (a new blank
// tab if none is left). The caller holds b.mu.
func (b *Browser) current() (context.Context, error) {
	if err := b.start(); err != nil {
		return nil, err
	}
	return b.pick(2)
}

// pick returns the tools' tab, or attaches to another page when it is
// gone; retry bounds how often a tab that vanished while being attached is
// passed over.
func (b *Browser) pick(retry int) (context.Context, error) {
	infos, err := chromedp.Targets(b.bctx)
	if err != nil {
		return nil, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("list tabs: %v", err))
	}
	var last *target.Info
	for _, ti := range infos {
		if ti.Type != "page" {
			continue
		}
		if ti.TargetID == b.tabID {
			if ch, err := chromedp.Detached(b.tab); err == nil {
				select {
				case <-ch:
					continue // closed a moment ago
				default:
				}
			}
			return b.tab, nil
		}
		if last == nil {
			last = ti
		}
	}
	if last == nil {
		ctx, cancel := chromedp.NewContext(b.bctx, chromedp.WithDetachOnCancel())
		if err := chromedp.Do(ctx); err != nil {
			cancel()
			return nil, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("open a tab: %v", err))
		}
		return ctx, b.useTab(chromedp.FromContext(ctx).Target.TargetID, ctx, cancel)
	}
	ctx, cancel := chromedp.NewContext(b.bctx, chromedp.WithTargetID(last.TargetID), chromedp.WithDetachOnCancel())
	if err := b.useTab(last.TargetID, ctx, cancel); err != nil {
		cancel()
		// A tab closing as it was picked (by a person, a page, a shortcut)
		// detaches at once; pick again among the tabs left.
		if retry > 0 && strings.Contains(err.Error(), "detached") {
			return b.pick(retry - 1)
		}
		return nil, err
	}
	return ctx, nil
}

// CheckURL refuses URLs whose scheme is not http, https, file or about.
func CheckURL(field, raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%s: %q is not a complete URL (want http://, https://, file:// or about:)", field, raw))
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "file", "about":
		return nil
	}
	return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%s: scheme %q is not allowed (want http, https, file or about)", field, u.Scheme))
}

// Navigate loads url in the tools' tab and waits for its load event, at
// most the load timeout.
func (b *Browser) Navigate(ctx context.Context, rawURL string) error {
	if err := CheckURL("url", rawURL); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	tab, err := b.current()
	if err != nil {
		return err
	}
	return b.navigate(ctx, tab, strings.TrimSpace(rawURL))
}

func (b *Browser) navigate(ctx context.Context, tab context.Context, u string) error {
	nctx, cancel := joinTimeout(tab, ctx, b.cfg.LoadTimeout)
	defer cancel()
	err := chromedp.Do(nctx, chromedp.Navigate(u))
	b.setViewOK(false)
	if err == nil {
		return nil
	}
	if errors.Is(nctx.Err(), context.DeadlineExceeded) {
		// Stop the load so that the page does not keep going after the call.
		sctx, scancel := context.WithTimeout(tab, 2*time.Second)
		_ = chromedp.Do(sctx, chromedp.Stop())
		scancel()
		return timeout(fmt.Sprintf("url: %s did not finish loading within %s", u, b.cfg.LoadTimeout))
	}
	var le *chromedp.LoadError
	if errors.As(err, &le) {
		return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("url: %s could not be loaded: %s", u, le.ErrorText))
	}
	return fmt.Errorf("navigate to %s: %w", u, err)
}

func (b *Browser) setViewOK(ok bool) {
	b.evMu.Lock()
	b.viewOK = ok
	b.evMu.Unlock()
}

// joinTimeout derives from tab (a chromedp context) a context that also
// ends with req and after d.
func joinTimeout(tab, req context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(tab, d)
	stop := context.AfterFunc(req, cancel)
	return ctx, func() { stop(); cancel() }
}

// run runs an action on the tools' tab under the request's context and a
// bound of d.
func run[T any](b *Browser, req context.Context, d time.Duration, a chromedp.Action[T]) (T, error) {
	var zero T
	tab, err := b.current()
	if err != nil {
		return zero, err
	}
	ctx, cancel := joinTimeout(tab, req, d)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil && ctx.Err() != nil {
		if req.Err() != nil {
			return zero, req.Err()
		}
		return zero, timeout(fmt.Sprintf("the page did not answer within %s: its own code may be running without end; the restart action (browser_restart) starts the browser afresh", d))
	}
	return v, err
}

// eval evaluates a JavaScript expression in the tools' tab and decodes its
// value into T; an exception is an error carrying its text.
func eval[T any](b *Browser, ctx context.Context, expr string) (T, error) {
	v, err := run(b, ctx, 10*time.Second, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	var ee *chromedp.ExceptionError
	if errors.As(err, &ee) {
		return v, errdefs.ErrFailedPrecondition.WithMessage(exceptionText(ee.ExceptionDetails))
	}
	return v, err
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "exception"
	}
	if d.Exception != nil {
		if d.Exception.Description != "" {
			return d.Exception.Description
		}
		if len(d.Exception.Value) > 0 {
			return strings.Trim(string(d.Exception.Value), `"`)
		}
	}
	return d.Text
}

// remoteText renders one console argument as the console shows it.
func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if len(o.Value) > 0 {
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
		return string(o.Value)
	}
	if o.UnserializableValue != "" {
		return string(o.UnserializableValue)
	}
	if o.Description != "" {
		return o.Description
	}
	return string(o.Type)
}

type runtimeEvaluateParams = runtime.EvaluateParams

// asException returns the text of a JavaScript exception error, or "".
func asException(err error) string {
	var ee *chromedp.ExceptionError
	if errors.As(err, &ee) {
		return exceptionText(ee.ExceptionDetails)
	}
	return ""
}

func isUndefined(err error) bool {
	return errors.Is(err, chromedp.ErrJSUndefined) || errors.Is(err, chromedp.ErrJSNull)
}

// decodeDataURL returns the bytes of a data: URL.
func decodeDataURL(s string) ([]byte, error) {
	head, body, ok := strings.Cut(s, ",")
	if !ok || !strings.HasPrefix(head, "data:") {
		return nil, fmt.Errorf("not a data URL")
	}
	if strings.HasSuffix(head, ";base64") {
		return base64.StdEncoding.DecodeString(body)
	}
	t, err := url.PathUnescape(body)
	return []byte(t), err
}

// timeoutError is a deadline that ended a call (504 on the wire).
type timeoutError struct{ msg string }

func (e timeoutError) Error() string     { return e.msg }
func (e timeoutError) DeadlineExceeded() {}

func timeout(msg string) error { return timeoutError{msg} }
