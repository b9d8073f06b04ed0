package gpuincident

import (
	"os"
	"testing"

	"github.com/labhub/labmate/observe/scriptprobe"
)

// TestMain gives the test binary labmate's sandbox helper entry, so the
// script-probe tests run scripts in the real sandbox.
func TestMain(m *testing.M) {
	if scriptprobe.IsInit() {
		scriptprobe.InitMain()
	}
	os.Exit(m.Run())
}
