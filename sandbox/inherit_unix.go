//go:build unix

package sandbox

import (
	"os"
	"strconv"
	"syscall"
)

// keepInheritedFromCluster marks every descriptor this process inherited
// beyond stdin, stdout and stderr close-on-exec, so the control-plane
// processes kwokctl leaves running hold none of them. A descriptor a
// wrapper opened for this command alone (flock(1)'s lock, held for as
// long as any process has it open) would otherwise outlive the command
// by the cluster's whole life. Go opens its own descriptors close-on-exec
// already; only inherited ones lack it.
func keepInheritedFromCluster() {
	entries, err := os.ReadDir("/dev/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
