package scriptprobe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/labhub/labmate/observe"
)

// running is a started run: the script's output, its wait, and what its
// helper reports (the status on fd 3, the filter on fd 4).
type running struct {
	cmd     *exec.Cmd
	pgid    int
	helper  bool
	out     *os.File
	tail    *tail
	drained chan struct{}
	waited  chan error
	st      chan statusRead
	filter  chan filterRead
}

type statusRead struct {
	st initStatus
	ok bool
}

type filterRead struct {
	mode string
	r    *refusals // nil unless the filter notifies
}

// watch starts reading what cmd prints into a tail of outputCap bytes,
// waiting for it, and (with a helper) reading the helper's reports.
func watch(cmd *exec.Cmd, h *helperProc, out *os.File, outputCap int) *running {
	rn := &running{cmd: cmd, pgid: cmd.Process.Pid, helper: h != nil, out: out, tail: newTail(outputCap),
		drained: make(chan struct{}), waited: make(chan error, 1), st: make(chan statusRead, 1), filter: make(chan filterRead, 1)}
	go func() {
		defer close(rn.drained)
		defer func() { _ = recover() }()
		_, _ = io.Copy(rn.tail, out)
	}()
	go func() {
		defer func() {
			if r := recover(); r != nil {
				rn.waited <- fmt.Errorf("wait: %v", r)
			}
		}()
		rn.waited <- cmd.Wait()
	}()
	if h == nil {
		rn.st <- statusRead{}
		rn.filter <- filterRead{mode: observe.SeccompOff}
		return rn
	}
	go func() {
		defer func() { _ = recover() }()
		var s statusRead
		s.ok = json.NewDecoder(h.status).Decode(&s.st) == nil
		rn.st <- s
	}()
	go func() {
		defer func() { _ = recover() }()
		mode, listener := receiveFilter(h.filter)
		f := filterRead{mode: mode}
		if listener != nil {
			f.r = serveRefusals(listener)
		}
		rn.filter <- f
	}()
	return rn
}

// wait waits for the script until timeout or ctx ends, killing it then,
// and reports whether it timed out. Killing the namespaces helper (PID 1)
// kills every process of the run; elsewhere the group and the tag find
// them.
func (rn *running) wait(ctx context.Context, timeout time.Duration) bool {
	kill := func() {
		_ = rn.cmd.Process.Kill()
		killGroup(rn.pgid)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-rn.waited:
		return false
	case <-timer.C:
		kill()
		<-rn.waited
		return true
	case <-ctx.Done():
		kill()
		<-rn.waited
		return false
	}
}

// drainGraceSpent counts the drains that waited out drainGrace: the
// tests read it to see that no leftover held a run's output pipe.
var drainGraceSpent atomic.Int64

// drain waits a moment for the output's last bytes: a process the
// sweep could not find (an untagged environment, or not Linux) could
// hold the pipe open forever.
func (rn *running) drain() {
	select {
	case <-rn.drained:
	case <-time.After(drainGrace):
		drainGraceSpent.Add(1)
	}
	rn.out.Close()
	<-rn.drained
}

// status is what the helper reported on fd 3, if anything.
func (rn *running) status() (initStatus, bool) {
	s := <-rn.st
	return s.st, s.ok
}

// filtered is the run's filter mode, the calls it refused, and whether
// it refused an allocation past the memory limit. The helper's channels
// close when the run ended, so this never waits long.
func (rn *running) filtered() (mode string, denied []string, memory bool) {
	f := <-rn.filter
	if f.r != nil {
		denied, memory = f.r.finish()
	}
	return f.mode, denied, memory
}
