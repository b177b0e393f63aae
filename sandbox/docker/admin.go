package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

var _ sandbox.AdminExecer = (*Provider)(nil)

// AdminExec runs req.Cmd as root inside sandbox id through the engine's
// exec API: the runner's channel for task setup and grading that need an
// administrator, apart from agentd and its token, so the agent can never
// use it. The command holds the sandbox's adminCaps and nothing more, in
// the sandbox's namespaces and limits. req.Dir defaults to "/". A command
// still running at the timeout is killed (TERM, then KILL 2 s later) by
// coreutils' timeout inside the sandbox, since the engine cannot kill an
// exec; it then reports TimedOut and exit code 124 or 137.
func (p *Provider) AdminExec(ctx context.Context, id string, req api.ExecRequest) (api.ExecResult, error) {
	timeout, err := sandbox.CheckAdminExec(req)
	if err != nil {
		return api.ExecResult{}, err
	}
	info, err := p.engine.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return api.ExecResult{}, fmt.Errorf("admin exec in %.12s: %w", id, err)
	}
	if info.Container.Config == nil || info.Container.Config.Labels[sandbox.LabelManaged] != "true" {
		return api.ExecResult{}, fmt.Errorf("admin exec in %.12s: not a deskrun sandbox: %w", id, errdefs.ErrNotFound)
	}
	if info.Container.State == nil || !info.Container.State.Running {
		return api.ExecResult{}, fmt.Errorf("admin exec in %.12s: the sandbox is not running: %w", id, errdefs.ErrUnavailable)
	}

	env := make([]string, 0, len(req.Env))
	for _, k := range slices.Sorted(maps.Keys(req.Env)) {
		env = append(env, k+"="+req.Env[k])
	}
	secs := strconv.FormatFloat(timeout.Seconds(), 'f', 3, 64)
	cmd := append([]string{"timeout", "-k", "2", secs}, req.Cmd...)
	dir := req.Dir
	if dir == "" {
		dir = "/"
	}
	start := time.Now()
	ex, err := p.engine.ExecCreate(ctx, id, client.ExecCreateOptions{
		User: "0", Env: env, WorkingDir: dir, Cmd: cmd,
		AttachStdin: req.Stdin != "", AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return api.ExecResult{}, fmt.Errorf("admin exec in %.12s: %w", id, err)
	}
	att, err := p.engine.ExecAttach(ctx, ex.ID, client.ExecAttachOptions{})
	if err != nil {
		return api.ExecResult{}, fmt.Errorf("admin exec in %.12s: attach: %w", id, err)
	}
	defer att.Close()
	// The command ends by itself at the timeout; the connection is
	// closed a little later should the engine not answer.
	stop := context.AfterFunc(ctx, func() { att.Conn.Close() })
	defer stop()
	guard := time.AfterFunc(timeout+10*time.Second, func() { att.Conn.Close() })
	defer guard.Stop()
	if req.Stdin != "" {
		go func() {
			_, _ = io.WriteString(att.Conn, req.Stdin)
			_ = att.CloseWrite()
		}()
	}
	stdout, stderr := sandbox.NewCappedBuffer(), sandbox.NewCappedBuffer()
	if _, err := stdcopy.StdCopy(stdout, stderr, att.Reader); err != nil && !errors.Is(err, io.EOF) {
		if ctx.Err() != nil {
			return api.ExecResult{}, fmt.Errorf("admin exec in %.12s: %w", id, ctx.Err())
		}
		return api.ExecResult{}, fmt.Errorf("admin exec in %.12s: read output: %w", id, err)
	}
	ins, err := p.engine.ExecInspect(context.WithoutCancel(ctx), ex.ID, client.ExecInspectOptions{})
	if err != nil {
		return api.ExecResult{}, fmt.Errorf("admin exec in %.12s: %w", id, err)
	}
	elapsed := time.Since(start)
	return sandbox.AdminResult(ins.ExitCode, stdout, stderr, elapsed, timeout), nil
}
