package main

import (
	"testing"

	"github.com/deskrun/deskrun/api/wire"
)

func TestParseScreen(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want wire.Screen
		ok   bool
	}{
		{"1280x800x24", wire.Screen{Width: 1280, Height: 800}, true},
		{"1024x768", wire.Screen{Width: 1024, Height: 768}, true},
		{"7680x4320", wire.Screen{Width: 7680, Height: 4320}, true},
		{"1280x800x16", wire.Screen{}, false},
		{"0x800", wire.Screen{}, false},
		{"8000x800", wire.Screen{}, false},
		{"1280x800junk", wire.Screen{}, false},
		{"1280", wire.Screen{}, false},
		{"", wire.Screen{}, false},
	} {
		got, err := parseScreen(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseScreen(%q) = %v, %v; want %v (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
