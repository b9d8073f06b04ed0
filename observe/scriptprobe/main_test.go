package scriptprobe

import (
	"os"
	"testing"
)

// TestMain gives the test binary the sandbox helper entry that
// cmd/labmate has, so tests run scripts in the real sandbox.
func TestMain(m *testing.M) {
	if IsInit() {
		InitMain()
	}
	os.Exit(m.Run())
}
