// Package lockfile is labmate's one cross-process lock (flock(2) through
// github.com/gofrs/flock) and one atomic file write.
package lockfile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// retry is how often a busy lock is tried again.
const retry = 200 * time.Millisecond

// Options of Lock.
type Options struct {
	// Shared takes a shared (read) lock instead of an exclusive one.
	Shared bool
	// Waiting is called once when the lock is busy, before waiting.
	Waiting func()
}

// Lock takes the lock on path (created, with its directory, if missing),
// waiting until ctx ends. unlock releases it; so does the process ending.
func Lock(ctx context.Context, path string, o Options) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	l := flock.New(path, flock.SetPermissions(0o644))
	try, tryCtx := l.TryLock, l.TryLockContext
	if o.Shared {
		try, tryCtx = l.TryRLock, l.TryRLockContext
	}
	ok, err := try()
	if err == nil && !ok {
		if o.Waiting != nil {
			o.Waiting()
		}
		ok, err = tryCtx(ctx, retry)
	}
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		l.Close()
		return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
	}
	return func() { _ = l.Unlock() }, nil
}

// WriteAtomic replaces path with data so that a reader (or a crash) sees
// the old content or the new, never part of it, and a failed write leaves
// the old file in place: a temp file beside it, chmod, fsync, rename, then
// fsync of the directory so that the rename itself survives a crash. It
// is labmate's one atomic write.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// The new content is in place whatever the directory's fsync says
	// (some filesystems refuse fsync on a directory): not an error.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Slot takes one of n slots in dir (files slot-0 ... slot-(n-1), each
// an exclusive Lock), waiting until one is free or ctx ends: a counting
// semaphore across processes, so that test binaries running at once
// never hold more than n of a costly thing together.
func Slot(ctx context.Context, dir string, n int) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	n = max(n, 1)
	for {
		for i := range n {
			l := flock.New(filepath.Join(dir, fmt.Sprintf("slot-%d", i)), flock.SetPermissions(0o644))
			ok, err := l.TryLock()
			if err != nil {
				l.Close()
				return nil, fmt.Errorf("lock %s: %w", dir, err)
			}
			if ok {
				return func() { _ = l.Unlock() }, nil
			}
			l.Close()
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lock %s: %w", dir, ctx.Err())
		case <-time.After(retry):
		}
	}
}
