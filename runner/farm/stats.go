package farm

import (
	"math"
	"math/rand/v2"
	"slices"
)

// TaskSummary aggregates the trials of one task.
type TaskSummary struct {
	ID     string `json:"id"`
	Domain string `json:"domain"`
	// Trials counts the task's results; Passed those that passed;
	// Errors those that ended without a grade.
	Trials int `json:"trials"`
	Passed int `json:"passed"`
	Errors int `json:"errors"`
	// MeanScore averages the trials' scores, ungraded ones counting 0;
	// MeanScoreCI is its 95% bootstrap interval over the trials (with
	// two trials or more).
	MeanScore   float64     `json:"mean_score"`
	MeanScoreCI *[2]float64 `json:"mean_score_ci,omitempty"`
	// MeanMS is the mean duration of a trial.
	MeanMS int64 `json:"mean_ms"`
	// Detail is the grader's detail of the last trial that did not pass
	// (or the error of one that ended without a grade).
	Detail string `json:"detail,omitempty"`
}

// SuccessRate is Passed / Trials.
func (t TaskSummary) SuccessRate() float64 {
	if t.Trials == 0 {
		return 0
	}
	return float64(t.Passed) / float64(t.Trials)
}

// SummarizeTasks aggregates results per task, in the order each task's
// first result appears.
func SummarizeTasks(results []Result) []TaskSummary {
	at := map[string]int{}
	var out []TaskSummary
	scores := map[string][]float64{}
	for _, r := range results {
		scores[r.ID] = append(scores[r.ID], r.Score)
		i, ok := at[r.ID]
		if !ok {
			i = len(out)
			at[r.ID] = i
			out = append(out, TaskSummary{ID: r.ID, Domain: r.Domain})
		}
		t := &out[i]
		t.Trials++
		t.MeanScore += r.Score
		t.MeanMS += r.DurationMS
		switch r.Status {
		case StatusPassed:
			t.Passed++
		case StatusFailed:
			if r.Detail != "" {
				t.Detail = r.Detail
			}
		case StatusSkipped:
			t.Detail = r.Error
		default:
			t.Errors++
			t.Detail = r.Status + ": " + r.Error
		}
	}
	for i := range out {
		out[i].MeanScore /= float64(out[i].Trials)
		out[i].MeanMS /= int64(out[i].Trials)
		out[i].MeanScoreCI = bootstrapCI(scores[out[i].ID])
	}
	return out
}

// passAtK is the unbiased estimator of pass@k for a task passed c times
// in n trials (Chen et al., 2021): the chance that at least one of k
// trials drawn without replacement passed, 1 - C(n-c, k) / C(n, k).
func passAtK(n, c, k int) float64 {
	if k <= 0 || n < k {
		return 0
	}
	if n-c < k {
		return 1
	}
	// C(n-c, k) / C(n, k) as a product, without large numbers.
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p
}

// passHatK is the unbiased estimator of pass^k for a task passed c times
// in n trials: the chance that all of k trials drawn without replacement
// passed, C(c, k) / C(n, k).
func passHatK(n, c, k int) float64 {
	if k <= 0 || n < k || c < k {
		return 0
	}
	p := 1.0
	for i := range k {
		p *= float64(c-i) / float64(n-i)
	}
	return p
}

// bootstrapResamples is how many resamples the intervals draw; their
// seed is fixed, so a report says the same thing every time it is made.
const bootstrapResamples = 10000

// bootstrapCI is the 95% percentile-bootstrap interval of the mean of
// values: the values resampled with replacement, the 2.5th and 97.5th
// percentiles of the resamples' means. Nil for fewer than two values.
func bootstrapCI(values []float64) *[2]float64 {
	n := len(values)
	if n < 2 {
		return nil
	}
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	means := make([]float64, bootstrapResamples)
	for b := range means {
		var sum float64
		for range n {
			sum += values[rng.IntN(n)]
		}
		means[b] = sum / float64(n)
	}
	slices.Sort(means)
	lo := means[int(math.Floor(0.025*float64(bootstrapResamples)))]
	hi := means[int(math.Ceil(0.975*float64(bootstrapResamples)))-1]
	return &[2]float64{round6(lo), round6(hi)}
}

// round6 rounds to six decimals, so that sums of the same scores in
// another order print the same.
func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }
