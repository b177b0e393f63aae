package metric

import "testing"

func TestCheckLeftPanel(t *testing.T) {
	tree := func(inner string) string {
		return `<desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state" xmlns:cp="https://accessibility.ubuntu.example.org/ns/component">` +
			`<application name="soffice"><frame name="deck.pptx - LibreOffice Impress"><panel>` + inner + `</panel></frame></application></desktop-frame>`
	}
	runSettingsCases(t, []settingsCase{
		{"shown", "check_left_panel", tree(`<document-frame name="Slides View" st:visible="true"/>`), nil, 1},
		{"shown, no states", "check_left_panel", tree(`<document-frame name="Slides View"/>`), nil, 1},
		{"another frame", "check_left_panel", tree(`<document-frame name="Outline View"/>`), nil, 0},
		{"another role", "check_left_panel", tree(`<panel name="Slides View"/>`), nil, 0},
		{"not XML", "check_left_panel", "<desktop-frame><root-pane>", nil, 0},
		{"no tree", "check_left_panel", nil, nil, 0},
	})
}
