package keysym

import (
	"slices"
	"strings"
)

// Alias returns the X keysym name an agent's key name stands for,
// compared without case ("enter" -> "Return", "CTRL" -> "Control_L",
// "arrowleft" -> "Left"). The table holds every multi-character key of
// pyautogui's KEYBOARD_KEYS, xdotool-style names, and the key names of
// OpenAI's and hermes' tools; it is the one table of aliases every
// dialect uses. x is "" with ok true for a name that exists but has no
// X keysym (the Windows IME keys "accept" and "final").
func Alias(name string) (x string, ok bool) {
	x, ok = aliases[strings.ToLower(name)]
	return x, ok
}

// Known reports whether name is a key name [ByName] finds: what agentd
// can press. The host validates key names with it before they reach a
// sandbox.
func Known(name string) bool {
	_, ok := ByName(name)
	return ok
}

// IsPyautoguiKey reports whether name is one of pyautogui's
// KEYBOARD_KEYS, compared as given (pyautogui lower-cases a key before
// it looks).
func IsPyautoguiKey(name string) bool {
	return slices.Contains(pyautoguiKeys, name)
}

// PyautoguiKeys returns pyautogui's KEYBOARD_KEYS in its order: the key
// names OSWorld's action space accepts. The caller owns the slice.
func PyautoguiKeys() []string {
	return slices.Clone(pyautoguiKeys)
}

var pyautoguiKeys = []string{
	"\t", "\n", "\r", " ", "!", "\"", "#", "$", "%", "&", "'", "(", ")", "*", "+",
	",", "-", ".", "/", ":", ";", "<", "=", ">", "?", "@", "[", "\\", "]", "^",
	"_", "`", "{", "|", "}", "~",
	"0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
	"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o",
	"p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z",
	"accept", "add", "alt", "altleft", "altright", "apps", "backspace",
	"browserback", "browserfavorites", "browserforward", "browserhome",
	"browserrefresh", "browsersearch", "browserstop", "capslock", "clear",
	"convert", "ctrl", "ctrlleft", "ctrlright", "decimal", "del", "delete",
	"divide", "down", "end", "enter", "esc", "escape", "execute",
	"f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12",
	"f13", "f14", "f15", "f16", "f17", "f18", "f19", "f20", "f21", "f22", "f23", "f24",
	"final", "fn", "hanguel", "hangul", "hanja", "help", "home", "insert",
	"junja", "kana", "kanji", "launchapp1", "launchapp2", "launchmail",
	"launchmediaselect", "left", "modechange", "multiply", "nexttrack",
	"nonconvert", "num0", "num1", "num2", "num3", "num4", "num5", "num6",
	"num7", "num8", "num9", "numlock", "pagedown", "pageup", "pause", "pgdn",
	"pgup", "playpause", "prevtrack", "print", "printscreen", "prntscrn",
	"prtsc", "prtscr", "return", "right", "scrolllock", "select", "separator",
	"shift", "shiftleft", "shiftright", "sleep", "stop", "subtract", "tab",
	"up", "volumedown", "volumemute", "volumeup", "win", "winleft", "winright",
	"yen", "command", "option", "optionleft", "optionright",
}
