package api

import "time"

// Recording formats: a WebM file holding VP8 video, which every Chromium
// build plays (H.264 needs the proprietary codecs Chromium builds may
// lack) and which libvpx in Debian's ffmpeg encodes in real time.
const (
	RecordingFormat    = "webm"
	RecordingCodec     = "vp8"
	RecordingMIMEType  = "video/webm"
	RecordingExtension = ".webm"
)

// HeaderRecording answers GET .../recording with the recording's state:
// "recording" (the file as far as written) or "stopped" (final).
const HeaderRecording = "X-Deskrun-Recording"

// Recording states.
const (
	RecordingRecording = "recording"
	RecordingStopped   = "stopped"
)

// Defaults and bounds of a [RecordingRequest].
const (
	DefaultRecordingFPS      = 10
	MaxRecordingFPS          = 30
	DefaultRecordingMaxBytes = 512 << 20
)

// RecordingRequest is the body of agentd's POST /v1/recording, which
// starts the video of the display.
type RecordingRequest struct {
	// FPS bounds how many frames a second are taken, 1 to 30, default 10.
	// A frame is only taken when the screen changed since the last one
	// (and every few seconds regardless), so an idle screen costs little.
	FPS int `json:"fps,omitempty"`
	// MaxBytes bounds the file: once it is past it the video ends (Cut is
	// set); the file is written a second of video at a time, so it may
	// end up to that much larger. Default 512 MiB.
	MaxBytes int64 `json:"max_bytes,omitempty"`
}

// Validate checks a recording request; errors are of class
// [errdefs.ErrInvalidArgument] and name the field.
func (r RecordingRequest) Validate() error {
	if r.FPS < 0 || r.FPS > MaxRecordingFPS {
		return invalid("fps: %d out of range 1..%d", r.FPS, MaxRecordingFPS)
	}
	if r.MaxBytes < 0 {
		return invalid("max_bytes: %d is negative", r.MaxBytes)
	}
	return nil
}

// Recording describes the video of a session's display: agentd's answer
// to POST and DELETE /v1/recording.
type Recording struct {
	// State is [RecordingRecording] or [RecordingStopped].
	State string `json:"state"`
	// Format and Codec name the file: "webm" and "vp8".
	Format string `json:"format"`
	Codec  string `json:"codec"`
	// StartedAt is when the first frame was taken: time zero of the
	// video, to which trajectories' video_ms refer.
	StartedAt time.Time `json:"started_at"`
	// Frames counts the frames taken, Bytes the size of the file so far
	// and DurationMS the time from the first frame to the last.
	Frames     int   `json:"frames"`
	Bytes      int64 `json:"bytes"`
	DurationMS int64 `json:"duration_ms"`
	// Cut says the video ended early, at its size bound.
	Cut bool `json:"cut,omitempty"`
	// Error says why the video ended early (the encoder failed).
	Error string `json:"error,omitempty"`
}
