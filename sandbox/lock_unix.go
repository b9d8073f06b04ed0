//go:build unix

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/labhub/labmate/internal/lockfile"
)

// lock takes an exclusive, cross-process lock around Up and Down, for all
// cluster names at once: several test binaries (go test ./... runs packages
// in parallel) or a test and `labmate sandbox up` must not run kwokctl at the
// same time, for the same cluster or not, because kwokctl picks each new
// cluster's ports by looking at the clusters that exist at that moment.
func lock(ctx context.Context, opts Options) (unlock func(), err error) {
	path := filepath.Join(cacheHome(), "labmate", "sandbox", "kwokctl.lock")
	unlock, err = lockfile.Lock(ctx, path, lockfile.Options{Waiting: func() { opts.progress("sandbox.lock.waiting") }})
	if err != nil && ctx.Err() != nil {
		return nil, wrapMsg(err, "sandbox.err.lock_timeout", "path", path)
	}
	if err != nil {
		return nil, wrapMsg(err, "sandbox.err.lock", "path", path)
	}
	return unlock, nil
}

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// A zombie (exited, not yet reaped) still answers signal 0.
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return false
		}
	}
	return true
}
