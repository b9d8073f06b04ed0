// Package safefile opens files that labmate reads but does not own (a
// learner's lab files, traces, the state and config files) so that the
// open can never block: a FIFO or a device where a regular file should be
// is refused at once instead of hanging labmate in open(2).
package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNotRegular is returned for anything that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path read-only without blocking and returns it only if it is a
// regular file. O_NONBLOCK has no effect on reads of regular files.
func Open(path string) (*os.File, error) {
	return open(path, false)
}

// open is Open that also opens a directory when dirs is set.
func open(path string, dirs bool) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() && !(dirs && fi.IsDir()) {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, nil
}

// DirFS is os.DirFS(dir) for a directory labmate reads but does not own
// (a lab directory): its files open as Open opens them, so a FIFO or
// device where a file should be is refused at once; its directories open
// as usual.
func DirFS(dir string) fs.FS { return dirFS(dir) }

type dirFS string

func (d dirFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := open(filepath.Join(string(d), filepath.FromSlash(name)), true)
	if err != nil {
		return nil, err
	}
	return f, nil
}
