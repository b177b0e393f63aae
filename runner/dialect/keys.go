package dialect

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deskrun/deskrun/x11/keysym"
)

// Key names: every dialect maps its own names onto canonical X keysym
// names, which is what the core actions carry. The names agents use
// (pyautogui's KEYBOARD_KEYS, xdotool-style, OpenAI's and hermes') are
// one table, keysym's aliases; this file adds only how each dialect
// spells a single character and a combo.

// charKeysyms names the X keysym of each printable ASCII character that is
// not a letter or digit, and of the whitespace characters pyautogui
// accepts as keys.
var charKeysyms = map[string]string{
	"\t": "Tab", "\n": "Return", "\r": "Return", " ": "space",
	"!": "exclam", "\"": "quotedbl", "#": "numbersign", "$": "dollar", "%": "percent",
	"&": "ampersand", "'": "apostrophe", "(": "parenleft", ")": "parenright",
	"*": "asterisk", "+": "plus", ",": "comma", "-": "minus", ".": "period",
	"/": "slash", ":": "colon", ";": "semicolon", "<": "less", "=": "equal",
	">": "greater", "?": "question", "@": "at", "[": "bracketleft",
	"\\": "backslash", "]": "bracketright", "^": "asciicircum", "_": "underscore",
	"`": "grave", "{": "braceleft", "|": "bar", "}": "braceright", "~": "asciitilde",
}

// keysymName matches names that look like X keysym names (Return,
// Page_Down, XF86AudioMute, KP_7, Cyrillic_a); such names pass through
// unchanged and agentd decides whether they exist.
var keysymName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// pyautoguiKey resolves one pyautogui key (as OSWorld's PRESS, KEY_DOWN
// and HOTKEY carry it) to an X keysym name. The caller has checked that
// strings.ToLower(key) is in KEYBOARD_KEYS. A single character keeps its
// case, as pyautogui types "A" with shift.
func pyautoguiKey(key string) (string, error) {
	if utf8.RuneCountInString(key) == 1 {
		return charKeysym(key), nil
	}
	x, ok := keysym.Alias(key)
	if !ok {
		return "", fmt.Errorf("unknown key %q", key)
	}
	if x == "" {
		return "", fmt.Errorf("key %q has no X11 equivalent and cannot be pressed on this desktop", key)
	}
	return x, nil
}

// charKeysym names the keysym of a single character: letters and digits
// are their own names, ASCII punctuation has its X name, and any other
// character is named by its code point (U00E9), which X accepts.
func charKeysym(c string) string {
	if x, ok := charKeysyms[c]; ok {
		return x
	}
	r, _ := utf8.DecodeRuneInString(c)
	if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return c
	}
	return fmt.Sprintf("U%04X", r)
}

// comboKey resolves one key of an xdotool-style combo or a key list:
// a single character, an alias (case-insensitive), or an X keysym name.
// lowerLetters folds single letters to lower case (OpenAI's "CTRL","A"
// means the A key, not shift+a).
func comboKey(name string, lowerLetters bool) (string, error) {
	if name == "" {
		return "", fmt.Errorf("empty key name")
	}
	if utf8.RuneCountInString(name) == 1 {
		if lowerLetters {
			name = strings.ToLower(name)
		}
		return charKeysym(name), nil
	}
	lower := strings.ToLower(name)
	if x, ok := keysym.Alias(lower); ok {
		if x == "" {
			return "", fmt.Errorf("key %q has no X11 equivalent and cannot be pressed on this desktop", name)
		}
		return x, nil
	}
	if len(lower) >= 2 && lower[0] == 'f' {
		if n, ok := atoiSmall(lower[1:]); ok && n >= 1 && n <= 35 {
			return fmt.Sprintf("F%d", n), nil
		}
	}
	if keysymName.MatchString(name) {
		return name, nil
	}
	return "", fmt.Errorf("unknown key name %q", name)
}

// parseCombo parses an xdotool-style combo such as "ctrl+shift+t",
// "Return" or "ctrl++" into X keysym names, in press order.
func parseCombo(s string, lowerLetters bool) ([]string, error) {
	if s == "" {
		return nil, fmt.Errorf("empty key combination")
	}
	var parts []string
	switch {
	case s == "+":
		parts = []string{"+"}
	case strings.HasSuffix(s, "++"):
		parts = append(strings.Split(strings.TrimSuffix(s, "++"), "+"), "+")
	default:
		parts = strings.Split(s, "+")
	}
	keys := make([]string, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("malformed key combination %q", s)
		}
		k, err := comboKey(p, lowerLetters)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// parseComboSequence parses xdotool's `key` argument: one or more combos
// separated by spaces ("ctrl+a Delete"), each pressed in turn. A text of
// only spaces means the space key.
func parseComboSequence(s string, lowerLetters bool) ([][]string, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		if s != "" {
			return [][]string{{"space"}}, nil
		}
		return nil, fmt.Errorf("empty key combination")
	}
	out := make([][]string, 0, len(fields))
	for _, f := range fields {
		keys, err := parseCombo(f, lowerLetters)
		if err != nil {
			return nil, err
		}
		out = append(out, keys)
	}
	return out, nil
}

func atoiSmall(s string) (int, bool) {
	if s == "" || len(s) > 2 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
