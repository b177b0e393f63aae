package atspi

import (
	"strings"
	"testing"
)

func TestXML(t *testing.T) {
	one := 1.0
	d := &Desktop{Apps: []*Node{{Role: "application", Name: "a&b", Children: []*Node{{
		Role: "push button", Name: `say "hi"` + "\n", States: []string{"enabled", "showing", "visible"},
		Attrs:  []Attr{{"toolkit", "gtk"}},
		Bounds: &Rect{1, 2, 3, 4}, Value: &Value{Current: &one}, Text: "<x>\ufffc",
		Actions: []Action{{Name: "click now", Description: "Clicks"}},
	}}}}}
	x := d.XML()
	want := `<application name="a&amp;b"><push-button name="say &quot;hi&quot;&#10;" st:enabled="true" st:showing="true" st:visible="true" attr:toolkit="gtk" cp:screencoord="(1, 2)" cp:size="(3, 4)" val:value="1.0" act:click-now_desc="Clicks" act:click-now_kb="">&lt;x&gt;` + "\ufffc" + `</push-button></application></desktop-frame>`
	if !strings.HasPrefix(x, `<desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state"`) || !strings.HasSuffix(x, want) {
		t.Errorf("XML:\n%s\nwant suffix\n%s", x, want)
	}
	if got := (&Desktop{}).XML(); !strings.HasSuffix(got, `xmlns:act="https://accessibility.ubuntu.example.org/ns/action"/>`) {
		t.Errorf("empty desktop: %s", got)
	}
}
