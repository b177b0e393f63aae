// Command agentd is deskrun's in-sandbox daemon: it starts or attaches to
// an X server and serves the agent API (see package agentd).
//
//	agentd --addr 127.0.0.1:0 --xvfb --screen 1280x800x24 --wm openbox
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
	"syscall"
	"time"

	"github.com/deskrun/deskrun/agentd"
	"github.com/deskrun/deskrun/api/wire"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "agentd:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:7000", "listen address")
	xvfb := flag.Bool("xvfb", false, "start an Xvfb of --screen size (on --display, or a free display)")
	display := flag.String("display", "", "X display (default $DISPLAY, or a free one with --xvfb)")
	screen := flag.String("screen", "1280x800x24", "screen size WxH[xDEPTH] for --xvfb")
	wm := flag.String("wm", "", "window manager to start with --xvfb, e.g. openbox")
	insecure := flag.Bool("insecure-no-token", false, "serve without a bearer token (AGENTD_TOKEN unset)")
	verbose := flag.Bool("v", false, "log debug lines, including the X server's")
	flag.Parse()

	token := os.Getenv("AGENTD_TOKEN")
	if token == "" && !*insecure {
		return fmt.Errorf("AGENTD_TOKEN is not set (use --insecure-no-token to serve without one)")
	}
	var sc wire.Screen
	var depth int
	if n, err := fmt.Sscanf(*screen, "%dx%dx%d", &sc.Width, &sc.Height, &depth); err != nil && n < 2 {
		return fmt.Errorf("--screen: want WxH or WxHxDEPTH, got %q", *screen)
	}
	if sc.Width < 1 || sc.Height < 1 || sc.Width > 7680 || sc.Height > 4320 {
		return fmt.Errorf("--screen: %dx%d out of range 1x1..7680x4320", sc.Width, sc.Height)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv, err := agentd.Start(ctx, agentd.Config{
		Addr: *addr, Xvfb: *xvfb, Display: *display, Screen: sc, WM: *wm, Token: token, Logger: log,
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
