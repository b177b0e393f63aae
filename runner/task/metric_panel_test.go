package task

import "testing"

func TestCheckLeftPanel(t *testing.T) {
	tree := func(coord, visible string) string {
		return `<desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state" xmlns:cp="https://accessibility.ubuntu.example.org/ns/component">` +
			`<frame name="deck.pptx - LibreOffice Impress"><root-pane><panel><split-pane cp:parentcoord="` + coord + `"` + visible + `><panel/></split-pane></panel></root-pane></frame></desktop-frame>`
	}
	runSettingsCases(t, []settingsCase{
		{"shown", "check_left_panel", tree("(0, 0)", ` st:visible="true"`), nil, 1},
		{"elsewhere", "check_left_panel", tree("(250, 0)", ` st:visible="true"`), nil, 0},
		{"not visible", "check_left_panel", tree("(0, 0)", ""), nil, 0},
		{"not XML", "check_left_panel", "<desktop-frame><root-pane>", nil, 0},
		{"no tree", "check_left_panel", nil, nil, 0},
	})
}
