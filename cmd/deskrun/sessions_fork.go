package main

import (
	"context"
	"fmt"

	"github.com/deskrun/deskrun/api"
)

// fork is `deskrun sessions fork ID [-n N] [-q]`: N new sessions from
// the session's current state.
func (sc *sessionsCmd) fork(ctx context.Context, args []string) error {
	fs := sc.flags("fork")
	var req api.ForkRequest
	fs.IntVar(&req.Count, "n", 1, fmt.Sprintf("how many sessions to make, 1..%d", api.MaxForkCount))
	quiet := fs.Bool("q", false, "print only the new sessions' ids, one a line")
	pos, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	if err := want("fork", pos, 1, 1, "a session id"); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return usagef("fork: -n: %v", err)
	}
	res, err := sc.client().ForkSession(ctx, pos[0], req)
	if err != nil {
		return err
	}
	if *quiet {
		for _, s := range res.Sessions {
			if _, err := fmt.Fprintln(sc.stdout, s.ID); err != nil {
				return err
			}
		}
		return nil
	}
	return writeJSON(sc.stdout, res)
}

// pause is `deskrun sessions pause ID`: the session saved to disk, its
// sandbox stopped.
func (sc *sessionsCmd) pause(ctx context.Context, args []string) error {
	pos, err := parseAll(sc.flags("pause"), args)
	if err != nil {
		return err
	}
	if err := want("pause", pos, 1, 1, "a session id"); err != nil {
		return err
	}
	s, err := sc.client().PauseSession(ctx, pos[0])
	if err != nil {
		return err
	}
	return writeJSON(sc.stdout, s)
}

// resume is `deskrun sessions resume ID`: a paused session back as it
// was.
func (sc *sessionsCmd) resume(ctx context.Context, args []string) error {
	pos, err := parseAll(sc.flags("resume"), args)
	if err != nil {
		return err
	}
	if err := want("resume", pos, 1, 1, "a session id"); err != nil {
		return err
	}
	s, err := sc.client().ResumeSession(ctx, pos[0])
	if err != nil {
		return err
	}
	return writeJSON(sc.stdout, s)
}
