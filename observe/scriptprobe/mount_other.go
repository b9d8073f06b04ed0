//go:build !linux

package scriptprobe

// noExec is not known off Linux: a noexec temp dir shows as the script's
// "permission denied" there.
func noExec(dir string) bool { return false }
