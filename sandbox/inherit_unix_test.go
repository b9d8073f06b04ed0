//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A descriptor inherited without close-on-exec (a shell's `exec 9>lock`
// for flock) is marked close-on-exec before kwokctl runs, so the cluster
// it starts does not keep it open.
func TestInheritedDescriptorsAreNotPassedOn(t *testing.T) {
	fd, err := syscall.Open(filepath.Join(t.TempDir(), "lock"), syscall.O_CREAT|syscall.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC != 0 {
		t.Fatalf("a plain open's flags %#x, %v: want no close-on-exec to begin with", flags, err)
	}
	keepInheritedFromCluster()
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("after keepInheritedFromCluster: flags %#x, %v; want close-on-exec", flags, err)
	}
	for _, std := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		if flags, err := unix.FcntlInt(std.Fd(), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC != 0 {
			t.Errorf("%s marked close-on-exec: a child would lose it", std.Name())
		}
	}
}
