package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/deskrun/deskrun/runner/farm"
)

// gate decides the exit status of a CI step from a run's results: an
// [exitError] of status 1, after saying why on stderr, when the success
// rate is under failUnder (0 checks nothing) or when regressed is set.
func gate(stderr io.Writer, results []farm.Result, failUnder float64, regressed bool, overall farm.DomainDelta) error {
	sums := farm.Summarize(results)
	rate := 0.0
	if len(sums) > 0 {
		rate = sums[len(sums)-1].SuccessRate
	}
	var why []string
	if failUnder > 0 && rate < failUnder {
		why = append(why, fmt.Sprintf("success rate %.1f%% is under --fail-under %.1f%%", 100*rate, 100*failUnder))
	}
	if regressed {
		why = append(why, fmt.Sprintf("significantly worse: mean score %+.3f, 95%% interval %+.3f..%+.3f", overall.Delta, overall.CI[0], overall.CI[1]))
	}
	if len(why) == 0 {
		return nil
	}
	for _, w := range why {
		fmt.Fprintln(stderr, "deskrun: "+w)
	}
	return exitError{code: 1}
}

// writeFileWith writes a file through write, made whole or not at all
// (a temporary file renamed into place).
func writeFileWith(path string, write func(io.Writer) error) error {
	if path == "-" {
		return write(os.Stdout)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".deskrun-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
