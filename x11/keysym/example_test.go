package keysym_test

import (
	"fmt"

	"github.com/deskrun/deskrun/x11/keysym"
)

// Key names as agents write them resolve to X keysyms: canonical names,
// aliases of any case, single characters.
func ExampleByName() {
	for _, name := range []string{"Return", "enter", "CTRL", "cmd", "pgdn", "€", "accept"} {
		s, ok := keysym.ByName(name)
		fmt.Printf("%s -> %s %v\n", name, keysym.Name(s), ok)
	}
	// Output:
	// Return -> Return true
	// enter -> Return true
	// CTRL -> Control_L true
	// cmd -> Super_L true
	// pgdn -> Next true
	// € -> EuroSign true
	// accept ->  false
}

// A combo in xdotool's form, in press order.
func ExampleParse() {
	syms, err := keysym.Parse("ctrl+shift+t")
	if err != nil {
		panic(err)
	}
	for _, s := range syms {
		fmt.Println(keysym.Name(s))
	}
	// Output:
	// Control_L
	// Shift_L
	// t
}

// The one alias table every dialect uses.
func ExampleAlias() {
	for _, name := range []string{"ArrowLeft", "option", "final"} {
		x, ok := keysym.Alias(name)
		fmt.Printf("%s -> %q %v\n", name, x, ok)
	}
	// Output:
	// ArrowLeft -> "Left" true
	// option -> "Alt_L" true
	// final -> "" true
}
