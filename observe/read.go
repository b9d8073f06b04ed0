package observe

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/labhub/labmate/internal/safefile"
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
		f.State, f.Err = FileUnreadable, "not a regular file"
		return f
	}
	if fi.Size() > MaxFileSize {
		f.State = FileTooLarge
		return f
	}
	fh, err := safefile.Open(full)
	if errors.Is(err, safefile.ErrNotRegular) {
		f.State, f.Err = FileUnreadable, "not a regular file"
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
