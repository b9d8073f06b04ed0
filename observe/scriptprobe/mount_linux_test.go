package scriptprobe

import (
	"syscall"
	"testing"
)

// A temporary directory on a noexec mount is labmate's problem (TMPDIR),
// not a script that "has no permission".
func TestNoExecTempDirIsLabmates(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOEXEC, "size=1m"); err != nil {
		t.Skipf("cannot mount a noexec tmpfs here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	runs := probeOnce(t, "#!/bin/sh\nexit 0\n", 0o755, Options{TempDir: dir})
	assertInternal(t, runs, FailNoExec, dir)
}
