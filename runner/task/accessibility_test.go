package task

import (
	"testing"

	"github.com/deskrun/deskrun/runner/task/internal/atree"
)

const sampleTree = `<desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state" xmlns:attr="https://accessibility.ubuntu.example.org/ns/attributes" xmlns:cp="https://accessibility.ubuntu.example.org/ns/component" xmlns:doc="https://accessibility.ubuntu.example.org/ns/document" xmlns:docattr="https://accessibility.ubuntu.example.org/ns/document/attributes" xmlns:txt="https://accessibility.ubuntu.example.org/ns/text" xmlns:val="https://accessibility.ubuntu.example.org/ns/value" xmlns:act="https://accessibility.ubuntu.example.org/ns/action">` +
	`<application name="Thunderbird"><frame name="Mail" st:active="true"><page-tab-list name="" attr:id="tabmail-tabs"><page-tab name="Inbox"/><page-tab name="About Profiles"/></page-tab-list>` +
	`<tool-bar name="" attr:id="MsgHeadersToolbar"><label name="To"/><section name="" attr:class="address-pill"><label name="fox@someuniversity.edu" attr:class="pill-label">fox</label></section></tool-bar>` +
	`<terminal name="" st:focused="true">$ stty size
43 132

</terminal></frame></application></desktop-frame>`

func TestTerminalFromTree(t *testing.T) {
	els, err := atree.XPath(sampleTree, `//application/frame[@st:active="true"]//terminal[@st:focused="true"]`)
	if err != nil || len(els) != 1 || els[0].InnerText() != "$ stty size\n43 132\n\n" {
		t.Fatalf("%v %d", err, len(els))
	}
}
