package e2b

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/labstack/echo/v4"
)

// E2B's pause, resume, fork and snapshots, on the runner's
// ([runner.Manager.Pause], Resume, Fork, Save and CreateFrom): they need
// a provider and runtime that snapshot (the docker provider under
// runsc-snap); elsewhere they answer 501 naming those.

// maxForks bounds one E2B fork call (E2B's maximum); deskrun forks them
// [api.MaxForkCount] at a time.
const maxForks = 100

// snapshotTag is the tag of a snapshot's template name (E2B names
// snapshots NAME:TAG, the tag "default" when none is given).
const snapshotTag = ":default"

// snapshot is a snapshot taken through POST /sandboxes/{id}/snapshots:
// a template new sandboxes start from.
type snapshot struct {
	id       string // snapshotID, NAME:default
	source   string // the sandbox it was taken of
	template string // that sandbox's template
	saved    runner.Saved
	created  time.Time
}

// snapshotInfo is E2B's SnapshotInfo.
type snapshotInfo struct {
	SnapshotID string   `json:"snapshotID"`
	Names      []string `json:"names"`
}

// pauseBody is E2B's SandboxPauseRequest.
type pauseBody struct {
	Memory *bool `json:"memory"`
}

// pause answers POST /sandboxes/{id}/pause: 204 once the sandbox is
// saved to disk and stopped; its deadline is lifted while it sleeps (E2B
// keeps a paused sandbox until it is resumed or killed). 409 when it is
// paused already.
func (f *Front) pause(c echo.Context) error {
	sess, err := f.session(c)
	if err != nil {
		return err
	}
	var body pauseBody
	if err := decode(c, &body, true); err != nil {
		return err
	}
	if body.Memory != nil && !*body.Memory {
		return notSupported("memory: false (a pause that keeps the files alone)")
	}
	if _, err := f.m.Pause(c.Request().Context(), sess.ID()); err != nil {
		return err
	}
	sess.SetDeadline(time.Time{})
	return c.NoContent(http.StatusNoContent)
}

// resumeIfPaused resumes sess when it is paused and reports whether it
// was.
func (f *Front) resumeIfPaused(ctx context.Context, sess *runner.Session) (bool, error) {
	if sess.Info().State != api.SessionPaused {
		return false, nil
	}
	if _, err := f.m.Resume(ctx, sess.ID()); err != nil {
		if errdefs.IsConflict(err) { // resumed by another call meanwhile
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// forkBody is E2B's SandboxForkRequest.
type forkBody struct {
	Timeout *int `json:"timeout"`
	Count   *int `json:"count"`
}

// forkResult is E2B's SandboxForkResult: the sandbox, or why its fork
// failed.
type forkResult struct {
	Sandbox *sandboxJSON `json:"sandbox,omitempty"`
	Error   *apiError    `json:"error,omitempty"`
}

// fork answers POST /sandboxes/{id}/fork: count new sandboxes (1..100,
// default 1) from the sandbox's current state, each with its own id,
// tokens and a deadline timeout seconds away (default 15), the source
// running on. 201 with one entry per fork, the sandbox or the error of
// its batch.
func (f *Front) fork(c echo.Context) error {
	sess, err := f.session(c)
	if err != nil {
		return err
	}
	var body forkBody
	if err := decode(c, &body, true); err != nil {
		return err
	}
	count, timeout := 1, defaultTimeout
	if body.Count != nil {
		count = *body.Count
	}
	if body.Timeout != nil {
		timeout = *body.Timeout
	}
	if count < 1 || count > maxForks {
		return invalid(fmt.Sprintf("count: %d out of range 1..%d", count, maxForks))
	}
	if err := checkTimeout(timeout, 0); err != nil {
		return err
	}
	src := f.boxOf(sess)
	var out []forkResult
	for len(out) < count {
		n := min(api.MaxForkCount, count-len(out))
		res, err := f.m.Fork(c.Request().Context(), sess.ID(), api.ForkRequest{Count: n})
		if err != nil {
			if len(out) == 0 { // nothing forked: the call failed
				return err
			}
			status, msg := statusOf(err)
			for range n {
				out = append(out, forkResult{Error: &apiError{Code: status, Message: msg}})
			}
			continue
		}
		for _, info := range res.Sessions {
			s, err := f.m.Get(info.ID)
			if err != nil {
				status, msg := statusOf(err)
				out = append(out, forkResult{Error: &apiError{Code: status, Message: msg}})
				continue
			}
			s.SetDeadline(time.Now().Add(time.Duration(timeout) * time.Second))
			b := &box{template: src.template, envdToken: newToken(), internet: src.internet, cpuCount: src.cpuCount, memoryMB: src.memoryMB}
			if src.trafficToken != "" {
				b.trafficToken = newToken()
			}
			f.adopt(s, b)
			j := f.sandboxJSON(s, b, viewSandbox)
			out = append(out, forkResult{Sandbox: &j})
		}
	}
	return c.JSON(http.StatusCreated, out)
}

// snapshotBody is E2B's SandboxSnapshotRequest.
type snapshotBody struct {
	Name string `json:"name"`
}

// createSnapshot answers POST /sandboxes/{id}/snapshots: the sandbox's
// current state saved (it runs on) as a template of its own, named
// NAME:default (a random name when none is given; a name taken already
// is given the new snapshot), from which POST /sandboxes starts new
// sandboxes. 201 with E2B's SnapshotInfo.
func (f *Front) createSnapshot(c echo.Context) error {
	sess, err := f.session(c)
	if err != nil {
		return err
	}
	var body snapshotBody
	if err := decode(c, &body, true); err != nil {
		return err
	}
	name := strings.TrimSuffix(body.Name, snapshotTag)
	if name == "" {
		name = "snapshot-" + newToken()[:12]
	}
	if strings.ContainsAny(name, "/:\x00") || len(name) > 128 {
		return invalid(fmt.Sprintf("name: %q is not a template name (letters, digits, - and _, at most 128)", body.Name))
	}
	if _, ok := f.cfg.Templates[name]; ok {
		return invalid(fmt.Sprintf("name: %q is a template of this server's", name))
	}
	root, err := f.m.SnapshotDir()
	if err != nil {
		return err
	}
	saved, err := f.m.Save(c.Request().Context(), sess.ID(), filepath.Join(root, "e2b-"+name+"-"+newToken()[:8]))
	if err != nil {
		return err
	}
	snap := &snapshot{id: name + snapshotTag, source: sess.ID(), template: f.boxOf(sess).template, saved: saved, created: time.Now().UTC()}
	f.mu.Lock()
	old := f.snapshots[snap.id]
	f.snapshots[snap.id] = snap
	f.mu.Unlock()
	if old != nil {
		os.RemoveAll(old.saved.Snapshot.Dir)
	}
	return c.JSON(http.StatusCreated, snapshotInfo{SnapshotID: snap.id, Names: []string{snap.id}})
}

// snapshotOf is the snapshot a template name names: NAME or NAME:default.
func (f *Front) snapshotOf(template string) *snapshot {
	if template == "" {
		return nil
	}
	if !strings.Contains(template, ":") {
		template += snapshotTag
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snapshots[template]
}

// listSnapshots answers GET /snapshots: the snapshots, oldest first,
// those of sandboxID or named name (with or without its tag) when asked,
// at most limit (1..100).
func (f *Front) listSnapshots(c echo.Context) error {
	q := c.QueryParams()
	limit := maxLimit
	if v := q.Get("limit"); v != "" {
		var err error
		if _, err = fmt.Sscan(v, &limit); err != nil || limit < 1 || limit > maxLimit {
			return invalid(fmt.Sprintf("limit: want an integer 1..%d, got %q", maxLimit, v))
		}
	}
	name := q.Get("name")
	if name != "" && !strings.Contains(name, ":") {
		name += snapshotTag
	}
	f.mu.Lock()
	var snaps []*snapshot
	for _, s := range f.snapshots {
		if (q.Get("sandboxID") == "" || s.source == q.Get("sandboxID")) && (name == "" || s.id == name) {
			snaps = append(snaps, s)
		}
	}
	f.mu.Unlock()
	slices.SortFunc(snaps, func(a, b *snapshot) int { return a.created.Compare(b.created) })
	out := []snapshotInfo{}
	for _, s := range snaps[:min(limit, len(snaps))] {
		out = append(out, snapshotInfo{SnapshotID: s.id, Names: []string{s.id}})
	}
	return c.JSON(http.StatusOK, out)
}

// deleteTemplate answers DELETE /templates/{id} for a snapshot's
// template: 204 once it is gone (the sandboxes started from it stay).
// The server's own templates are not deleted.
func (f *Front) deleteTemplate(c echo.Context) error {
	id := c.Param("id")
	if s := f.snapshotOf(id); s != nil {
		f.mu.Lock()
		delete(f.snapshots, s.id)
		f.mu.Unlock()
		os.RemoveAll(s.saved.Snapshot.Dir)
		return c.NoContent(http.StatusNoContent)
	}
	if _, ok := f.cfg.Templates[id]; ok {
		return errdefs.ErrPermissionDenied.WithMessage(fmt.Sprintf("template %q is this server's: only snapshots can be deleted", id))
	}
	return notFound(fmt.Sprintf("template %q not found", id))
}

// createFromSnapshot starts a sandbox from snap for a create whose other
// fields are ns: metadata become its labels, timeout its deadline.
// envVars cannot reach the processes a snapshot holds and are refused.
func (f *Front) createFromSnapshot(c echo.Context, snap *snapshot, ns newSandbox) error {
	timeout := defaultTimeout
	if ns.Timeout != nil {
		timeout = *ns.Timeout
	}
	if err := checkTimeout(timeout, 1); err != nil {
		return err
	}
	if len(ns.EnvVars) > 0 {
		return notSupported("envVars: environment variables for a sandbox started from a snapshot (its processes hold the environment they were saved with)")
	}
	if ns.AutoPause || (ns.AutoResume != nil && ns.AutoResume.Enabled) || len(ns.VolumeMounts) > 0 {
		_, err := f.request(ns) // names the field
		return err
	}
	for k := range ns.Metadata {
		if k == "" || k == sandbox.LabelSession {
			return invalid(fmt.Sprintf("metadata: reserved or empty key %q", k))
		}
	}
	sess, err := f.m.CreateFrom(c.Request().Context(), snap.saved, ns.Metadata)
	if err != nil {
		return err
	}
	sess.SetDeadline(time.Now().Add(time.Duration(timeout) * time.Second))
	return f.created(c, sess, snap.id, ns)
}
