package runner

import (
	"context"
	"maps"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
)

// AdminExec runs r as root in the session's sandbox through its
// provider's admin channel ([sandbox.AdminExecer]), for task setup and
// grading; the session's tools and REST calls never reach it. DISPLAY is
// the desktop's unless r sets it. Providers without such a channel (local
// sandboxes, whose processes are the host user's) answer an error for
// which errdefs.IsNotImplemented holds; task setup then runs the command
// as the desktop user.
func (s *Session) AdminExec(ctx context.Context, r api.ExecRequest) (api.ExecResult, error) {
	if err := s.live(); err != nil {
		return api.ExecResult{}, err
	}
	if _, ok := s.prov.(sandbox.AdminExecer); !ok {
		// Spare the display lookup below.
		return sandbox.AdminExec(ctx, s.prov, s.inst.ID, r)
	}
	if _, set := r.Env["DISPLAY"]; !set {
		if h, err := s.client.Health(ctx); err == nil && h.Display != "" {
			env := map[string]string{"DISPLAY": h.Display}
			maps.Copy(env, r.Env)
			r.Env = env
		}
	}
	start := time.Now()
	res, err := sandbox.AdminExec(ctx, s.prov, s.inst.ID, r)
	s.record(ctx, "admin_exec", r, res, err, start, nil)
	return res, err
}
