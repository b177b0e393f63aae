package farm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// ResultsFile is the name of the results file in a run directory.
const ResultsFile = "results.jsonl"

// ReadResults reads a results.jsonl: one [Result] per line. A missing
// file is an empty run. Lines that are not results (a line torn by a
// crash) are skipped; when a task (or a trial of one) has several lines
// the last wins, at the place of the first.
func ReadResults(path string) ([]Result, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	return parseResults(f)
}

// ParseResults reads results in the format of results.jsonl, as
// [ReadResults] reads the file (GET /v1/runs/{id}/results answers it).
func ParseResults(r io.Reader) ([]Result, error) { return parseResults(r) }

func parseResults(r io.Reader) ([]Result, error) {
	var out []Result
	at := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var res Result
		if json.Unmarshal(sc.Bytes(), &res) != nil || res.ID == "" {
			continue
		}
		if i, ok := at[res.Key()]; ok {
			out[i] = res
			continue
		}
		at[res.Key()] = len(out)
		out = append(out, res)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read results: %w", err)
	}
	return out, nil
}

// resultsFile appends results, one line each, synced to disk.
type resultsFile struct {
	mu sync.Mutex
	f  *os.File
}

// openResults opens the results file for appending and returns the
// results it holds. A torn last line (a crash mid-write) is cut off, so
// the next line starts clean.
func openResults(path string) (*resultsFile, []Result, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open results: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read results: %w", err)
	}
	if keep := int64(bytes.LastIndexByte(data, '\n') + 1); keep < int64(len(data)) {
		if err := f.Truncate(keep); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("repair results: %w", err)
		}
		data = data[:keep]
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open results: %w", err)
	}
	done, err := parseResults(bytes.NewReader(data))
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return &resultsFile{f: f}, done, nil
}

// append writes r as one line and syncs it.
func (rf *resultsFile) append(r Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if _, err := rf.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return rf.f.Sync()
}

func (rf *resultsFile) close() error { return rf.f.Close() }
