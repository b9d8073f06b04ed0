//go:build unix

package quietstderr

import (
	"os"

	"golang.org/x/sys/unix"
)

// redirect points file descriptor 2 at f while the TUI owns the
// terminal: client-go's exec credential plugins (and anything else that
// writes to os.Stderr directly) would otherwise draw over the screen. The
// returned function restores the terminal's stderr.
func redirect(f *os.File) (restore func(), err error) {
	saved, err := unix.Dup(2)
	if err != nil {
		return nil, err
	}
	if err := dup2(int(f.Fd()), 2); err != nil {
		unix.Close(saved)
		return nil, err
	}
	return func() {
		_ = dup2(saved, 2)
		unix.Close(saved)
	}, nil
}

// dup2 is unix.Dup2 again while the kernel says EINTR or EBUSY (a
// signal, the runtime's own preemption included, or an open racing on
// the target descriptor): both leave the descriptors as they were.
func dup2(oldfd, newfd int) error {
	for {
		err := unix.Dup2(oldfd, newfd)
		if err != unix.EINTR && err != unix.EBUSY {
			return err
		}
	}
}
