package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/runner/dialect"
)

func init() {
	commands["sessions"] = command{"list, create, inspect, drive and delete sessions of a server", sessions}
	commands["tools"] = command{"print the tool definitions of a dialect", tools}
}

const sessionsUsage = `usage: deskrun sessions [--server URL] [--token T] <verb> ...
  list
  create [--provider P] [--image I] [--screen 1280x800] [--dialect D] [--network]
  get ID
  delete ID
  screenshot ID [-o file.png] [--max-width N]
  exec ID -- CMD [ARGS...]
  tool ID NAME '{"json":"args"}' [--dialect D]
The server defaults to $DESKRUN_URL or http://127.0.0.1:8080, the token to $DESKRUN_TOKEN.`

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func sessions(args []string) error {
	fs := flag.NewFlagSet("sessions", flag.ExitOnError)
	server := fs.String("server", env("DESKRUN_URL", "http://127.0.0.1:8080"), "deskrun server")
	token := fs.String("token", os.Getenv("DESKRUN_TOKEN"), "bearer token")
	fs.Usage = func() { fmt.Fprintln(os.Stderr, sessionsUsage) }
	fs.Parse(args)
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("a verb is required")
	}
	c := api.NewClient(*server, *token, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	verb, rest := fs.Arg(0), fs.Args()[1:]
	needID := func() (string, error) {
		if len(rest) == 0 {
			return "", fmt.Errorf("%s: a session id is required", verb)
		}
		return rest[0], nil
	}
	switch verb {
	case "list":
		l, err := c.Sessions(ctx)
		if err != nil {
			return err
		}
		return printJSON(wire.SessionList{Sessions: l})
	case "create":
		cf := flag.NewFlagSet("create", flag.ExitOnError)
		prov := cf.String("provider", "", "provider (server default if empty)")
		image := cf.String("image", "", "sandbox image (docker)")
		screen := cf.String("screen", "", "screen size WxH")
		dn := cf.String("dialect", "", "default tool dialect")
		network := cf.Bool("network", false, "give the sandbox network egress")
		cf.Parse(rest)
		req := wire.CreateSessionRequest{Provider: *prov, Image: *image, Dialect: *dn, Network: *network}
		if *screen != "" {
			if _, err := fmt.Sscanf(*screen, "%dx%d", &req.Screen.Width, &req.Screen.Height); err != nil {
				return fmt.Errorf("--screen: want WxH, got %q", *screen)
			}
		}
		s, err := c.CreateSession(ctx, req)
		if err != nil {
			return err
		}
		return printJSON(s)
	case "get":
		id, err := needID()
		if err != nil {
			return err
		}
		s, err := c.Session(ctx, id)
		if err != nil {
			return err
		}
		return printJSON(s)
	case "delete":
		id, err := needID()
		if err != nil {
			return err
		}
		return c.DeleteSession(ctx, id)
	case "screenshot":
		id, err := needID()
		if err != nil {
			return err
		}
		sf := flag.NewFlagSet("screenshot", flag.ExitOnError)
		out := sf.String("o", "screenshot.png", "output file")
		mw := sf.Int("max-width", 0, "scale down to this width")
		sf.Parse(rest[1:])
		o := wire.ScreenshotOptions{MaxWidth: *mw}
		if strings.HasSuffix(*out, ".jpg") || strings.HasSuffix(*out, ".jpeg") {
			o.Format = wire.FormatJPEG
		}
		shot, err := c.Screenshot(ctx, id, o)
		if err != nil {
			return err
		}
		fmt.Printf("%s: %dx%d (scale %g of %dx%d)\n", *out, shot.Width, shot.Height, shot.Scale, shot.Screen.Width, shot.Screen.Height)
		return os.WriteFile(*out, shot.Data, 0o644)
	case "exec":
		id, err := needID()
		if err != nil {
			return err
		}
		cmd := rest[1:]
		if len(cmd) > 0 && cmd[0] == "--" {
			cmd = cmd[1:]
		}
		if len(cmd) == 0 {
			return fmt.Errorf("exec: a command is required")
		}
		r, err := c.Exec(ctx, id, wire.ExecRequest{Cmd: cmd})
		if err != nil {
			return err
		}
		os.Stdout.WriteString(r.Stdout)
		os.Stderr.WriteString(r.Stderr)
		if r.ExitCode != 0 {
			return fmt.Errorf("exit status %d", r.ExitCode)
		}
		return nil
	case "tool":
		if len(rest) < 2 {
			return fmt.Errorf("tool: want ID NAME [JSON-ARGS]")
		}
		tf := flag.NewFlagSet("tool", flag.ExitOnError)
		dn := tf.String("dialect", "", "dialect (the session's if empty)")
		var args json.RawMessage = []byte("{}")
		pos := rest[2:]
		if len(pos) > 0 && !strings.HasPrefix(pos[0], "-") {
			args = json.RawMessage(pos[0])
			pos = pos[1:]
		}
		tf.Parse(pos)
		r, err := c.CallTool(ctx, rest[0], *dn, rest[1], args)
		if err != nil {
			return err
		}
		for i := range r.Content {
			if r.Content[i].Type == "image" {
				r.Content[i].Data = nil // keep the terminal readable
			}
		}
		return printJSON(r)
	}
	fs.Usage()
	return fmt.Errorf("unknown verb %q", verb)
}

func tools(args []string) error {
	fs := flag.NewFlagSet("tools", flag.ExitOnError)
	dn := fs.String("dialect", "anthropic", "dialect: "+strings.Join(dialect.Names(), ", "))
	asJSON := fs.Bool("json", false, "print the function schemas ({name, description, parameters}) an agent's tool list takes")
	full := fs.Bool("full", false, "print the full definitions (level 2) as JSON")
	fs.Parse(args)
	defs, ok := dialect.Definitions(*dn)
	if !ok {
		return fmt.Errorf("--dialect: unknown dialect %q (want one of %s)", *dn, strings.Join(dialect.Names(), ", "))
	}
	switch {
	case *full:
		return printJSON(defs)
	case *asJSON:
		fns := make([]any, 0, len(defs))
		for _, d := range defs {
			fns = append(fns, d.Function())
		}
		return printJSON(fns)
	}
	for _, d := range defs {
		s := d.Summary()
		fmt.Printf("%-28s %s\n", s.Name, s.Description)
	}
	return nil
}
