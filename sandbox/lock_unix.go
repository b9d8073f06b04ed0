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
	"time"
)

// lock takes an exclusive, cross-process lock around Up and Down, for all
// cluster names at once: several test binaries (go test ./... runs packages
// in parallel) or a test and `labmate sandbox up` must not run kwokctl at the
// same time, for the same cluster or not, because kwokctl picks each new
// cluster's ports by looking at the clusters that exist at that moment.
func lock(ctx context.Context, opts Options) (unlock func(), err error) {
	path := filepath.Join(cacheHome(), "labmate", "sandbox", "kwokctl.lock")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, wrapMsg(err, "sandbox.err.lock_dir")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, wrapMsg(err, "sandbox.err.lock_open")
	}
	waited := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, wrapMsg(err, "sandbox.err.lock", "path", path)
		}
		if !waited {
			opts.progress("sandbox.lock.waiting")
			waited = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, wrapMsg(ctx.Err(), "sandbox.err.lock_timeout", "path", path)
		case <-time.After(200 * time.Millisecond):
		}
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
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
