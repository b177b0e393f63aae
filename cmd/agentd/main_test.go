package main

import (
	"testing"

	"github.com/deskrun/deskrun/api"
)

func TestParseScreen(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want api.Screen
		ok   bool
	}{
		{"1280x800x24", api.Screen{Width: 1280, Height: 800}, true},
		{"1024x768", api.Screen{Width: 1024, Height: 768}, true},
		{"7680x4320", api.Screen{Width: 7680, Height: 4320}, true},
		{"1280x800x16", api.Screen{}, false},
		{"0x800", api.Screen{}, false},
		{"8000x800", api.Screen{}, false},
		{"1280x800junk", api.Screen{}, false},
		{"1280", api.Screen{}, false},
		{"", api.Screen{}, false},
	} {
		got, err := parseScreen(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseScreen(%q) = %v, %v; want %v (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
