package e2e

import (
	"os"
	"testing"

	"github.com/labhub/labmate/internal/testbin"
	"github.com/labhub/labmate/observe/scriptprobe"
)

// TestMain gives the test binary labmate's sandbox helper entry, so the
// reference recording runs step 4's script in the real sandbox.
func TestMain(m *testing.M) {
	if scriptprobe.IsInit() {
		scriptprobe.InitMain()
	}
	code := m.Run()
	testbin.Remove()
	os.Exit(code)
}
