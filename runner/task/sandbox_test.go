package task

import "testing"

func TestVarsExpand(t *testing.T) {
	v := Vars{ScreenWidth: 1281, ScreenHeight: 800, ClientPassword: "pw"}
	got := v.Expand("echo {CLIENT_PASSWORD} | sudo -S x; click({SCREEN_WIDTH_HALF}, {SCREEN_HEIGHT_HALF}) in {SCREEN_WIDTH}x{SCREEN_HEIGHT} {OTHER}")
	want := "echo pw | sudo -S x; click(640, 400) in 1281x800 {OTHER}"
	if got != want {
		t.Errorf("Expand = %q, want %q", got, want)
	}
}
