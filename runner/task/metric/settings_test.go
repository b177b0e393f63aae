package metric

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deskrun/deskrun/internal/py"
)

// writeTemp writes data to a file named name in a fresh folder.
func writeTemp(t testing.TB, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// js decodes a JSON literal into the value model (numbers as json.Number).
func js(t testing.TB, s string) any {
	t.Helper()
	v, err := py.DecodeJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

type settingsCase struct {
	name             string
	metric           string
	result, expected any
	want             float64
}

func runSettingsCases(t *testing.T, cases []settingsCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.metric+"/"+tt.name, func(t *testing.T) {
			sp, ok := metricTable[tt.metric]
			if !ok {
				t.Fatalf("%s not registered", tt.metric)
			}
			if m, ok := tt.expected.(map[string]any); ok && sp.CheckRules != nil {
				if err := sp.CheckRules(m); err != nil {
					t.Fatalf("rules refused: %v", err)
				}
			}
			s, detail, err := sp.Fn(testEnv(t), tt.result, tt.expected, map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			if s != tt.want {
				t.Errorf("score %v (%s), want %v", s, detail, tt.want)
			}
			if s == 0 && detail == "" {
				t.Error("a 0 without a detail")
			}
		})
	}
}

func TestSettingsMetrics(t *testing.T) {
	settings := writeTemp(t, "settings.json", `{"editor.wordWrapColumn": 50, "files.exclude": {"**/__pycache__": true}, "debug.focusEditorOnBreak": false}`)
	commented := writeTemp(t, "settings.json", "// comment\n{\"a\": 1}")
	list := writeTemp(t, "list.json", `[1, 2]`)
	keys := writeTemp(t, "keybindings.json", "// Place your key bindings in this file\n[{\"key\": \"ctrl+j\", \"command\": \"workbench.action.focusActiveEditorGroup\", \"when\": \"terminalFocus\"}]")
	config := writeTemp(t, "OpenProject.txt", "project")
	gimprc := writeTemp(t, "gimprc", "# GIMP gimprc\n\n(theme \"Light\")\n(undo-levels 100)\n(default-view\n    (show-menubar yes))\n(show-tips no)\n")
	prefs := writeTemp(t, "prefs.js", `// Mozilla User Preferences
user_pref("mail.identity.id1.auto_quote", false);
user_pref("mail.identity.id1.htmlSigText", "Anonym\nXYZ Lab");
user_pref("extensions.activeThemeID", "thunderbird-compact-dark@mozilla.org");
user_pref("mail.server.default.autosync_offline_stores", false);
user_pref("mail.imap.use_status_for_biff", false);
`)
	badPref := writeTemp(t, "prefs.js", "user_pref(\"a\", nope);\n")
	missing := filepath.Join(t.TempDir(), "none")
	timedatectl := "               Local time: Thu 2024-01-25 12:56:06 UTC\n           Universal time: Thu 2024-01-25 12:56:06 UTC\n                 RTC time: Thu 2024-01-25 12:56:05\n                Time zone: Etc/UTC (UTC, +0000)\nSystem clock synchronized: yes\n"
	timedatectlWET := "               Local time: Thu 2024-01-25 12:56:06 CET\n           Universal time: Thu 2024-01-25 11:56:06 UTC\n                 RTC time: Thu 2024-01-25 11:56:05\n                Time zone: Europe/Paris (CET, +0100)\n"
	dir := js(t, `{"type": "directory", "name": "cpjpg", "children": [{"type": "file", "name": "a.jpg"}, {"type": "file", "name": "b.jpg"}]}`)

	runSettingsCases(t, []settingsCase{
		{"set", "check_json_settings", settings, js(t, `{"expected": {"editor.wordWrapColumn": 50}}`), 1},
		{"nested", "check_json_settings", settings, js(t, `{"expected": {"files.exclude": {"**/__pycache__": true}}}`), 1},
		{"false", "check_json_settings", settings, js(t, `{"expected": {"debug.focusEditorOnBreak": false}}`), 1},
		{"empty expected", "check_json_settings", settings, js(t, `{"expected": {}}`), 1},
		{"other value", "check_json_settings", settings, js(t, `{"expected": {"editor.wordWrapColumn": 80}}`), 0},
		{"unset", "check_json_settings", settings, js(t, `{"expected": {"files.autoSave": "afterDelay"}}`), 0},
		{"nested differs", "check_json_settings", settings, js(t, `{"expected": {"files.exclude": {"**/__pycache__": true, "x": true}}}`), 0},
		{"comments are not JSON", "check_json_settings", commented, js(t, `{"expected": {}}`), 0},
		{"list", "check_json_settings", list, js(t, `{"expected": {}}`), 0},
		{"missing", "check_json_settings", missing, js(t, `{"expected": {}}`), 0},
		{"empty path", "check_json_settings", "", js(t, `{"expected": {}}`), 0},

		{"present after the comment line", "check_json_keybindings", keys, js(t, `{"expected": {"key": "ctrl+j", "command": "workbench.action.focusActiveEditorGroup", "when": "terminalFocus"}}`), 1},
		{"other when", "check_json_keybindings", keys, js(t, `{"expected": {"key": "ctrl+j", "command": "workbench.action.focusActiveEditorGroup", "when": "editorFocus"}}`), 0},
		{"not a list", "check_json_keybindings", settings, js(t, `{"expected": {}}`), 0},
		{"missing", "check_json_keybindings", missing, js(t, `{"expected": {}}`), 0},

		{"equal", "compare_config", config, js(t, `{"expected": "project"}`), 1},
		{"contained (containment is the default)", "compare_config", config, js(t, `{"expected": "project\n"}`), 1},
		{"differs", "compare_config", config, js(t, `{"expected": "other"}`), 0},
		{"missing", "compare_config", missing, js(t, `{"expected": "project"}`), 0},

		{"contains", "is_extension_installed", "ms-python.python\n", js(t, `{"type": "contain", "expected": "ms-python.python"}`), 1},
		{"does not contain", "is_extension_installed", "", js(t, `{"type": "contain", "expected": "ms-python.python"}`), 0},
		{"not_contain", "is_extension_installed", "", js(t, `{"type": "not_contain", "expected": "x"}`), 1},
		{"not_contain but there", "is_extension_installed", "x", js(t, `{"type": "not_contain", "expected": "x"}`), 0},
		{"no output", "is_extension_installed", nil, js(t, `{"type": "contain", "expected": "x"}`), 0},

		{"theme", "check_config_status", gimprc, js(t, `{"type:": "key-value", "key": "theme", "value": "\"Light\""}`), 1},
		{"undo levels", "check_config_status", gimprc, js(t, `{"key": "undo-levels", "value": "100"}`), 1},
		{"undo levels differ", "check_config_status", gimprc, js(t, `{"key": "undo-levels", "value": "200"}`), 0},
		{"two words", "check_config_status", gimprc, js(t, `{"key": ["show-tips", "no"], "value": "no"}`), 1},
		{"missing", "check_config_status", missing, js(t, `{"key": "theme", "value": "x"}`), 0},

		{"eq false", "check_thunderbird_prefs", prefs, js(t, `{"expect": {"mail.identity.id1.auto_quote": {"method": "eq", "ref": false}}}`), 1},
		{"eq true", "check_thunderbird_prefs", prefs, js(t, `{"expect": {"mail.identity.id1.auto_quote": {"method": "eq", "ref": true}}}`), 0},
		{"re.S across a newline", "check_thunderbird_prefs", prefs, js(t, `{"expect": {"mail.identity.id1.htmlSigText": {"method": "re.S", "ref": "Anonym.+XYZ Lab"}}}`), 1},
		{"re without S", "check_thunderbird_prefs", prefs, js(t, `{"expect": {"mail.identity.id1.htmlSigText": {"method": "re", "ref": "Anonym.+XYZ Lab"}}}`), 0},
		{"re search", "check_thunderbird_prefs", prefs, js(t, `{"expect": {"extensions.activeThemeID": {"method": "re", "ref": "dark"}}}`), 1},
		{"unset expected pref", "check_thunderbird_prefs", prefs, js(t, `{"expect": {"mail.server.default.applyIncomingFilters": {"method": "eq", "ref": true}}}`), 0},
		{"unexpected pref set", "check_thunderbird_prefs", prefs, js(t, `{"expect": {"mail.imap.use_status_for_biff": {"method": "eq", "ref": false}}, "unexpect": {"mail.server.default.autosync_offline_stores": {"method": "eq", "ref": false}}}`), 0},
		{"unexpected pref other value", "check_thunderbird_prefs", prefs, js(t, `{"expect": {"mail.imap.use_status_for_biff": {"method": "eq", "ref": false}}, "unexpect": {"mail.server.default.autosync_offline_stores": {"method": "eq", "ref": true}}}`), 1},
		{"undecodable pref", "check_thunderbird_prefs", badPref, js(t, `{"expect": {}}`), 0},
		{"missing", "check_thunderbird_prefs", missing, js(t, `{"expect": {}}`), 0},

		{"same set", "check_gnome_favorite_apps", "['thunderbird.desktop', 'google-chrome.desktop']\n", js(t, `{"expected": ["google-chrome.desktop", "thunderbird.desktop"]}`), 1},
		{"one more", "check_gnome_favorite_apps", "['thunderbird.desktop', 'google-chrome.desktop', 'vim.desktop']\n", js(t, `{"expected": ["google-chrome.desktop", "thunderbird.desktop"]}`), 0},
		{"empty", "check_gnome_favorite_apps", "@as []\n", js(t, `{"expected": []}`), 1},
		{"garbage", "check_gnome_favorite_apps", "No such schema\n", js(t, `{"expected": []}`), 0},

		{"utc", "is_utc_0", timedatectl, nil, 1},
		{"cet", "is_utc_0", timedatectlWET, nil, 0},
		{"short", "is_utc_0", "x", nil, 0},

		{"enlarged", "check_text_enlarged", "1.25\n", nil, 1},
		{"normal", "check_text_enlarged", "1.0\n", nil, 0},
		{"not a number", "check_text_enlarged", "", nil, 0},

		{"same files", "check_moved_jpgs", dir, js(t, `{"expected": ["b.jpg", "a.jpg"]}`), 1},
		{"one missing", "check_moved_jpgs", dir, js(t, `{"expected": ["b.jpg", "a.jpg", "c.jpg"]}`), 0},
		{"no listing", "check_moved_jpgs", nil, js(t, `{"expected": []}`), 0},

		{"string in clipboard", "is_in_vm_clickboard", js(t, `{"expected": "/home/user/secret.docx"}`), "/home/user/secret.docx", 1},
		{"list in clipboard", "is_in_vm_clickboard", js(t, `{"expected": ["a", "b"]}`), "b a", 1},
		{"not in clipboard", "is_in_vm_clickboard", js(t, `{"expected": ["a", "c"]}`), "b a", 0},
		{"no clipboard", "is_in_vm_clickboard", js(t, `{"expected": "a"}`), nil, 0},
	})
}

func TestSettingsRulesChecked(t *testing.T) {
	for _, tt := range []struct{ metric, rules string }{
		{"check_json_settings", `{"expected": 1}`},
		{"is_extension_installed", `{"type": "exact", "expected": "x"}`},
		{"check_config_status", `{"key": ["a"], "value": "1"}`},
		{"check_thunderbird_prefs", `{"expect": {"a": {"method": "nope", "ref": 1}}}`},
	} {
		if err := metricTable[tt.metric].CheckRules(js(t, tt.rules)); err == nil {
			t.Errorf("%s %s: no load-time error", tt.metric, tt.rules)
		}
	}
}

func TestCompareResultFiles(t *testing.T) {
	num := writeTemp(t, "a.txt", "3.14159\n")
	sentence := writeTemp(t, "b.txt", "The answer is 3.14159.\n")
	close := writeTemp(t, "c.txt", "3.14160")
	text := writeTemp(t, "d.txt", "hello\n")
	runSettingsCases(t, []settingsCase{
		{"same number", "compare_result_files", num, num, 1},
		{"number inside a sentence", "compare_result_files", sentence, num, 1},
		{"within 1e-4", "compare_result_files", close, num, 1},
		{"other number", "compare_result_files", text, num, 0},
		{"same text", "compare_result_files", text, text, 1},
		{"missing", "compare_result_files", filepath.Join(t.TempDir(), "x"), text, 0},
		{"no result", "compare_result_files", nil, text, 0},
	})
}

func TestCheckSlideOrientationPortrait(t *testing.T) {
	portrait := editedCopy(t, deckPath, edit{part: "ppt/presentation.xml", old: `<p:sldSz cx="9144000" cy="6858000"/>`, new: `<p:sldSz cx="6858000" cy="9144000"/>`})
	runSettingsCases(t, []settingsCase{
		{"portrait", "check_slide_orientation_Portrait", portrait, nil, 1},
		{"landscape", "check_slide_orientation_Portrait", deckPath, nil, 0},
		{"missing", "check_slide_orientation_Portrait", "testdata/metrics/none.pptx", nil, 0},
	})
}

func TestCheckThunderbirdFilter(t *testing.T) {
	rules := writeTemp(t, "msgFilterRules.dat", `version="9"
logging="no"
name="Promotions"
enabled="yes"
type="17"
action="Move to folder"
actionValue="mailbox://nobody@Local%20Folders/Promotions"
condition="AND (subject,contains,discount)"
name="Forward all"
enabled="yes"
type="17"
action="Forward"
actionValue="anonym-x2024@gmail.com"
condition="ALL"
`)
	disabled := writeTemp(t, "msgFilterRules.dat", "name=\"Promotions\"\nenabled=\"no\"\ntype=\"17\"\naction=\"Move to folder\"\nactionValue=\"mailbox://nobody@Local%20Folders/Promotions\"\ncondition=\"AND (subject,contains,discount)\"\n")
	move := `{"expect": [{"enabled": "yes", "action": "Move to folder", "actionValue": "mailbox://nobody@Local%20Folders/Promotions", "condition": ["AND (subject,contains,discount)"]}]}`
	runSettingsCases(t, []settingsCase{
		{"move filter", "check_thunderbird_filter", rules, js(t, move), 1},
		{"forward filter", "check_thunderbird_filter", rules, js(t, `{"expect": [{"enabled": "yes", "action": "Forward", "actionValue": "anonym-x2024@gmail.com", "condition": ["ALL"]}]}`), 1},
		{"other condition", "check_thunderbird_filter", rules, js(t, `{"expect": [{"action": "Move to folder", "condition": ["AND (subject,contains,sale)"]}]}`), 0},
		{"disabled", "check_thunderbird_filter", disabled, js(t, move), 0},
		{"unexpected filter present", "check_thunderbird_filter", rules, js(t, `{"unexpect": [{"action": "Forward"}]}`), 0},
		{"missing", "check_thunderbird_filter", filepath.Join(t.TempDir(), "x"), js(t, move), 0},
	})
}

func TestCheckThunderbirdFolder(t *testing.T) {
	// OSWorld keeps only blank pieces between upper-case "FROM - "
	// separators, so a folder reads the same as any other non-empty one
	// and differs from an empty one.
	mbox := writeTemp(t, "Bills", "From - Thu Jan 25 12:00:00 2024\nX-Mozilla-Status: 0001\nSubject: bill\n\nPay.\n")
	other := writeTemp(t, "Other", "From - Fri Jan 26 12:00:00 2024\nSubject: other\n\nHello.\n")
	empty := writeTemp(t, "Empty", "")
	runSettingsCases(t, []settingsCase{
		{"same folder", "check_thunderbird_folder", mbox, mbox, 1},
		{"two non-empty folders", "check_thunderbird_folder", mbox, other, 1},
		{"empty against full", "check_thunderbird_folder", empty, mbox, 0},
		{"lists", "check_thunderbird_folder", []any{mbox, empty}, []any{other, empty}, 1},
		{"lists, one differs", "check_thunderbird_folder", []any{mbox, mbox}, []any{other, empty}, 0},
		{"missing", "check_thunderbird_folder", filepath.Join(t.TempDir(), "x"), mbox, 0},
	})
}

func TestComparePythonPureText(t *testing.T) {
	gold := writeTemp(t, "gold.py", "def f(x):\n    return x + 1\n")
	spaced := writeTemp(t, "a.py", "def  f(x):\n\treturn x+1\n\n\n")
	other := writeTemp(t, "b.py", "def f(x):\n    return x + 2\n")
	runSettingsCases(t, []settingsCase{
		{"same", "compare_python_pure_text", gold, gold, 1},
		{"spaces inside lines differ", "compare_python_pure_text", spaced, gold, 0},
		{"other code", "compare_python_pure_text", other, gold, 0},
		{"missing", "compare_python_pure_text", filepath.Join(t.TempDir(), "x.py"), gold, 0},
		{"no result", "compare_python_pure_text", nil, gold, 0},
	})
}
