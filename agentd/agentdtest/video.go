package agentdtest

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os/exec"
	"strconv"
	"testing"
)

// Video is what ffprobe says of a video file ([Probe]).
type Video struct {
	Format   string  // container, e.g. "matroska,webm"
	Codec    string  // e.g. "vp8"
	Width    int     // pixels
	Height   int     // pixels
	Duration float64 // seconds
	Frames   int     // frames decoded
}

// Probe reads path with ffprobe, decoding every frame to count them; an
// unreadable file fails t, a missing ffprobe too.
func Probe(t testing.TB, path string) Video {
	t.Helper()
	NeedProgram(t, "ffprobe")
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,width,height,nb_read_frames:format=format_name,duration",
		"-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v: %s", path, err, stderrOf(err))
	}
	var p struct {
		Streams []struct {
			Codec  string `json:"codec_name"`
			Width  int    `json:"width"`
			Height int    `json:"height"`
			Frames string `json:"nb_read_frames"`
		} `json:"streams"`
		Format struct {
			Name     string `json:"format_name"`
			Duration string `json:"duration"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &p); err != nil || len(p.Streams) == 0 {
		t.Fatalf("ffprobe %s: no video stream in %s (%v)", path, out, err)
	}
	v := Video{Format: p.Format.Name, Codec: p.Streams[0].Codec, Width: p.Streams[0].Width, Height: p.Streams[0].Height}
	v.Duration, _ = strconv.ParseFloat(p.Format.Duration, 64)
	v.Frames, _ = strconv.Atoi(p.Streams[0].Frames)
	return v
}

// LastFrame decodes the last frame of the video at path with ffmpeg.
func LastFrame(t testing.TB, path string) image.Image {
	t.Helper()
	NeedProgram(t, "ffmpeg")
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-an", "-f", "image2pipe", "-c:v", "png", "-frames:v", "100000", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg decode %s: %v: %s", path, err, stderrOf(err))
	}
	// image2pipe writes every frame: the last PNG in the stream is the
	// last frame.
	i := bytes.LastIndex(out, []byte("\x89PNG\r\n\x1a\n"))
	if i < 0 {
		t.Fatalf("ffmpeg decoded no frame of %s", path)
	}
	img, err := png.Decode(bytes.NewReader(out[i:]))
	if err != nil {
		t.Fatalf("decode the last frame of %s: %v", path, err)
	}
	return img
}

// NeedProgram fails t when program is not installed.
func NeedProgram(t testing.TB, program string) {
	t.Helper()
	if _, err := exec.LookPath(program); err != nil {
		t.Fatalf("%s is not installed (scripts/install-deps.sh installs it)", program)
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// FrameAt decodes the frame of the video at path that is on screen at
// sec seconds: the last one that starts before it (in a video of
// variable frame rate a frame lasts until the next).
func FrameAt(t testing.TB, path string, sec float64) image.Image {
	t.Helper()
	NeedProgram(t, "ffmpeg")
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-t", strconv.FormatFloat(sec, 'f', 3, 64),
		"-an", "-fps_mode", "passthrough", "-f", "image2pipe", "-c:v", "png", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg decode %s up to %.3fs: %v: %s", path, sec, err, stderrOf(err))
	}
	i := bytes.LastIndex(out, []byte("\x89PNG\r\n\x1a\n"))
	if i < 0 {
		t.Fatalf("ffmpeg decoded no frame of %s before %.3fs", path, sec)
	}
	img, err := png.Decode(bytes.NewReader(out[i:]))
	if err != nil {
		t.Fatalf("decode the frame at %.3fs of %s: %v", sec, path, err)
	}
	return img
}
