package id3

import (
	"os"
	"testing"
)

// mediaDir holds the media metrics' fixtures, which the fuzz test takes
// its seeds from.
const mediaDir = "../../metric/testdata/metrics/"

func FuzzParse(f *testing.F) {
	for _, p := range []string{mediaDir + "tagged-v24.mp3", mediaDir + "tagged-v23.mp3"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[3], data[5], data[10:10+syncsafe(data[6:10])])
	}
	f.Fuzz(func(t *testing.T, major, flags byte, body []byte) {
		Parse(major, flags, body)
	})
}
