package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/deskrun/deskrun/api/client"
)

// clientCmd is what the verbs of the API client commands (deskrun
// sessions, deskrun runs) share: the server and its token, the streams,
// and the command's usage text.
type clientCmd struct {
	name, usage    string
	server, token  string
	stdin          io.Reader
	stdout, stderr io.Writer
}

func newClientCmd(name, usage string, stdin io.Reader, stdout, stderr io.Writer) clientCmd {
	return clientCmd{
		name: name, usage: usage,
		server: env("DESKRUN_URL", "http://127.0.0.1:8080"),
		token:  os.Getenv("DESKRUN_TOKEN"),
		stdin:  stdin, stdout: stdout, stderr: stderr,
	}
}

// flags returns a flag set for verb with --server and --token.
func (c *clientCmd) flags(verb string) *flag.FlagSet {
	fs := flag.NewFlagSet("deskrun "+c.name+" "+verb, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintln(c.stderr, c.usage)
		if verb != "" {
			fmt.Fprintf(c.stderr, "\nflags of %s:\n", verb)
			fs.PrintDefaults()
		}
	}
	fs.StringVar(&c.server, "server", c.server, "deskrun server URL")
	fs.StringVar(&c.token, "token", c.token, "bearer token")
	return fs
}

func (c *clientCmd) client() *client.Client { return client.NewClient(c.server, c.token, nil) }

// dispatch parses the flags that come before the verb, runs the verb
// with the rest, and explains a refused connection.
func (c *clientCmd) dispatch(ctx context.Context, args []string, verbs map[string]func(context.Context, []string) error) error {
	top := c.flags("")
	if err := parse(top, args); err != nil {
		return err
	}
	if top.NArg() == 0 {
		top.Usage()
		return usagef("a verb is required")
	}
	verb, rest := top.Arg(0), top.Args()[1:]
	f, ok := verbs[verb]
	if !ok {
		top.Usage()
		return usagef("unknown verb %q", verb)
	}
	err := f(ctx, rest)
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("no deskrun server answers at %s (start one with deskrun serve, or set --server or DESKRUN_URL): %w", c.server, err)
	}
	return err
}
