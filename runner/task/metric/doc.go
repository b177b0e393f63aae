// Package metric holds OSWorld's metrics (desktop_env/evaluators/metrics)
// in Go: each is a function of the result getter's value, the expected
// getter's value and the options, with OSWorld's arguments,
// normalisations and scores. Where OSWorld's Python would raise (a
// missing file, a value of the wrong type), a metric scores 0 and says
// why in its detail; an error is returned only for a task that cannot be
// graded at all (a malformed rule, which the loader catches through
// [Metric.CheckRules]).
//
// Every metric is a row of one literal table (catalog.go; [Lookup],
// [Names]), as OSWorld's metrics/__init__.py lists its exports: a name
// given twice does not compile, and no file registers itself. A metric
// that must run something in the task's sandbox (run_sqlite3) gets the
// small [Sandbox] interface; the others get only a context.
//
// The package sits below the task executor (runner/task), which runs the
// getters and calls a metric with their values, and never imports it: a
// metric knows values, not tasks or sessions. Below it sit the readers
// and primitives it scores with, each a port of what OSWorld's Python
// calls: document readers (runner/task/internal/office), the
// accessibility tree's queries (runner/task/internal/atree), images as
// Pillow and scikit-image hold and compare them (runner/task/internal/pil),
// librosa's MFCC and the warping distance of compare_audios
// (runner/task/internal/dsp), ID3 tags as mutagen reads them
// (runner/task/internal/id3), lxml's HTML pretty-printing
// (runner/task/internal/lxml), and Python's semantics (internal/py).
package metric
