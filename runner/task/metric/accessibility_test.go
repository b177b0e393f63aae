package metric

import (
	"context"
	"testing"
)

const thunderbirdTree = `<desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state" xmlns:attr="https://accessibility.ubuntu.example.org/ns/attributes" xmlns:cp="https://accessibility.ubuntu.example.org/ns/component" xmlns:doc="https://accessibility.ubuntu.example.org/ns/document" xmlns:docattr="https://accessibility.ubuntu.example.org/ns/document/attributes" xmlns:txt="https://accessibility.ubuntu.example.org/ns/text" xmlns:val="https://accessibility.ubuntu.example.org/ns/value" xmlns:act="https://accessibility.ubuntu.example.org/ns/action">` +
	`<application name="Thunderbird"><frame name="Mail" st:active="true"><page-tab-list name="" attr:id="tabmail-tabs"><page-tab name="Inbox"/><page-tab name="About Profiles"/></page-tab-list>` +
	`<tool-bar name="" attr:id="MsgHeadersToolbar"><label name="To"/><section name="" attr:class="address-pill"><label name="fox@someuniversity.edu" attr:class="pill-label">fox</label></section></tool-bar>` +
	`<terminal name="" st:focused="true">$ stty size
43 132

</terminal></frame></application></desktop-frame>`

func TestCheckAccessibilityTree(t *testing.T) {
	for _, c := range []struct {
		rules []any
		want  float64
	}{
		{[]any{map[string]any{"selectors": []any{`application[name=Thunderbird] page-tab-list[attr|id="tabmail-tabs"]>page-tab[name="About Profiles"]`}}}, 1},
		{[]any{map[string]any{"selectors": []any{`application[name=Thunderbird] page-tab-list[attr|id="tabmail-tabs"]>page-tab[name="Settings"]`}}}, 0},
		{[]any{map[string]any{"selectors": []any{`tool-bar[attr|id=MsgHeadersToolbar] label[name=To]~[attr|class="address-pill"]>label[attr|class="pill-label"][name*="fox@someuniversity.edu"]`}}}, 1},
		{[]any{map[string]any{"selectors": []any{`tool-bar[attr|id=MsgHeadersToolbar] label[name=To]~[attr|class="address-pill"]>label[attr|class="pill-label"][name*="iron@"]`}}}, 0},
		{[]any{map[string]any{"xpath": `//page-tab[@name="Inbox"]`, "text": "", "exact": true}}, 1},
		{[]any{map[string]any{"xpath": `//label[@attr:class="pill-label"]`, "text": "fox", "exact": true}}, 1},
		{[]any{map[string]any{"xpath": `//label[@attr:class="pill-label"]`, "text": "fix", "exact": false}}, 2.0 / 3},
	} {
		if err := checkTreeRules(c.rules); err != nil {
			t.Fatal(err)
		}
		got, detail, err := checkAccessibilityTree(context.Background(), thunderbirdTree, map[string]any{"rules": c.rules}, nil)
		if err != nil || got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("%v: %v %q %v, want %v", c.rules, got, detail, err, c.want)
		}
	}
	if err := checkTreeRules([]any{map[string]any{"text": "x"}}); err == nil {
		t.Error("a rule with neither xpath nor selectors was accepted")
	}
}
