package metric

import (
	"context"
	"fmt"
	"time"
)

// panicDetail starts the detail of a metric that panicked (a bug: the
// readers return errors).
const panicDetail = "internal error reading the document: "

// officeMetricTimeout bounds one call of an office metric.
const officeMetricTimeout = 60 * time.Second

// withDeadline runs an office metric under officeMetricTimeout (and the
// caller's context): a document that takes longer to read scores 0 with
// a detail instead of holding the grading up.
func withDeadline(fn Func) Func {
	return func(ctx context.Context, result, expected any, opts map[string]any) (float64, string, error) {
		parent := ctx
		if parent == nil {
			parent = context.Background()
		}
		ctx, cancel := context.WithTimeout(parent, officeMetricTimeout)
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
			return 0, fmt.Sprintf("gave up after %s", officeMetricTimeout), nil
		}
	}
}
