package dialect

import (
	"os"
	"testing"

	"github.com/deskrun/deskrun/agentd/agentdtest"
)

func TestMain(m *testing.M) { os.Exit(agentdtest.Main(m)) }
