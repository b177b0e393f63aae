// Command deskrun starts and serves disposable Linux desktops for
// computer-use agents.
//
//	deskrun serve [--addr 127.0.0.1:8080] [--provider auto|docker|local] [--token T]
//	deskrun sessions list|create|get|delete|screenshot|exec|input|cursor|tool|read|write ...
//	deskrun tools [--dialect anthropic] [--json] [NAME]
//	deskrun mcp [--dialect anthropic] [--provider auto|docker|local] [--screen WxH]
//	deskrun eval --tasks DIR --out DIR
//	deskrun runs start|list|show|results|report|cancel ...
//	deskrun reap [--all]
//	deskrun version
//
// Each subcommand lives in its own file and is listed in [commands].
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// command is one subcommand. run gets the arguments after the
// subcommand's name; ctx ends on SIGINT or SIGTERM.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands is the table of subcommands, in the order usage lists them.
func commands() []command {
	return []command{
		{"serve", "serve the REST API (and MCP at /mcp), starting sandboxes on demand", serve},
		{"sessions", "list, create, drive and delete the sessions of a server", sessions},
		{"tools", "print the tool definitions of a dialect", tools},
		{"mcp", "serve one desktop's tools over MCP on standard input and output", mcpStdio},
		{"eval", "run a task suite against an agent in parallel sandboxes and grade it", eval},
		{"tasks", "check task files without running them (tasks check PATH), list what they may use (tasks names)", tasksCmd},
		{"runs", "start, follow and cancel task suite runs on a server", runs},
		{"reap", "remove the sandbox containers a crashed server left behind", reap},
		{"version", "print the version", version},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// usageError is a mistake in the command line: deskrun prints it and
// exits with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitError makes deskrun exit with a status without printing anything
// more, e.g. the exit status of a command run by `sessions exec`.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// run runs the subcommand args[0] and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	var cmd *command
	for _, c := range commands() {
		if c.name == args[0] {
			cmd = &c
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "deskrun: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	err := cmd.run(ctx, args[1:], stdout, stderr)
	var ue usageError
	var ee exitError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "deskrun %s: %v\n", cmd.name, err)
		return 2
	}
	fmt.Fprintf(stderr, "deskrun %s: %v\n", cmd.name, err)
	return 1
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: deskrun <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\n'deskrun <command> -h' describes a command's flags.")
}

// newFlags returns a flag set for a subcommand that reports mistakes as
// usage errors instead of exiting.
func newFlags(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("deskrun "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: deskrun %s %s\n\nflags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args into fs, turning a mistake into a usage error.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	return nil
}

// env returns the environment variable name, or def when it is unset or
// empty.
func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// newLogger builds the one log handler of the process: text on a
// terminal, JSON lines otherwise, at level ("debug", "info", "warn",
// "error").
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, usagef("--log-level: want debug, info, warn or error, got %q", level)
	}
	o := &slog.HandlerOptions{Level: l}
	if isTerminal(w) { // isTerminal is in eval.go
		return slog.New(slog.NewTextHandler(w, o)), nil
	}
	return slog.New(slog.NewJSONHandler(w, o)), nil
}

// keyValues is a repeatable K=V flag.
type keyValues map[string]string

func (kv *keyValues) String() string {
	var parts []string
	for k, v := range *kv {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ",")
}

func (kv *keyValues) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", s)
	}
	if *kv == nil {
		*kv = map[string]string{}
	}
	(*kv)[k] = v
	return nil
}
