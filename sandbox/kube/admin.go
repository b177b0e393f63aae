package kube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"
)

// AdminExec runs req.Cmd as root inside sandbox id through the Pod's exec
// subresource: the runner's channel for task setup and grading that need
// an administrator, apart from agentd and its token. The command holds
// the sandbox's adminCaps and nothing more. req.Dir defaults to "/"; the
// exec subresource has no working folder or environment of its own, so
// env(1) sets both. A command still running at the timeout is killed
// (TERM, then KILL 2 s later) by coreutils' timeout inside the sandbox;
// it then reports TimedOut and exit code 124 or 137.
func (p *Provider) AdminExec(ctx context.Context, id string, req api.ExecRequest) (api.ExecResult, error) {
	timeout, err := sandbox.CheckAdminExec(req)
	if err != nil {
		return api.ExecResult{}, err
	}
	pod, err := p.managed(ctx, id)
	if err != nil {
		return api.ExecResult{}, fmt.Errorf("admin exec in %w", err)
	}
	if pod.Status.Phase != corev1.PodRunning || pod.DeletionTimestamp != nil {
		return api.ExecResult{}, fmt.Errorf("admin exec in %s: the sandbox is not running: %w", id, errdefs.ErrUnavailable)
	}
	dir := req.Dir
	if dir == "" {
		dir = "/"
	}
	cmd := []string{"env", "-C", dir}
	for _, k := range slices.Sorted(maps.Keys(req.Env)) {
		cmd = append(cmd, k+"="+req.Env[k])
	}
	cmd = append(cmd, "timeout", "-k", "2", strconv.FormatFloat(timeout.Seconds(), 'f', 3, 64))
	cmd = append(cmd, req.Cmd...)

	r := p.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(p.cfg.Namespace).Name(id).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{
			Container: container, Command: cmd,
			Stdin: req.Stdin != "", Stdout: true, Stderr: true,
		}, scheme.ParameterCodec)
	spdyExec, err := remotecommand.NewSPDYExecutor(p.rest, "POST", r.URL())
	if err != nil {
		return api.ExecResult{}, fmt.Errorf("admin exec in %s: %w", id, err)
	}
	exec := spdyExec
	if ws, err := remotecommand.NewWebSocketExecutor(p.rest, "GET", r.URL().String()); err == nil {
		exec, _ = remotecommand.NewFallbackExecutor(ws, spdyExec, func(err error) bool {
			return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
		})
	}
	// The command ends by itself at the timeout; the stream is cut a
	// little later should the API server not answer.
	sctx, cancel := context.WithTimeout(ctx, timeout+10*time.Second)
	defer cancel()
	stdout, stderr := sandbox.NewCappedBuffer(), sandbox.NewCappedBuffer()
	opts := remotecommand.StreamOptions{Stdout: stdout, Stderr: stderr}
	if req.Stdin != "" {
		opts.Stdin = strings.NewReader(req.Stdin)
	}
	start := time.Now()
	err = exec.StreamWithContext(sctx, opts)
	elapsed := time.Since(start)
	code := 0
	var exitErr utilexec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr) && exitErr.Exited():
		code = exitErr.ExitStatus()
	case ctx.Err() != nil:
		return api.ExecResult{}, fmt.Errorf("admin exec in %s: %w", id, ctx.Err())
	default:
		return api.ExecResult{}, fmt.Errorf("admin exec in %s: %w: %w", id, errdefs.ErrUnavailable, err)
	}
	return sandbox.AdminResult(code, stdout, stderr, elapsed, timeout), nil
}
