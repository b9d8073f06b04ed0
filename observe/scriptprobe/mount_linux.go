package scriptprobe

import "syscall"

// noExec reports whether dir is on a file system mounted noexec, where
// no script can run whatever its mode says.
func noExec(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && st.Flags&syscall.MS_NOEXEC != 0
}
