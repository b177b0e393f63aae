package keysym

import (
	"slices"
	"strings"
	"testing"
)

// noKeysym are the KEYBOARD_KEYS entries X has no keysym for (Windows IME
// keys).
var noKeysym = []string{"accept", "final"}

func TestEveryPyautoguiKey(t *testing.T) {
	for _, k := range PyautoguiKeys() {
		s, ok := ByName(k)
		if slices.Contains(noKeysym, k) {
			if ok {
				t.Errorf("%q resolved to %#x; X has no keysym for it", k, s)
			}
			continue
		}
		if !ok || s == 0 {
			t.Errorf("pyautogui key %q does not resolve", k)
			continue
		}
		if Name(s) == "" {
			t.Errorf("%q -> %#x has no name", k, s)
		}
	}
}

func TestNames(t *testing.T) {
	for name, want := range map[string]string{
		"Return": "Return", "enter": "Return", "ENTER": "Return", "ctrl": "Control_L",
		"super": "Super_L", "cmd": "Super_L", "win": "Super_L", "command": "Super_L",
		"alt": "Alt_L", "option": "Alt_L", "esc": "Escape", "pgdn": "Next", "pageup": "Prior",
		"num0": "KP_0", "volumeup": "XF86AudioRaiseVolume", "browserback": "XF86Back",
		"a": "a", "A": "A", "BackSpace": "BackSpace", "backspace": "BackSpace",
		"Page_Down": "Next", "XF86AudioMute": "XF86AudioMute", "F12": "F12", "f12": "F12",
		"€": "EuroSign", "U20AC": "EuroSign", "0xff0d": "Return", "space": "space", " ": "space",
	} {
		s, ok := ByName(name)
		if !ok {
			t.Errorf("ByName(%q) not found", name)
			continue
		}
		if got := Name(s); got != want {
			t.Errorf("Name(ByName(%q)) = %q, want %q", name, got, want)
		}
	}
	for _, bad := range []string{"", "nosuchkey", "ctrl2", "accept", "Uzz"} {
		if s, ok := ByName(bad); ok {
			t.Errorf("ByName(%q) = %#x, want not found", bad, s)
		}
	}
	if a, _ := ByName("a"); a == 0x41 {
		t.Error(`"a" and "A" must differ`)
	}
}

func TestForRune(t *testing.T) {
	for r, want := range map[rune]Sym{
		'a': 0x61, 'Z': 0x5a, '~': 0x7e, ' ': 0x20, 'ß': 0xdf, 'é': 0xe9, 'ÿ': 0xff,
		'\n': 0xff0d, '\t': 0xff09,
		'€': 0x20ac, '—': 0xaa9, '“': 0xad2, '”': 0xad3,
		'α': 0x7e1, 'Ω': 0x7d9, 'ж': 0x6d6, 'Ж': 0x6f6,
		'中': 0x01004e2d, '😀': 0x0101f600, '\uFFFD': 0x0100fffd,
		0x01: 0,
	} {
		if got := ForRune(r); got != want {
			t.Errorf("ForRune(%q) = %#x, want %#x", r, got, want)
		}
		if want != 0 && r != '\n' && r != '\t' {
			if back, ok := Rune(want); !ok || back != r {
				t.Errorf("Rune(%#x) = %q,%v, want %q", want, back, ok, r)
			}
		}
	}
}

func TestParse(t *testing.T) {
	for combo, want := range map[string]string{
		"ctrl+shift+t": "Control_L Shift_L t",
		"Return":       "Return",
		"super":        "Super_L",
		"cmd+c":        "Super_L c",
		"ctrl++":       "Control_L plus",
		"+":            "plus",
		"alt+F4":       "Alt_L F4",
		"ctrl + a":     "Control_L a",
	} {
		syms, err := Parse(combo)
		if err != nil {
			t.Errorf("Parse(%q): %v", combo, err)
			continue
		}
		var names []string
		for _, s := range syms {
			names = append(names, Name(s))
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("Parse(%q) = %s, want %s", combo, got, want)
		}
	}
	for combo, want := range map[string]string{
		"":         "empty key combo",
		"ctrl+foo": `unknown key "foo" in "ctrl+foo"`,
		"ctrl+":    `empty key name in "ctrl+"`,
	} {
		if _, err := Parse(combo); err == nil || err.Error() != want {
			t.Errorf("Parse(%q) error = %v, want %q", combo, err, want)
		}
	}
}
