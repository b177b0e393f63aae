package farm

import (
	"math"
	"testing"
)

func TestPassAtK(t *testing.T) {
	for _, tt := range []struct {
		n, c, k   int
		atK, hatK float64
	}{
		{n: 5, c: 0, k: 5, atK: 0, hatK: 0},
		{n: 5, c: 5, k: 5, atK: 1, hatK: 1},
		{n: 5, c: 1, k: 5, atK: 1, hatK: 0},
		{n: 5, c: 4, k: 5, atK: 1, hatK: 0},
		{n: 4, c: 2, k: 1, atK: 0.5, hatK: 0.5},
		// C(4,2)=6 pairs, 1 of them with no pass: pass@2 = 5/6; 1 with
		// both: pass^2 = 1/6.
		{n: 4, c: 2, k: 2, atK: 5.0 / 6, hatK: 1.0 / 6},
		{n: 10, c: 3, k: 3, atK: 1 - 35.0/120, hatK: 1.0 / 120},
		{n: 2, c: 1, k: 3, atK: 0, hatK: 0}, // fewer trials than k
	} {
		if got := passAtK(tt.n, tt.c, tt.k); math.Abs(got-tt.atK) > 1e-12 {
			t.Errorf("pass@%d of %d/%d = %v, want %v", tt.k, tt.c, tt.n, got, tt.atK)
		}
		if got := passHatK(tt.n, tt.c, tt.k); math.Abs(got-tt.hatK) > 1e-12 {
			t.Errorf("pass^%d of %d/%d = %v, want %v", tt.k, tt.c, tt.n, got, tt.hatK)
		}
	}
}

func TestBootstrapCI(t *testing.T) {
	if ci := bootstrapCI([]float64{1}); ci != nil {
		t.Errorf("one value has an interval: %v", *ci)
	}
	same := bootstrapCI([]float64{0.5, 0.5, 0.5, 0.5})
	if same == nil || same[0] != 0.5 || same[1] != 0.5 {
		t.Errorf("equal values: interval %v, want [0.5 0.5]", same)
	}
	// Half of 200 tasks pass: the interval holds 0.5 and is about
	// ±1.96·sqrt(.25/200) ≈ ±0.069 wide.
	vals := make([]float64, 200)
	for i := range 100 {
		vals[i] = 1
	}
	ci := bootstrapCI(vals)
	if ci[0] > 0.5 || ci[1] < 0.5 || ci[0] < 0.41 || ci[1] > 0.59 {
		t.Errorf("interval of 100/200 = %v, want about [0.43 0.57]", *ci)
	}
	if again := bootstrapCI(vals); *again != *ci {
		t.Errorf("interval not reproducible: %v then %v", *ci, *again)
	}
}

func TestSummarizeTrials(t *testing.T) {
	var rs []Result
	add := func(id string, scores ...float64) {
		for i, s := range scores {
			st := StatusFailed
			if s >= 1 {
				st = StatusPassed
			}
			rs = append(rs, Result{ID: id, Domain: "d", Trial: i + 1, Score: s, Status: st, Detail: "got x"})
		}
	}
	add("always", 1, 1, 1)
	add("never", 0, 0, 0)
	add("once", 0, 1, 0)
	s := Summarize(rs)[0]
	if s.Tasks != 9 || s.DistinctTask != 3 || s.Trials != 3 || s.Passed != 4 {
		t.Errorf("counts: %+v", s)
	}
	// pass@3: always and once pass in some trial: 2/3; pass^3: only
	// always: 1/3.
	if math.Abs(s.PassAtK-2.0/3) > 1e-6 || math.Abs(s.PassHatK-1.0/3) > 1e-6 {
		t.Errorf("pass@3 = %v, pass^3 = %v, want 2/3 and 1/3", s.PassAtK, s.PassHatK)
	}
	ts := SummarizeTasks(rs)
	if ci := ts[0].MeanScoreCI; ci == nil || *ci != [2]float64{1, 1} {
		t.Errorf("interval of a task passed every time: %v", ci)
	}
	if ci := ts[2].MeanScoreCI; ci == nil || ci[0] != 0 || ci[1] != 1 {
		t.Errorf("interval of a task passed once in three: %v", ci)
	}
	if len(ts) != 3 || ts[2].ID != "once" || ts[2].Passed != 1 || ts[2].Trials != 3 || ts[2].Detail != "got x" {
		t.Errorf("task summaries: %+v", ts)
	}
	// A result of each trial is kept apart by its key.
	if (Result{ID: "a", Trial: 2}).Key() != "a#2" || (Result{ID: "a"}).Key() != "a" {
		t.Error("keys")
	}
	if (Result{ID: "a", Trial: 2}).Dir() != "a.trial-2" {
		t.Error("dir")
	}
}
