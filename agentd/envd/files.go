package envd

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"syscall"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/internal/sandboxfs"
	envdapi "github.com/deskrun/deskrun/api/e2b/envd"
)

// filesActor is who a /files call acts as: envd's username parameter,
// else the header deskrun serve sets.
func (s *Service) filesActor(r *http.Request) (actor, error) {
	name := r.URL.Query().Get("username")
	if name == "" {
		name = r.Header.Get(envdapi.UserHeader)
	}
	return s.fileActor(name)
}

// readFile answers GET /files: the file's bytes, streamed (ranges and
// conditional requests as net/http serves them).
func (s *Service) readFile(w http.ResponseWriter, r *http.Request) {
	a, err := s.filesActor(r)
	if err != nil {
		fileError(w, err)
		return
	}
	p, err := a.resolve("path", r.URL.Query().Get("path"))
	if err != nil {
		fileError(w, err)
		return
	}
	// Stat before opening: opening a FIFO would wait for a writer.
	st, err := os.Stat(p)
	if err != nil {
		fileError(w, sandboxfs.Classify(p, err))
		return
	}
	if err := sandboxfs.Regular(p, st); err != nil {
		fileError(w, err)
		return
	}
	f, err := os.Open(p)
	if err != nil {
		fileError(w, sandboxfs.Classify(p, err))
		return
	}
	defer f.Close()
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/octet-stream")
	}
	http.ServeContent(w, r, "", st.ModTime(), f)
}

// writeFiles answers POST /files: an application/octet-stream body is
// the file at path; a multipart/form-data body holds one file per "file"
// part, at path or, without it, at the part's file name. Each is
// streamed to disk ([sandboxfs.Replace]); the answer lists what was
// written.
func (s *Service) writeFiles(w http.ResponseWriter, r *http.Request) {
	a, err := s.filesActor(r)
	if err != nil {
		fileError(w, err)
		return
	}
	body := r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			fileError(w, errdefs.ErrInvalidArgument.WithMessage("body: not gzip, as Content-Encoding says: "+err.Error()))
			return
		}
		defer zr.Close()
		body = zr
	}
	path := r.URL.Query().Get("path")
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var written []envdapi.FileEntry
	switch {
	case mt == "application/octet-stream":
		p, err := a.resolve("path", path)
		if err != nil {
			fileError(w, err)
			return
		}
		if _, err := sandboxfs.Replace(p, body); err != nil {
			fileError(w, err)
			return
		}
		written = append(written, envdapi.FileEntry{Path: p, Name: filepath.Base(p), Type: "file"})
	case mt == "multipart/form-data" || mt == "multipart/mixed":
		if params["boundary"] == "" {
			fileError(w, errdefs.ErrInvalidArgument.WithMessage("Content-Type: a multipart body needs a boundary"))
			return
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				fileError(w, errdefs.ErrInvalidArgument.WithMessage("body: read the multipart form: "+err.Error()))
				return
			}
			e, err := writePart(a, part, path, written)
			part.Close()
			if err != nil {
				fileError(w, err)
				return
			}
			if e != nil {
				written = append(written, *e)
			}
		}
		if len(written) == 0 {
			fileError(w, errdefs.ErrInvalidArgument.WithMessage(`body: the multipart form has no "file" part`))
			return
		}
	default:
		fileError(w, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("Content-Type: %q, not multipart/form-data or application/octet-stream", r.Header.Get("Content-Type"))))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(written)
}

// writePart writes a "file" part of a multipart upload (other parts are
// skipped).
func writePart(a actor, part *multipart.Part, path string, written []envdapi.FileEntry) (*envdapi.FileEntry, error) {
	if part.FormName() != "file" {
		return nil, nil
	}
	if path == "" {
		// The file name as sent, folders and all (FileName keeps only
		// its last element).
		_, params, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
		path = params["filename"]
		if path == "" {
			return nil, errdefs.ErrInvalidArgument.WithMessage("path: required, as a parameter or as the file part's file name")
		}
	}
	p, err := a.resolve("path", path)
	if err != nil {
		return nil, err
	}
	for _, e := range written {
		if e.Path == p {
			return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("path: %s is named by two parts of one upload", p))
		}
	}
	if _, err := sandboxfs.Replace(p, part); err != nil {
		return nil, err
	}
	return &envdapi.FileEntry{Path: p, Name: filepath.Base(p), Type: "file"}, nil
}

// fileError answers a /files call that failed, as envd does: the status
// and {"code": status, "message": ...}.
func fileError(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	var re *sandboxfs.ReadError
	switch {
	case errors.As(err, &re):
		status = http.StatusBadRequest
	case errdefs.IsNotFound(err):
		status = http.StatusNotFound
	case errdefs.IsPermissionDenied(err):
		status = http.StatusForbidden
	case errdefs.IsInvalidArgument(err):
		status = http.StatusBadRequest
	case errdefs.IsOutOfRange(err):
		status = http.StatusRequestEntityTooLarge
	case errors.Is(err, syscall.ENOSPC):
		status = http.StatusInsufficientStorage
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(envdapi.Error{Code: status, Message: err.Error()})
}
