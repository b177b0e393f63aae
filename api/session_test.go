package api

import (
	"strings"
	"testing"

	"github.com/containerd/errdefs"
)

func TestWindowPlacementValidate(t *testing.T) {
	for _, tc := range []struct {
		p    WindowPlacement
		want string // "" for valid
	}{
		{WindowPlacement{X: Int(0), Y: Int(0), Width: Int(1), Height: Int(1)}, ""},
		{WindowPlacement{X: Int(-32000)}, ""},
		{WindowPlacement{Height: Int(32767)}, ""},
		{WindowPlacement{}, "x, y, width or height is required"},
		{WindowPlacement{X: Int(-32769)}, "x must be between -32768 and 32767, got -32769"},
		{WindowPlacement{Y: Int(32768)}, "y must be between -32768 and 32767, got 32768"},
		{WindowPlacement{Width: Int(0)}, "width must be between 1 and 32767, got 0"},
		{WindowPlacement{X: Int(5), Height: Int(-1)}, "height must be between 1 and 32767, got -1"},
	} {
		err := tc.p.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.p, err)
		case tc.want != "" && (!errdefs.IsInvalidArgument(err) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: got %v, want invalid argument %q", tc.p, err, tc.want)
		}
	}
}
