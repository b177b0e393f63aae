package dialect

import (
	"os"
	"testing"

	"github.com/deskrun/deskrun/internal/testdesk"
)

func TestMain(m *testing.M) { os.Exit(testdesk.Main(m)) }
