package scriptprobe

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Bounds of one sweep: a round that finds nothing ends it; a script that
// forks as fast as it is killed is given up on after sweepRounds.
const (
	sweepRounds = 50
	sweepPause  = 2 * time.Millisecond
)

// sweep kills every process that carries the run's tag in its
// environment: the ones that left the run's process group (setsid,
// double forks, daemons) and so escaped killGroup. It repeats until a
// round finds none, since a process may fork while it is being swept.
//
// Why not PR_SET_CHILD_SUBREAPER: orphans would then be reparented to
// labmate itself, which would have to reap them with wait4(-1), and that
// races os/exec's own Wait for the children labmate does wait for (a
// stolen exit status makes cmd.Wait fail with ECHILD); it is also
// process-wide state for the TUI and `labmate check` alike. Killed
// orphans are reaped by init instead, and the tag finds them wherever
// they were reparented. What the tag cannot find is a process that
// removed it from its environment on exec (`env -i`): a learner's check
// script has no reason to do that.
func sweep(tag string) {
	want := []byte(RunTagVar + "=" + tag)
	for range sweepRounds {
		if sweepOnce(want) == 0 {
			return
		}
		time.Sleep(sweepPause)
	}
}

// sweepOnce sends SIGKILL to each process tagged want and returns how
// many it found. A killed process that has not exited yet is found again
// by the next round; a zombie has no environment and is not.
func sweepOnce(want []byte) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	found := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || !tagged(pid, want) {
			continue
		}
		found++
		// FindProcess holds a pidfd where the kernel has them. Checking
		// the tag again through it means a pid reused after the first
		// read is never signalled unless it is the run's too.
		p, err := os.FindProcess(pid)
		if err != nil {
			continue
		}
		if tagged(pid, want) {
			_ = p.Kill()
		}
		_ = p.Release()
	}
	return found
}

// tagged reports whether pid's environment holds the entry want.
// Processes of other users cannot be read and are never tagged.
func tagged(pid int, want []byte) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return false
	}
	for len(b) > 0 {
		entry, rest, _ := bytes.Cut(b, []byte{0})
		if bytes.Equal(entry, want) {
			return true
		}
		b = rest
	}
	return false
}
