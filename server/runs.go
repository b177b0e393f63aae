package server

import (
	"bytes"
	"context"
	"mime"
	"net/http"
	"path"
	"strconv"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/labstack/echo/v4"
)

// cancelTimeout bounds the wait of a DELETE for a cancelled run to end:
// the tasks under way are ended and their sandboxes deleted. The run is
// cancelled even when the client hangs up.
const cancelTimeout = 2 * time.Minute

func (s *server) createRun(c echo.Context) error {
	var req api.CreateRunRequest
	if err := s.decode(c, &req); err != nil {
		return err
	}
	run, err := s.cfg.Runs.Start(req)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/v1/runs/"+run.ID)
	return c.JSON(http.StatusCreated, run)
}

func (s *server) listRuns(c echo.Context) error {
	return c.JSON(http.StatusOK, api.RunList{Runs: s.cfg.Runs.List()})
}

func (s *server) getRun(c echo.Context) error {
	run, err := s.cfg.Runs.Get(c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, run)
}

// deleteRun cancels a run under way and answers its final state (200), or
// forgets a run that has ended, its directory included (204).
func (s *server) deleteRun(c echo.Context) error {
	id := c.Param("id")
	run, err := s.cfg.Runs.Get(id)
	if err != nil {
		return err
	}
	if run.Status == api.RunRunning {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), cancelTimeout)
		defer cancel()
		if run, err = s.cfg.Runs.Cancel(ctx, id); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, run)
	}
	if err := s.cfg.Runs.Forget(id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// runResults answers results.jsonl as it stands, complete lines only, so
// that it can be read while the run goes on.
func (s *server) runResults(c echo.Context) error {
	b, err := s.cfg.Runs.Results(c.Param("id"))
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderCacheControl, "no-store")
	h.Set(echo.HeaderContentLength, strconv.Itoa(len(b)))
	return c.Blob(http.StatusOK, "application/x-ndjson", b)
}

func (s *server) runReport(c echo.Context) error {
	b, err := s.cfg.Runs.Report(c.Param("id"))
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, echo.MIMETextHTMLCharsetUTF8, b)
}

// runTaskFile serves the files of a task's folder the report refers to
// (screenshots, trajectory.jsonl), so that the report served at
// /v1/runs/{id}/report shows its images.
func (s *server) runTaskFile(c echo.Context) error {
	name := c.Param("file")
	b, err := s.cfg.Runs.TaskFile(c.Param("id"), c.Param("task"), name)
	if err != nil {
		return err
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	switch {
	case path.Ext(name) == ".jsonl":
		ctype = "application/x-ndjson"
	case path.Ext(name) == api.RecordingExtension:
		ctype = api.RecordingMIMEType
	case ctype == "":
		ctype = echo.MIMEOctetStream
	}
	// Ranges answered, so that the report's videos seek.
	c.Response().Header().Set(echo.HeaderContentType, ctype)
	http.ServeContent(c.Response(), c.Request(), "", time.Time{}, bytes.NewReader(b))
	return nil
}
