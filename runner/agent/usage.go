package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Usage counts the tokens of a model's answers, as the model APIs report
// them per call. InputTokens are the prompt tokens read at the full
// price; cached prompt tokens are counted apart (CacheReadTokens read
// from the prompt cache, CacheWriteTokens written to it), so the four
// never overlap.
type Usage struct {
	Model            string `json:"model,omitempty"`
	InputTokens      int64  `json:"input_tokens,omitempty"`
	OutputTokens     int64  `json:"output_tokens,omitempty"`
	CacheReadTokens  int64  `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64  `json:"cache_write_tokens,omitempty"`
}

// Add adds o's counts to u; the model is kept, or taken from o.
func (u *Usage) Add(o Usage) {
	if u.Model == "" {
		u.Model = o.Model
	} else if o.Model != "" && o.Model != u.Model {
		u.Model = "mixed"
	}
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
}

// Zero reports whether u counts nothing.
func (u Usage) Zero() bool {
	return u.InputTokens == 0 && u.OutputTokens == 0 && u.CacheReadTokens == 0 && u.CacheWriteTokens == 0
}

// Price is what a model's tokens cost, in US dollars per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// Prices maps model names to their prices. A name ending in "*" matches
// every model it is a prefix of ("claude-sonnet-4*").
type Prices map[string]Price

// DefaultPrices are the providers' published list prices for the models
// the anthropic and openai agents drive by default, per million tokens.
// Prices change: give deskrun eval --prices FILE (a JSON object of the
// same shape) to use yours; a model with no price has its tokens counted
// and no cost.
var DefaultPrices = Prices{
	"claude-sonnet-4*":      {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
	"claude-opus-4*":        {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75},
	"claude-haiku-4*":       {Input: 1, Output: 5, CacheRead: 0.10, CacheWrite: 1.25},
	"computer-use-preview*": {Input: 3, Output: 12},
}

// Lookup finds the price of model: its exact name, else the longest
// pattern that matches.
func (p Prices) Lookup(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	best, found := "", false
	var out Price
	for name, pr := range p {
		if prefix, ok := strings.CutSuffix(name, "*"); ok && strings.HasPrefix(model, prefix) && len(prefix) >= len(best) {
			best, out, found = prefix, pr, true
		}
	}
	return out, found
}

// Cost is what u costs at p, in US dollars, and whether its model has a
// price.
func (p Prices) Cost(u Usage) (float64, bool) {
	pr, ok := p.Lookup(u.Model)
	if !ok {
		return 0, false
	}
	return (float64(u.InputTokens)*pr.Input + float64(u.OutputTokens)*pr.Output +
		float64(u.CacheReadTokens)*pr.CacheRead + float64(u.CacheWriteTokens)*pr.CacheWrite) / 1e6, true
}

// LoadPrices reads a price table: a JSON object from model names (or
// prefixes ending in "*") to {"input","output","cache_read",
// "cache_write"} in US dollars per million tokens. Its entries replace
// the defaults of the same name; the others stay.
func LoadPrices(path string) (Prices, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("prices: %w", err)
	}
	var p Prices
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("prices: %s: %w", path, err)
	}
	out := Prices{}
	for k, v := range DefaultPrices {
		out[k] = v
	}
	for k, v := range p {
		if v.Input < 0 || v.Output < 0 || v.CacheRead < 0 || v.CacheWrite < 0 {
			return nil, fmt.Errorf("prices: %s: %q has a negative price", path, k)
		}
		out[k] = v
	}
	return out, nil
}
