package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/deskrun/deskrun/sandbox/local"
)

func reap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("reap", stderr, "[--owner NAME | --all]")
	owner := fs.String("owner", serveOwner, "remove the containers of this owner (deskrun serve --owner)")
	all := fs.Bool("all", false, "remove every deskrun sandbox container on the engine, whoever started it")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	// Local sandboxes of runners that were killed: their processes and
	// folders.
	homes, lerr := local.Reap(ctx, "")
	for _, h := range homes {
		fmt.Fprintln(stdout, h)
	}
	dp, err := dockerProvider(ctx, docker.DefaultImage, *owner, "", true, slog.New(slog.DiscardHandler))
	if err != nil {
		if lerr != nil {
			return lerr
		}
		fmt.Fprintf(stderr, "deskrun reap: no docker provider (%v); local sandboxes reaped\n", err)
		return nil
	}
	labels := map[string]string{sandbox.LabelOwner: *owner}
	if *all {
		labels = nil // every container labelled as deskrun's
	}
	ids, err := dp.Reap(ctx, labels)
	for _, id := range ids {
		fmt.Fprintln(stdout, id)
	}
	return errors.Join(err, lerr)
}
