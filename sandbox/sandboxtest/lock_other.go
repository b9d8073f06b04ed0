//go:build !unix

package sandboxtest

import (
	"context"
	"os"
)

// lockFile is a no-op where flock(2) is not available; the sandbox's
// kwokctl binary runtime only runs on Unix-like systems anyway.
func lockFile(ctx context.Context, f *os.File, exclusive bool, waiting func()) error { return nil }

// unlockFile is a no-op too.
func unlockFile(f *os.File) {}
