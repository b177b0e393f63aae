package agentd

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/httpserve"
	"github.com/labstack/echo/v4"
)

// Recording the display.
//
// agentd takes the frames itself, with the capture the screenshots use
// (MIT-SHM), and pipes them raw to an ffmpeg it starts, which encodes
// VP8 into a WebM file. The other way, ffmpeg's own x11grab, would grab
// the screen at a fixed rate whether anything changed or not, and so pay
// for capture, colour conversion and encoding of every frame of an idle
// desktop. Here the DAMAGE counter the settled waits use ([x11.Conn.Changes])
// decides: a frame is taken only when something was drawn since the last
// one (and every keepAlive regardless), and ffmpeg stamps each with the
// time it arrived (-use_wallclock_as_timestamps), so the video has a
// variable frame rate, nothing is encoded while the screen is still, and
// its time zero is the first frame, [api.Recording.StartedAt].
//
// VP8 in WebM rather than H.264 in MP4: every Chromium build plays it
// (H.264 needs the proprietary codecs some builds leave out), the report
// embeds it in a <video>, libvpx encodes it in real time at a low cost
// (-deadline realtime -cpu-used 8), and a WebM file cut short (a sandbox
// killed) still plays up to its cut, where an MP4 without its moov atom
// does not. ffmpeg is a package of the desktop and osworld images (not
// of minimal, see images/README.md); without it POST /v1/recording
// answers 501.

// keepAlive is the longest gap between two frames: a frame of the
// unchanged screen is written then, so that a video cut short still
// reaches close to its end and players can seek.
const keepAlive = 5 * time.Second

// Once its input ended, ffmpeg encodes the frames it still holds and
// finishes the file; on a loaded machine that can take far longer than
// on a quiet one. The wait lasts as long as the encoder makes progress
// (its processor time or its file grows) and at most stopLimit; the
// encoder is killed after stopStall without progress.
const (
	stopStall = 15 * time.Second
	stopLimit = 5 * time.Minute
)

// recorder is the video under way, or the last one.
type recorder struct {
	path string
	dir  string
	cmd  *exec.Cmd
	in   io.WriteCloser
	max  int64
	// stop asks the frame loop to write a last frame and end; done is
	// closed when ffmpeg has exited and the file is final.
	stop chan struct{}
	done chan struct{}
	// stderr keeps ffmpeg's last complaints.
	stderr *logWriter

	mu    sync.Mutex
	state api.Recording
}

func (r *recorder) snapshot() api.Recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.state
	if fi, err := os.Stat(r.path); err == nil {
		rec.Bytes = fi.Size()
	}
	return rec
}

// startRecording answers POST /v1/recording: the video starts, its first
// frame taken before the answer. 409 while one is under way; a new one
// replaces a stopped one.
func (s *Server) startRecording(c echo.Context) error {
	var req api.RecordingRequest
	b, err := httpserve.ReadBody(c, MaxBody)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(b)) > 0 { // no body: the defaults
		if err := api.DecodeJSON(bytes.NewReader(b), &req); err != nil {
			return err
		}
	}
	if err := req.Validate(); err != nil {
		return err
	}
	rec, err := s.StartRecording(req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, rec)
}

// StartRecording starts a video of the display (see the notes at the top
// of this file): errdefs.ErrConflict while one is under way,
// errdefs.ErrNotImplemented without ffmpeg, errdefs.ErrUnavailable while
// the X server is down.
func (s *Server) StartRecording(req api.RecordingRequest) (api.Recording, error) {
	if req.FPS == 0 {
		req.FPS = api.DefaultRecordingFPS
	}
	if req.MaxBytes == 0 {
		req.MaxBytes = api.DefaultRecordingMaxBytes
	}
	s.recMu.Lock()
	defer s.recMu.Unlock()
	if s.rec != nil {
		select {
		case <-s.rec.done:
		default:
			return api.Recording{}, errdefs.ErrConflict.WithMessage("recording: a recording is under way (DELETE /v1/recording stops it)")
		}
	}
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		return api.Recording{}, errdefs.ErrNotImplemented.WithMessage("recording: ffmpeg is not installed in the sandbox (the deskrun/desktop and deskrun/osworld images have it, deskrun/minimal does not)")
	}
	conn, err := s.desk.get()
	if err != nil {
		return api.Recording{}, err
	}
	w, h := conn.Size()
	if s.rec != nil {
		os.RemoveAll(s.rec.dir)
		s.rec = nil
	}
	dir, err := os.MkdirTemp("", "agentd-recording-")
	if err != nil {
		return api.Recording{}, fmt.Errorf("recording: %w", err)
	}
	r := &recorder{dir: dir, path: filepath.Join(dir, "recording"+api.RecordingExtension), max: req.MaxBytes,
		stop: make(chan struct{}), done: make(chan struct{}), stderr: &logWriter{log: s.log, name: "ffmpeg"}}
	r.cmd = exec.Command(ffmpeg, ffmpegArgs(w, h, req.MaxBytes, r.path)...)
	r.cmd.Stderr = r.stderr
	// Its own process group, so that a stop that has to kill it kills
	// whatever it started too, and commands' kill (POST /v1/kill) spares it.
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if r.in, err = r.cmd.StdinPipe(); err != nil {
		os.RemoveAll(dir)
		return api.Recording{}, fmt.Errorf("recording: %w", err)
	}
	if err := r.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return api.Recording{}, fmt.Errorf("recording: start ffmpeg: %w", err)
	}
	changes, _ := conn.Changes() // without DAMAGE every tick takes a frame
	img, err := conn.Capture(image.Rectangle{})
	if err == nil {
		_, err = r.in.Write(img.Pix)
	}
	if err != nil {
		r.in.Close()
		killGroup(r.cmd)
		r.cmd.Wait()
		os.RemoveAll(dir)
		if msg := r.stderr.lastLines(); msg != "" {
			err = fmt.Errorf("%w (ffmpeg%s)", err, msg)
		}
		return api.Recording{}, errdefs.ErrUnavailable.WithMessage("recording: first frame: " + err.Error())
	}
	r.state = api.Recording{State: api.RecordingRecording, Format: api.RecordingFormat, Codec: api.RecordingCodec,
		StartedAt: time.Now().UTC(), Frames: 1}
	s.rec = r
	go s.recordFrames(r, img, changes, time.Second/time.Duration(req.FPS))
	return r.snapshot(), nil
}

// ffmpegArgs is the encoder's command line: raw RGBA frames of w×h on
// its standard input, each stamped with the time it arrives (in
// milliseconds: the input's frame rate is only its time base), encoded
// to VP8 for a screen (sharp text: a low quantizer, a generous rate
// bound) as fast as libvpx goes, keeping the variable frame rate,
// flushed every second and cut at maxBytes.
func ffmpegArgs(w, h int, maxBytes int64, out string) []string {
	return []string{
		"-hide_banner", "-loglevel", "error", "-nostats",
		"-probesize", "32", "-analyzeduration", "0",
		"-f", "rawvideo", "-pix_fmt", "rgba", "-video_size", fmt.Sprintf("%dx%d", w, h),
		"-framerate", "1000", "-use_wallclock_as_timestamps", "1", "-i", "pipe:0",
		// One thread: libvpx's worker threads wait for each other at a
		// cost (3.1 s of CPU against 0.4 s for 50 frames of a typing
		// scene), and one sandbox's video is no hurry.
		"-an", "-threads", "1", "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-lag-in-frames", "0",
		"-crf", "10", "-qmin", "4", "-qmax", "40", "-b:v", "4M", "-g", "150",
		// yuv420p needs even sizes: an odd screen loses its last column or row.
		"-vf", "crop=trunc(iw/2)*2:trunc(ih/2)*2", "-pix_fmt", "yuv420p",
		"-fps_mode", "vfr", "-fs", strconv.FormatInt(maxBytes, 10),
		// Written out at least every second, so that the file as far as
		// written (GET while recording, or after a crash) holds the video
		// up to about then.
		"-flush_packets", "1", "-cluster_time_limit", "1000",
		"-f", "webm", "-y", out,
	}
}

// recordFrames is the frame loop of r: at most one frame a tick, taken
// when the screen changed; on stop a last frame (so the video lasts until
// the stop), then the end of ffmpeg's input and the wait for the file.
func (s *Server) recordFrames(r *recorder, img *image.RGBA, changes uint64, tick time.Duration) {
	defer close(r.done)
	t := time.NewTicker(tick)
	defer t.Stop()
	last := time.Now()
	frame := func(force bool) error {
		conn, err := s.desk.get()
		if err != nil {
			return nil // the X server restarts: no frames meanwhile
		}
		n, derr := conn.Changes()
		if !force && derr == nil && n == changes && time.Since(last) < keepAlive {
			return nil
		}
		next, err := conn.CaptureInto(img, image.Rectangle{})
		if err != nil || len(next.Pix) != len(img.Pix) {
			return nil // lost or resized: skip
		}
		img, changes = next, n
		if _, err := r.in.Write(img.Pix); err != nil {
			return err
		}
		last = time.Now()
		r.mu.Lock()
		r.state.Frames++
		r.state.DurationMS = last.Sub(r.state.StartedAt).Milliseconds()
		r.mu.Unlock()
		return nil
	}
	var werr error
loop:
	for {
		select {
		case <-r.stop:
			werr = frame(true)
			break loop
		case <-t.C:
			if werr = frame(false); werr != nil {
				break loop
			}
		}
	}
	r.in.Close()
	exited := make(chan error, 1)
	go func() { exited <- r.cmd.Wait() }()
	err := awaitEncoder(r, exited)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.state.State = api.RecordingStopped
	fi, serr := os.Stat(r.path)
	switch {
	case werr != nil && serr == nil && fi.Size() >= r.max*9/10:
		r.state.Cut = true // ffmpeg stopped at -fs
	case err != nil || werr != nil:
		msg := errors.Join(werr, err).Error()
		if l := r.stderr.lastLines(); l != "" {
			msg += " (ffmpeg" + l + ")"
		}
		r.state.Error = msg
	}
}

// awaitEncoder waits for r's encoder to exit once its input ended, as
// long as it makes progress (see stopStall), and kills it otherwise.
func awaitEncoder(r *recorder, exited <-chan error) error {
	began := time.Now()
	last := encoderProgress(r)
	for {
		select {
		case err := <-exited:
			return err
		case <-time.After(stopStall):
		}
		p := encoderProgress(r)
		if p != last && time.Since(began) < stopLimit {
			last = p
			continue
		}
		killGroup(r.cmd)
		err := <-exited
		return fmt.Errorf("ffmpeg did not finish the file (%s without progress, or %s in all): %w", stopStall, stopLimit, err)
	}
}

// encoderProgress is what grows while r's encoder works: its processor
// time in clock ticks and its file's size.
func encoderProgress(r *recorder) [2]int64 {
	var p [2]int64
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", r.cmd.Process.Pid)); err == nil {
		if _, rest, ok := bytes.Cut(b, []byte(") ")); ok {
			if f := bytes.Fields(rest); len(f) > 12 {
				ut, _ := strconv.ParseInt(string(f[11]), 10, 64)
				st, _ := strconv.ParseInt(string(f[12]), 10, 64)
				p[0] = ut + st
			}
		}
	}
	if fi, err := os.Stat(r.path); err == nil {
		p[1] = fi.Size()
	}
	return p
}

// StopRecording ends the video under way and waits until its file is
// final; a stopped one is returned as it is, none is errdefs.ErrNotFound.
func (s *Server) StopRecording() (api.Recording, error) {
	s.recMu.Lock()
	r := s.rec
	s.recMu.Unlock()
	if r == nil {
		return api.Recording{}, errdefs.ErrNotFound.WithMessage("recording: none was started (POST /v1/recording starts one)")
	}
	select {
	case <-r.done:
	default:
		select {
		case r.stop <- struct{}{}:
		case <-r.done:
		}
		<-r.done
	}
	return r.snapshot(), nil
}

// stopRecording answers DELETE /v1/recording.
func (s *Server) stopRecording(c echo.Context) error {
	rec, err := s.StopRecording()
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, rec)
}

// recording answers GET /v1/recording: the WebM file, final once the
// recording stopped, as far as written while it runs (its state in the
// X-Deskrun-Recording header). Ranges are served, so players seek.
func (s *Server) recording(c echo.Context) error {
	s.recMu.Lock()
	r := s.rec
	s.recMu.Unlock()
	if r == nil {
		return errdefs.ErrNotFound.WithMessage("recording: none was started (POST /v1/recording starts one)")
	}
	rec := r.snapshot()
	h := c.Response().Header()
	h.Set(echo.HeaderCacheControl, "no-store")
	h.Set(api.HeaderRecording, rec.State)
	f, err := os.Open(r.path)
	if errors.Is(err, os.ErrNotExist) && rec.State == api.RecordingRecording {
		// The encoder has not opened its output yet: nothing written.
		return c.Blob(http.StatusOK, api.RecordingMIMEType, nil)
	}
	if err != nil {
		return errdefs.ErrNotFound.WithMessage("recording: no file: " + err.Error())
	}
	defer f.Close()
	h.Set(echo.HeaderContentType, api.RecordingMIMEType)
	if rec.State == api.RecordingRecording {
		// A growing file: send what is there now, as one body.
		b, err := io.ReadAll(f)
		if err != nil {
			return fmt.Errorf("recording: %w", err)
		}
		return c.Blob(http.StatusOK, api.RecordingMIMEType, b)
	}
	http.ServeContent(c.Response(), c.Request(), "", rec.StartedAt, f)
	return nil
}

// closeRecording ends the video under way (the file final) and removes
// it; Close calls it.
func (s *Server) closeRecording() {
	if _, err := s.StopRecording(); err != nil {
		return
	}
	s.recMu.Lock()
	defer s.recMu.Unlock()
	if s.rec != nil {
		os.RemoveAll(s.rec.dir)
		s.rec = nil
	}
}

// killGroup kills cmd's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
