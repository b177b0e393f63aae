package pick

import (
	"slices"
	"testing"
)

// The candidates of Chromium's tree for `<label>Recipient <input></label>`,
// a link and a button, as AT-SPI lists them.
var page = []Candidate{
	{Name: "Recipient ", Role: "static", Actions: []string{"doDefault", "showContextMenu"}},
	{Name: "Recipient", Role: "entry", Actions: []string{"activate", "showContextMenu"}, States: []string{"editable", "focusable"}},
	{Name: "Recipients list", Role: "link", Actions: []string{"jump", "showContextMenu"}, States: []string{"focusable"}},
	{Name: "Recipients list", Role: "static", Actions: []string{"clickAncestor", "showContextMenu"}},
	{Name: "Send", Role: "push button", Actions: []string{"press"}},
	{Name: "Send", Role: "push button", Actions: []string{"press"}},
	{Name: "Send now", Role: "push button", Actions: []string{"press"}},
	{Name: "Subject", Role: "label"},
	{Name: "Subject line", Role: "entry", States: []string{"editable"}},
}

func TestChoose(t *testing.T) {
	for _, tt := range []struct {
		name string
		want string
		verb Verb
		idx  int
		tied []int
		m    Match
	}{
		{"the entry, not the label's text, for typing", "Recipient", Type, 1, nil, Exact},
		{"the entry, not the label's text, for clicking", "recipient", Click, 1, nil, Exact},
		{"exact before prefix", "recipients list", Click, 2, nil, Exact},
		{"prefix: the entry for typing", "Recip", Type, 1, nil, Prefix},
		{"prefix: entry and link can both be clicked", "Recip", Click, -1, []int{1, 2}, Prefix},
		{"equal names and roles tie", "Send", Click, -1, []int{4, 5}, Exact},
		{"prefix before substring", "now", Click, 6, nil, Substring},
		{"an exact label before a prefixed entry", "Subject", Type, 7, nil, Exact},
		{"case and spaces ignored", "  RECIPIENTS   list ", Click, 2, nil, Exact},
		{"no match", "Cancel", Click, -1, nil, None},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Choose(tt.want, tt.verb, page)
			if r.Index != tt.idx || !slices.Equal(r.Tied, tt.tied) || r.Match != tt.m {
				t.Errorf("Choose(%q) = %+v, want index %d tied %v match %v", tt.want, r, tt.idx, tt.tied, tt.m)
			}
		})
	}
}
