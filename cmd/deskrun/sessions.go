package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/deskrun/deskrun/api"
)

const sessionsUsage = `usage: deskrun sessions VERB [flags] [arguments]

A client of a deskrun server's API. Verbs:
  list [--json]                       the sessions
  create [-q] [--provider P] [--image I] [--screen WxH] [--dialect D]
         [--network] [--sudo] [--record] [--runtime R] [--env K=V]... [--label K=V]...
                                      start a sandbox; prints the session (-q: its id)
  get ID                              the session
  fork ID [-n N] [-q]                 N (1..16, default 1) new sessions from the session's current
                                      state, each with its own id and token (-q: their ids);
                                      needs a sandbox under the runsc-snap runtime (docs/snapshots.md)
  pause ID                            save the session to disk and free its memory
  resume ID                           restore a paused session as it was
  delete ID...                        destroy sessions
  recording ID [-o FILE]              the video of a session created with --record (WebM),
                                      also after it ended
  screenshot ID [-o FILE] [--max-width N] [--region x0,y0,x1,y1] [--format png|jpeg] [--quality Q]
                                      save the screen (-o -: to standard output)
  exec ID [--timeout D] [--dir DIR] [--env K=V]... [--stdin FILE] -- CMD [ARG]...
                                      run a command; deskrun exits with its status
  input ID ACTIONS                    run core actions: '{"actions":[...]}' or '[...]', - reads them from stdin
  cursor ID                           the pointer position
  tool ID NAME [ARGS] [--dialect D] [--images DIR]
                                      call a tool with JSON arguments (- reads them from stdin)
  read ID PATH                        a file of the sandbox, to standard output
  write ID PATH [FILE]                write a file of the sandbox from FILE or standard input
  vnc ID [--listen ADDR] [--view-only]
                                      forward a local TCP port (default 127.0.0.1:5901) to the
                                      session's live view (RFB), for native viewers such as
                                      TigerVNC's: vncviewer 127.0.0.1::5901; until interrupted

Every verb takes --server URL (default $DESKRUN_URL, else http://127.0.0.1:8080)
and --token T (default $DESKRUN_TOKEN).`

// sessionsCmd holds what every verb of `deskrun sessions` shares.
type sessionsCmd struct{ clientCmd }

// parseAll parses flags anywhere among args (up to a "--", after which
// everything is an argument) and returns the arguments.
func parseAll(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parse(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func sessions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runSessions(ctx, args, os.Stdin, stdout, stderr)
}

func runSessions(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	sc := &sessionsCmd{newClientCmd("sessions", sessionsUsage, stdin, stdout, stderr)}
	return sc.dispatch(ctx, args, map[string]func(context.Context, []string) error{
		"list": sc.list, "create": sc.create, "get": sc.get, "delete": sc.delete,
		"screenshot": sc.screenshot, "recording": sc.recording, "exec": sc.exec, "input": sc.input, "cursor": sc.cursor,
		"tool": sc.tool, "read": sc.read, "write": sc.write, "vnc": sc.vnc,
		"fork": sc.fork, "pause": sc.pause, "resume": sc.resume,
	})
}

// want checks the number of arguments of a verb.
func want(verb string, pos []string, min, max int, what string) error {
	if len(pos) < min || (max >= 0 && len(pos) > max) {
		return usagef("%s: want %s, got %d arguments", verb, what, len(pos))
	}
	return nil
}

func (sc *sessionsCmd) list(ctx context.Context, args []string) error {
	fs := sc.flags("list")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("list", pos, 0, 0, "no arguments"); err != nil {
		return err
	}
	l, err := sc.client().Sessions(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		if l == nil {
			l = []api.Session{}
		}
		return writeJSON(sc.stdout, api.SessionList{Sessions: l})
	}
	tw := tabwriter.NewWriter(sc.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPROVIDER\tSCREEN\tDIALECT\tAGE")
	for _, s := range l {
		fmt.Fprintf(tw, "%s\t%s\t%dx%d\t%s\t%s\n", s.ID, s.Provider, s.Screen.Width, s.Screen.Height, s.Dialect, time.Since(s.CreatedAt).Round(time.Second))
	}
	return tw.Flush()
}

func parseScreen(s string) (api.Screen, error) {
	w, h, ok := strings.Cut(s, "x")
	width, errW := strconv.Atoi(w)
	height, errH := strconv.Atoi(h)
	if !ok || errW != nil || errH != nil {
		return api.Screen{}, usagef("--screen: want WxH, e.g. 1280x800, got %q", s)
	}
	return api.Screen{Width: width, Height: height}, nil
}

func (sc *sessionsCmd) create(ctx context.Context, args []string) error {
	fs := sc.flags("create")
	var req api.CreateSessionRequest
	fs.StringVar(&req.Provider, "provider", "", "provider: docker or local (default the server's)")
	fs.StringVar(&req.Image, "image", "", "sandbox image (docker; default the server's)")
	screen := fs.String("screen", "", "screen size WxH (default 1280x800)")
	fs.StringVar(&req.Dialect, "dialect", "", "dialect of tool calls that name none (default the server's)")
	fs.BoolVar(&req.Network, "network", false, "give the sandbox network egress")
	fs.BoolVar(&req.Sudo, "sudo", false, "let the agent's user run sudo (docker sandboxes)")
	fs.BoolVar(&req.Record, "record", false, "record a video of the desktop (GET /v1/sessions/{id}/recording)")
	fs.StringVar(&req.Runtime, "runtime", "", "container runtime of a docker sandbox, e.g. runsc-snap (gVisor with snapshots: fork, pause)")
	var envs, labels keyValues
	fs.Var(&envs, "env", "K=V added to the sandbox's environment (repeatable)")
	fs.Var(&labels, "label", "K=V label of the sandbox (repeatable)")
	quiet := fs.Bool("q", false, "print only the session id")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("create", pos, 0, 0, "no arguments"); err != nil {
		return err
	}
	if *screen != "" {
		if req.Screen, err = parseScreen(*screen); err != nil {
			return err
		}
	}
	req.Env, req.Labels = envs, labels
	s, err := sc.client().CreateSession(ctx, req)
	if err != nil {
		return err
	}
	if *quiet {
		_, err := fmt.Fprintln(sc.stdout, s.ID)
		return err
	}
	return writeJSON(sc.stdout, s)
}

func (sc *sessionsCmd) get(ctx context.Context, args []string) error {
	pos, err := parseAll(sc.flags("get"), args)
	if err != nil {
		return err
	}
	if err := want("get", pos, 1, 1, "a session id"); err != nil {
		return err
	}
	s, err := sc.client().Session(ctx, pos[0])
	if err != nil {
		return err
	}
	return writeJSON(sc.stdout, s)
}

func (sc *sessionsCmd) delete(ctx context.Context, args []string) error {
	pos, err := parseAll(sc.flags("delete"), args)
	if err != nil {
		return err
	}
	if err := want("delete", pos, 1, -1, "session ids"); err != nil {
		return err
	}
	var errs []error
	for _, id := range pos {
		if err := sc.client().DeleteSession(ctx, id); err != nil {
			errs = append(errs, fmt.Errorf("delete %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

func (sc *sessionsCmd) recording(ctx context.Context, args []string) error {
	fs := sc.flags("recording")
	out := fs.String("o", "recording.webm", "output file; - for standard output")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("recording", pos, 1, 1, "a session id"); err != nil {
		return err
	}
	b, err := sc.client().Recording(ctx, pos[0])
	if err != nil {
		return err
	}
	if *out == "-" {
		_, err := sc.stdout.Write(b)
		return err
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(sc.stderr, "%s: %d bytes\n", *out, len(b))
	return nil
}

func (sc *sessionsCmd) screenshot(ctx context.Context, args []string) error {
	fs := sc.flags("screenshot")
	out := fs.String("o", "screenshot.png", "output file; - for standard output")
	var o api.ScreenshotOptions
	fs.IntVar(&o.MaxWidth, "max-width", 0, "scale down to at most this width")
	region := fs.String("region", "", "crop to x0,y0,x1,y1 before scaling")
	fs.StringVar(&o.Format, "format", "", "png or jpeg (default from the file name, else png)")
	fs.IntVar(&o.Quality, "quality", 0, "JPEG quality 1..100")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("screenshot", pos, 1, 1, "a session id"); err != nil {
		return err
	}
	if o.Format == "" {
		switch strings.ToLower(filepath.Ext(*out)) {
		case ".jpg", ".jpeg":
			o.Format = api.FormatJPEG
		}
	}
	if *region != "" {
		r, err := api.ParseRegion(*region, api.Screen{})
		if err != nil {
			return usageError{fmt.Errorf("--%w", err)}
		}
		o.Region = &r
	}
	shot, err := sc.client().Screenshot(ctx, pos[0], o)
	if err != nil {
		return err
	}
	if *out == "-" {
		_, err := sc.stdout.Write(shot.Data)
		return err
	}
	if err := os.WriteFile(*out, shot.Data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(sc.stderr, "%s: %s %dx%d (scale %g of the %dx%d screen)\n", *out, shot.Format, shot.Width, shot.Height, shot.Scale, shot.Screen.Width, shot.Screen.Height)
	return nil
}

func (sc *sessionsCmd) exec(ctx context.Context, args []string) error {
	fs := sc.flags("exec")
	timeout := fs.Duration("timeout", 0, "kill the command after this long (default the sandbox's, 30s)")
	dir := fs.String("dir", "", "absolute working directory (default the user's home)")
	stdinFile := fs.String("stdin", "", "file to feed the command's standard input; - for deskrun's")
	var envs keyValues
	fs.Var(&envs, "env", "K=V added to the command's environment (repeatable)")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("exec", pos, 2, -1, "a session id and a command (ID -- CMD [ARG]...)"); err != nil {
		return err
	}
	req := api.ExecRequest{Cmd: pos[1:], TimeoutMS: int(timeout.Milliseconds()), Dir: *dir, Env: envs}
	if *stdinFile != "" {
		b, err := readInput(sc.stdin, *stdinFile)
		if err != nil {
			return err
		}
		req.Stdin = string(b)
	}
	r, err := sc.client().Exec(ctx, pos[0], req)
	if err != nil {
		return err
	}
	io.WriteString(sc.stdout, r.Stdout)
	io.WriteString(sc.stderr, r.Stderr)
	switch {
	case r.TimedOut:
		fmt.Fprintf(sc.stderr, "deskrun: %s timed out\n", pos[1])
		return exitError{124}
	case r.ExitCode != 0:
		return exitError{r.ExitCode}
	}
	return nil
}

// readInput reads name, or r when name is "-".
func readInput(r io.Reader, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(r)
	}
	return os.ReadFile(name)
}

func (sc *sessionsCmd) input(ctx context.Context, args []string) error {
	pos, err := parseAll(sc.flags("input"), args)
	if err != nil {
		return err
	}
	if err := want("input", pos, 2, 2, `a session id and actions ('{"actions":[...]}', '[...]' or -)`); err != nil {
		return err
	}
	body := []byte(pos[1])
	if pos[1] == "-" {
		if body, err = io.ReadAll(sc.stdin); err != nil {
			return err
		}
	}
	var req api.InputRequest
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "[") {
		err = json.Unmarshal(body, &req.Actions)
	} else {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		return usagef("input: actions are not valid JSON: %v", err)
	}
	res, err := sc.client().Input(ctx, pos[0], req.Actions)
	if err == nil || len(res.Results) > 0 { // the report of the actions attempted
		if werr := writeJSON(sc.stdout, res); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

func (sc *sessionsCmd) cursor(ctx context.Context, args []string) error {
	pos, err := parseAll(sc.flags("cursor"), args)
	if err != nil {
		return err
	}
	if err := want("cursor", pos, 1, 1, "a session id"); err != nil {
		return err
	}
	p, err := sc.client().Cursor(ctx, pos[0])
	if err != nil {
		return err
	}
	return writeJSON(sc.stdout, p)
}

func (sc *sessionsCmd) tool(ctx context.Context, args []string) error {
	fs := sc.flags("tool")
	dn := fs.String("dialect", "", "dialect (default the session's)")
	images := fs.String("images", "", "save the images of the result in `DIR` (they are left out of the printed JSON)")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("tool", pos, 2, 3, "a session id, a tool name and optional JSON arguments"); err != nil {
		return err
	}
	var targs json.RawMessage
	if len(pos) == 3 {
		targs = json.RawMessage(pos[2])
		if pos[2] == "-" {
			if targs, err = io.ReadAll(sc.stdin); err != nil {
				return err
			}
		}
		if !json.Valid(targs) {
			return usagef("tool: the arguments are not valid JSON: %s", targs)
		}
	}
	var callArgs any
	if targs != nil {
		callArgs = targs
	}
	r, err := sc.client().CallTool(ctx, pos[0], *dn, pos[1], callArgs)
	if err != nil {
		return err
	}
	for i := range r.Content {
		p := &r.Content[i]
		if p.Type != "image" {
			continue
		}
		if *images != "" {
			ext := strings.TrimPrefix(p.MIMEType, "image/")
			name := filepath.Join(*images, fmt.Sprintf("%s-%d.%s", pos[1], i, ext))
			if err := os.WriteFile(name, p.Data, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(sc.stderr, "%s: %s %dx%d\n", name, p.MIMEType, p.Width, p.Height)
		}
		p.Data = nil // keep the terminal readable
	}
	if err := writeJSON(sc.stdout, r); err != nil {
		return err
	}
	if r.IsError {
		return exitError{1}
	}
	return nil
}

func (sc *sessionsCmd) read(ctx context.Context, args []string) error {
	pos, err := parseAll(sc.flags("read"), args)
	if err != nil {
		return err
	}
	if err := want("read", pos, 2, 2, "a session id and a path"); err != nil {
		return err
	}
	b, err := sc.client().ReadFile(ctx, pos[0], pos[1])
	if err != nil {
		return err
	}
	_, err = sc.stdout.Write(b)
	return err
}

func (sc *sessionsCmd) write(ctx context.Context, args []string) error {
	pos, err := parseAll(sc.flags("write"), args)
	if err != nil {
		return err
	}
	if err := want("write", pos, 2, 3, "a session id, a path and optionally a local file"); err != nil {
		return err
	}
	src := "-"
	if len(pos) == 3 {
		src = pos[2]
	}
	b, err := readInput(sc.stdin, src)
	if err != nil {
		return err
	}
	return sc.client().WriteFile(ctx, pos[0], pos[1], b)
}
