package py

import "testing"

// The answers are CPython 3.11's str.lower.
func TestLowerFinalSigma(t *testing.T) {
	for in, want := range map[string]string{
		"ΣΑΣ":       "σας",
		"ΣΊΣΥΦΟΣ":   "σίσυφος",
		"Σ":         "σ",
		"AΣ":        "aς",
		"AΣb":       "aσb",
		"OΔΥΣΣΕΥΣ'": "oδυσσευς'",
		"ΣΑΣ.":      "σας.",
		"İΣ":        "i\u0307ς",
	} {
		if got := Lower(in); got != want {
			t.Errorf("Lower(%q) = %q, want %q", in, got, want)
		}
	}
}
