// Package quietstderr keeps whatever writes to the process's stderr
// behind a full-screen program's back (client-go's exec credential
// plugins, a library's warning) off the terminal while it runs.
package quietstderr

import (
	"os"
	"path/filepath"
	"sync"
)

// Run runs fn with file descriptor 2 sent to log, or, when log is nil,
// to stderr.log in the directory dir names (made if missing). When
// neither can be had, fn runs with stderr as it is. The terminal gets
// its stderr back before Run returns fn's error (a panic's value and
// stack, say, is for the terminal, not for the log).
func Run(log *os.File, dir func() (string, error), fn func() error) error {
	restore := quiet(log, dir)
	if restore != nil {
		defer restore()
	}
	err := fn()
	if restore != nil {
		restore()
	}
	return err
}

// quiet redirects stderr and returns the function that gives the
// terminal its stderr back (nil if nothing changed; calling it again
// does nothing).
func quiet(log *os.File, dir func() (string, error)) func() {
	f := log
	if f == nil {
		d, err := dir()
		if err != nil || os.MkdirAll(d, 0o700) != nil {
			return nil
		}
		if f, err = os.Create(filepath.Join(d, "stderr.log")); err != nil {
			return nil
		}
	}
	restore, err := redirect(f)
	if err != nil {
		return nil
	}
	return sync.OnceFunc(func() {
		restore()
		if f != log {
			f.Close()
		}
	})
}
