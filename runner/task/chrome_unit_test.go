package task

import (
	"testing"
)

func TestOmniboxText(t *testing.T) {
	for in, want := range map[string]string{
		"https://www.example.com/":        "example.com",
		"https://www.example.com/a/b?q=1": "example.com/a/b?q=1",
		"http://127.0.0.1:8080/x":         "127.0.0.1:8080/x",
		"file:///home/user/a.html":        "/home/user/a.html",
		"https://drive.google.com/":       "drive.google.com",
	} {
		if got := omniboxText(in); got != want {
			t.Errorf("omniboxText(%q) = %q, want %q", in, got, want)
		}
	}
}
