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
	prov := fs.String("provider", "", "kube: remove the owner's sandbox Pods (with their Secrets and NetworkPolicies) instead of local sandboxes and containers")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the kube provider's cluster (default $KUBECONFIG; neither: the cluster deskrun runs in)")
	namespace := fs.String("namespace", "", "namespace of the kube provider's sandboxes (default the kubeconfig's, else deskrun's own)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	labels := map[string]string{sandbox.LabelOwner: *owner}
	if *all {
		labels = nil // every sandbox labelled as deskrun's
	}
	switch *prov {
	case "":
	case "kube":
		kp, err := kubeProvider(providerOptions{Kubeconfig: *kubeconfig, Namespace: *namespace, Owner: *owner}, slog.New(slog.DiscardHandler))
		if err != nil {
			return err
		}
		ids, err := kp.Reap(ctx, labels)
		for _, id := range ids {
			fmt.Fprintln(stdout, id)
		}
		return err
	default:
		return usagef("--provider: %q (want kube, or none for local sandboxes and docker containers)", *prov)
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
	ids, err := dp.Reap(ctx, labels)
	for _, id := range ids {
		fmt.Fprintln(stdout, id)
	}
	return errors.Join(err, lerr)
}
