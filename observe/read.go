package observe

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/labhub/labmate/internal/safefile"
)

// FileObs.Err values ReadFile sets itself (other values are the operating
// system's error text).
const (
	FileErrNotRegular      = "not a regular file" // a FIFO, socket or device
	FileErrDanglingSymlink = "dangling symlink"   // a symbolic link to nothing
)

// ReadFile observes one lab-relative path now. It never reads more than
// MaxFileSize bytes and never blocks on something that is not a regular
// file: the file is opened non-blocking and checked after opening, so a
// FIFO swapped in between stat and open cannot hang labmate.
func ReadFile(root, rel string) FileObs {
	full := filepath.Join(root, filepath.FromSlash(rel))
	f := FileObs{Path: rel}
	fi, err := os.Stat(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A link to nothing is not a missing file: ls shows the name, so
		// the learner must be told the link is broken.
		if li, lerr := os.Lstat(full); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			f.State, f.Err, f.Mode = FileUnreadable, FileErrDanglingSymlink, li.Mode()
			return f
		}
		f.State = FileMissing
		return f
	case err != nil:
		f.State, f.Err = FileUnreadable, err.Error()
		return f
	}
	f.Mode, f.Size = fi.Mode(), fi.Size()
	if fi.IsDir() {
		f.State = FileIsDir
		return f
	}
	if !fi.Mode().IsRegular() {
		f.State, f.Err = FileUnreadable, FileErrNotRegular
		return f
	}
	if fi.Size() > MaxFileSize {
		f.State = FileTooLarge
		return f
	}
	fh, err := safefile.Open(full)
	if errors.Is(err, safefile.ErrNotRegular) {
		f.State, f.Err = FileUnreadable, FileErrNotRegular
		return f
	}
	if err != nil {
		f.State, f.Err = FileUnreadable, err.Error()
		return f
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	switch {
	case err != nil:
		f.State, f.Err = FileUnreadable, err.Error()
	case len(b) > MaxFileSize:
		// It grew while we read it.
		f.State, f.Size = FileTooLarge, int64(len(b))
	default:
		f.State, f.Content, f.Size = FilePresent, b, int64(len(b))
	}
	return f
}
