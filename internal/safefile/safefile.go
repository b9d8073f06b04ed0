// Package safefile opens files that labmate reads but does not own (a
// learner's lab files, traces, the state and config files) so that the
// open can never block: a FIFO or a device where a regular file should be
// is refused at once instead of hanging labmate in open(2).
package safefile

import (
	"errors"
	"os"
	"syscall"
)

// ErrNotRegular is returned for anything that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path read-only without blocking and returns it only if it is a
// regular file. O_NONBLOCK has no effect on reads of regular files.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, nil
}
