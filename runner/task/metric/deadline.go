package metric

import (
	"context"
	"fmt"
	"time"
)

// panicDetail starts the detail of a metric that panicked (a bug: the
// readers return errors).
const panicDetail = "internal error reading the document: "

// metricDeadline bounds one call of a metric that reads documents (the
// office, PDF and presentation metrics: the one deadline of the metrics
// that run in the runner; those that run a child process bound it too).
const metricDeadline = 60 * time.Second

// withDeadline runs a metric that reads documents under metricDeadline
// (and the caller's context): a document that takes longer to read scores
// 0 with a detail instead of holding the grading up, and a reader that
// panics scores 0 with the panic in the detail.
func withDeadline(fn Func) Func {
	return func(ctx context.Context, result, expected any, opts map[string]any) (float64, string, error) {
		parent := ctx
		if parent == nil {
			parent = context.Background()
		}
		ctx, cancel := context.WithTimeout(parent, metricDeadline)
		defer cancel()
		type out struct {
			s      float64
			detail string
			err    error
		}
		ch := make(chan out, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					ch <- out{0, fmt.Sprintf("%s%v", panicDetail, p), nil}
				}
			}()
			s, d, err := fn(ctx, result, expected, opts)
			ch <- out{s, d, err}
		}()
		select {
		case o := <-ch:
			return o.s, o.detail, o.err
		case <-ctx.Done():
			if err := parent.Err(); err != nil {
				return 0, "", err
			}
			return 0, fmt.Sprintf("gave up after %s", metricDeadline), nil
		}
	}
}
