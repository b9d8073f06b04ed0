//go:build !unix

package sandbox

import "context"

// lock is a no-op where flock(2) is not available; kwokctl's binary runtime
// is only used on Unix-like systems anyway.
func lock(ctx context.Context, opts Options) (unlock func(), err error) {
	return func() {}, nil
}

// processAlive cannot tell here; assume the process runs.
func processAlive(pid int) bool { return true }

// keepInheritedFromCluster has nothing to do where kwokctl's binary
// runtime is not used.
func keepInheritedFromCluster() {}
