package server

import (
	"bytes"
	"fmt"
	"net/http"
	"os"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/labstack/echo/v4"
)

// recording answers GET /v1/sessions/{id}/recording: the video of a
// session created with "record": true (VP8 in WebM). While the session
// runs it is the file as far as written (header X-Deskrun-Recording:
// recording); once it ended, the final file (stopped), with ranges, for
// as long as the file is kept.
func (s *server) recording(c echo.Context) error {
	path, live, err := s.m.Recording(c.Param("id"))
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderCacheControl, "no-store")
	if live != nil {
		var buf bytes.Buffer
		if _, err := live.CopyRecording(c.Request().Context(), &buf); err != nil {
			return err
		}
		h.Set(api.HeaderRecording, api.RecordingRecording)
		return c.Blob(http.StatusOK, api.RecordingMIMEType, buf.Bytes())
	}
	f, err := os.Open(path)
	if err != nil {
		return errdefs.ErrNotFound.WithMessage("the recording was removed")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	h.Set(api.HeaderRecording, api.RecordingStopped)
	h.Set(echo.HeaderContentType, api.RecordingMIMEType)
	http.ServeContent(c.Response(), c.Request(), "", st.ModTime(), f)
	return nil
}
