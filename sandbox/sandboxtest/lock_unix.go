//go:build unix

package sandboxtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockFile takes flock(2) on f, exclusive or shared, polling so that the
// wait can end with ctx; waiting is called once when the lock is busy.
// The lock lasts until unlockFile, f is closed, or the process exits.
func lockFile(ctx context.Context, f *os.File, exclusive bool, waiting func()) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	told := false
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("lock %s: %w", f.Name(), ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// unlockFile releases the lock lockFile took on f.
func unlockFile(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
