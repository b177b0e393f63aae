package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrices(t *testing.T) {
	u := Usage{Model: "claude-sonnet-4-5-20250929", InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 2_000_000, CacheWriteTokens: 0}
	if c, ok := DefaultPrices.Cost(u); !ok || c != 3+1.5+0.6 {
		t.Errorf("cost = %v %v, want 5.1", c, ok)
	}
	if _, ok := DefaultPrices.Cost(Usage{Model: "some-local-model", InputTokens: 5}); ok {
		t.Error("a model without a price has a cost")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "prices.json")
	os.WriteFile(file, []byte(`{"claude-sonnet-4-5*": {"input": 1, "output": 2}, "my-model": {"input": 10}}`), 0o600)
	p, err := LoadPrices(file)
	if err != nil {
		t.Fatal(err)
	}
	// The longer pattern wins over the default's shorter one.
	if c, _ := p.Cost(u); c != 1+0.2 {
		t.Errorf("overridden cost = %v, want 1.2", c)
	}
	if c, ok := p.Cost(Usage{Model: "my-model", InputTokens: 100_000}); !ok || c != 1 {
		t.Errorf("my-model cost = %v %v", c, ok)
	}
	if c, _ := p.Cost(Usage{Model: "claude-opus-4-1", OutputTokens: 1_000_000}); c != 75 {
		t.Errorf("a default kept: %v", c)
	}
	for body, want := range map[string]string{
		`{"m": {"inputs": 1}}`: "unknown field",
		`{"m": {"input": -1}}`: "negative",
		`[1]`:                  "cannot unmarshal",
	} {
		os.WriteFile(file, []byte(body), 0o600)
		if _, err := LoadPrices(file); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", body, err, want)
		}
	}
	var sum Usage
	sum.Add(Usage{Model: "a", InputTokens: 1})
	sum.Add(Usage{Model: "b", OutputTokens: 2})
	if sum.Model != "mixed" || sum.InputTokens != 1 || sum.OutputTokens != 2 {
		t.Errorf("sum = %+v", sum)
	}
}
