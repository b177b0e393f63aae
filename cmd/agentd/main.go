// Command agentd is deskrun's in-sandbox daemon: it starts or attaches to
// an X server and serves the agent API (see package agentd).
//
//	agentd --addr 127.0.0.1:0 --xvfb --screen 1280x800x24 --wm openbox
//
// AGENTD_SOLE_DESKTOP=1 (set by the docker and kube providers) says every
// process of the host is on agentd's desktop.
//
// The bearer token comes from AGENTD_TOKEN. Once serving, agentd prints
// one JSON line on stdout: {"addr":"127.0.0.1:PORT","display":":N"}.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/deskrun/deskrun/agentd"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "agentd:", err)
		os.Exit(1)
	}
}

var screenFlag = regexp.MustCompile(`^([0-9]{1,5})x([0-9]{1,5})(?:x([0-9]{1,2}))?$`)

// parseScreen reads --screen: WxH or WxHx24.
func parseScreen(v string) (api.Screen, error) {
	m := screenFlag.FindStringSubmatch(v)
	if m == nil {
		return api.Screen{}, fmt.Errorf("--screen: want WxH or WxHx24, got %q", v)
	}
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	if m[3] != "" && m[3] != "24" {
		return api.Screen{}, fmt.Errorf("--screen: depth %s not supported (agentd's Xvfb runs at depth 24)", m[3])
	}
	if w < 1 || h < 1 || w > 7680 || h > 4320 {
		return api.Screen{}, fmt.Errorf("--screen: %dx%d out of range 1x1..7680x4320", w, h)
	}
	return api.Screen{Width: w, Height: h}, nil
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:7000", "listen address")
	xvfb := flag.Bool("xvfb", false, "start an Xvfb of --screen size (on --display, or a free display)")
	display := flag.String("display", "", "X display (default $DISPLAY, or a free one with --xvfb)")
	screen := flag.String("screen", "1280x800x24", "screen size WxH[xDEPTH] for --xvfb")
	wm := flag.String("wm", "", "window manager to start with --xvfb, e.g. openbox")
	wmReady := flag.String("wm-ready", os.Getenv("AGENTD_WM_READY"), "with --wm: a file the window manager makes once it is ready; agentd waits for it (at most 30s), then for the desktop's processes to settle (at most 30s), before answering (default $AGENTD_WM_READY)")
	wmBusy := flag.String("wm-busy", os.Getenv("AGENTD_WM_BUSY"), "with --wm: a file the window manager keeps while it holds keys typed ahead of a window; accessibility reads wait for it to go (at most 25s) (default $AGENTD_WM_BUSY)")
	insecure := flag.Bool("insecure-no-token", false, "serve without a bearer token (AGENTD_TOKEN unset)")
	verbose := flag.Bool("v", false, "log debug lines, including the X server's")
	flag.Parse()

	token := os.Getenv("AGENTD_TOKEN")
	if token == "" && !*insecure {
		return fmt.Errorf("AGENTD_TOKEN is not set (use --insecure-no-token to serve without one)")
	}
	// The token stays in this process alone: out of the environment the
	// desktop's programs and commands inherit, and out of reach of the
	// sandbox user's processes, which could otherwise read it from
	// /proc/<pid>/environ or by ptrace (a non-dumpable process's /proc
	// files belong to root).
	os.Unsetenv("AGENTD_TOKEN")
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("keep the token private: prctl: %w", err)
	}
	sc, err := parseScreen(*screen)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewJSONHandler(os.Stderr, opts)
	if st, err := os.Stderr.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		h = slog.NewTextHandler(os.Stderr, opts)
	}
	log := slog.New(h)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv, err := agentd.Start(ctx, agentd.Config{
		Addr: *addr, Xvfb: *xvfb, Display: *display, Screen: sc, WM: *wm, WMReady: *wmReady, WMBusy: *wmBusy, Token: token, Logger: log,
		SoleDesktop: os.Getenv(sandbox.SoleDesktopEnv) == "1",
	})
	if err != nil {
		return err
	}
	ready, _ := json.Marshal(map[string]string{"addr": srv.Addr(), "display": srv.Display()})
	fmt.Println(string(ready))
	log.Info("serving", "addr", srv.Addr(), "display", srv.Display())
	<-ctx.Done()
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Close(sctx)
}
