// Package testslots is for tests: the machine-wide slots of clusters a
// test brings up for itself (sandboxtest.Own and ForLab, the lab proofs
// of e2e/labproof, and scripts/test.sh's release-archive check, which
// takes the same lock files with flock(1)). A cluster of one's own costs
// about a core while it is busy; holding a slot for its whole life keeps
// the suite from running more of them at once than the machine carries.
package testslots

import (
	"github.com/labhub/labmate/internal/dirs"

	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/labhub/labmate/internal/lockfile"
)

// EnvSlots overrides how many clusters of their own tests may run at
// once, machine-wide.
const EnvSlots = "LABMATE_E2E_SANDBOXES"

// Count is how many: one per core (runtime.NumCPU), or $LABMATE_E2E_SANDBOXES.
// Besides them run the shared e2e cluster and the test binaries
// themselves; more at once made a 2-core machine's load average reach 26
// and trials time out.
func Count() int {
	if n, err := strconv.Atoi(os.Getenv(EnvSlots)); err == nil && n > 0 {
		return n
	}
	return runtime.NumCPU()
}

// Dir holds the slots' lock files: ${XDG_CACHE_HOME:-$HOME/.cache}/labmate/sandbox/own-slots,
// beside the sandbox's own state (sandbox.LogFile's directory).
func Dir() string {
	return filepath.Join(dirs.Cache(), "labmate", "sandbox", "own-slots")
}

// Take waits (30 min at most) for a slot and holds it until the test and
// every cleanup registered after this call ended.
func Take(tb testing.TB) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	release, err := lockfile.Slot(ctx, Dir(), Count())
	if err != nil {
		tb.Fatalf("waiting for a cluster slot: %v", err)
	}
	tb.Cleanup(release)
}
