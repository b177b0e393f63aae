package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
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
	dp, err := dockerProvider(ctx, docker.DefaultImage, *owner, true, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	labels := map[string]string{sandbox.LabelOwner: *owner}
	if *all {
		labels = nil // every container labelled as deskrun's
	}
	ids, err := dp.Reap(ctx, labels)
	for _, id := range ids {
		fmt.Fprintln(stdout, id)
	}
	return err
}
