package scriptprobe

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/labmate/observe"
)

// procsMatching lists live processes whose environment holds env
// (exactly, as one NAME=value entry) or whose command line holds arg
// (as one argument). Zombies have neither, so they never match.
func procsMatching(env, arg string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		if env != "" {
			if b, err := os.ReadFile(filepath.Join(dir, "environ")); err == nil && hasEntry(b, env) {
				pids = append(pids, pid)
				continue
			}
		}
		if arg != "" {
			if b, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil && hasEntry(b, arg) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func hasEntry(nulSeparated []byte, want string) bool {
	for _, f := range bytes.Split(nulSeparated, []byte{0}) {
		if string(f) == want {
			return true
		}
	}
	return false
}

// uniqueSleep is a sleep duration no other process on the machine uses,
// so the test can find the sleeps its script started by their argv even
// when they carry no tag (before the fix, or if the tag were lost).
func uniqueSleep(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	marker := strconv.Itoa(1_000_000 + int(binary.BigEndian.Uint32(b)%8_000_000))
	t.Cleanup(func() {
		// A failing test must not leak what it is about.
		for _, pid := range procsMatching("", marker) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return marker
}

var reTag = regexp.MustCompile(`tag=(\S*)`)

// Scripts that put a process out of reach of the process group kill:
// whatever they leave behind must be gone when the run is reported.
func TestEscapedProcessesAreKilled(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid on this host")
	}
	for _, tc := range []struct {
		name, script string
		timeout      time.Duration
	}{
		// Each script gives its escapees a moment to get away before it
		// ends, or the group kill could catch them before setsid.
		{"setsid in the background", "#!/bin/sh\necho tag=$" + RunTagVar + "\nsetsid sh -c 'exec sleep SLEEP' &\nsetsid sleep SLEEP &\nsleep 0.2\n", 0},
		{"setsid double fork", "#!/bin/sh\necho tag=$" + RunTagVar + "\n(setsid sh -c '(sleep SLEEP &) ; sleep SLEEP' >/dev/null 2>&1 &)\nsleep 0.2\n", 0},
		{"nohup and disown", "#!/bin/bash\necho tag=$" + RunTagVar + "\nnohup setsid sleep SLEEP >/dev/null 2>&1 &\nnohup sleep SLEEP >/dev/null 2>&1 &\ndisown -a\nsleep 0.2\n", 0},
		{"escaped child keeps stdout open", "#!/bin/sh\necho tag=$" + RunTagVar + "\nsetsid sleep SLEEP &\nsleep 0.2\necho bye\n", 0},
		// The timeout leaves the script time to print its tag and start
		// its escapee on a loaded machine: 1.5 s ended it before its
		// first line in the -race lane of a warm make test at load 13.
		{"escapes then hangs", "#!/bin/sh\necho tag=$" + RunTagVar + "\nsetsid sleep SLEEP &\nwhile :; do sleep 1; done\n", 5 * time.Second},
	} {
		for _, mode := range testModes(t) {
			t.Run(tc.name+"/"+string(mode), func(t *testing.T) {
				if strings.HasPrefix(tc.script, "#!/bin/bash") {
					if _, err := os.Stat("/bin/bash"); err != nil {
						t.Skip("no /bin/bash")
					}
				}
				marker := uniqueSleep(t)
				script := strings.ReplaceAll(tc.script, "SLEEP", marker)
				probe := func(timeout time.Duration) map[string]observe.ScriptObs {
					return probeOnce(t, script, 0o755, Options{Timeout: timeout, Sandbox: mode})
				}
				spent := drainGraceSpent.Load()
				var runs map[string]observe.ScriptObs
				if tc.timeout > 0 {
					// The script hangs once it printed its tag: the
					// timeout ends it, once the script got that far.
					runs, _ = untilStarted(t, "tag=", tc.timeout, probe)
				} else {
					// The script ends by itself, well within the 30 s a
					// loaded machine gets for it.
					runs = probe(30 * time.Second)
				}
				// Nothing is waited for: no leftover holds the output pipe
				// until the drain grace runs out (observed, not timed: the
				// test is not parallel, so no other run drains meanwhile).
				if n := drainGraceSpent.Load() - spent; n > 0 {
					t.Errorf("the probe waited out the drain grace %d time(s): a leftover held the output pipe", n)
				}
				if left := procsMatching("", marker); len(left) > 0 {
					t.Errorf("sleep %s still running after the run: pids %v", marker, left)
				}
				tags := map[string]bool{}
				for name, r := range runs {
					m := reTag.FindStringSubmatch(r.Output)
					if m == nil || len(m[1]) < 16 {
						t.Errorf("%s: the script did not see a run tag: %q", name, r.Output)
						continue
					}
					tags[m[1]] = true
					if left := procsMatching(RunTagVar+"="+m[1], ""); len(left) > 0 {
						t.Errorf("%s: processes tagged %s survived the run: %v", name, m[1], left)
					}
					if tc.timeout > 0 != r.TimedOut {
						t.Errorf("%s: timed out %v", name, r.TimedOut)
					}
				}
				if len(tags) != len(runs) {
					t.Errorf("runs share a tag: %v", tags)
				}
			})
		}
	}
}

// The sweep kills what carries this run's tag, nothing else: not a
// process with another run's tag, not an untagged one.
func TestSweepSparesOtherProcesses(t *testing.T) {
	marker := uniqueSleep(t)
	var others []*exec.Cmd
	for _, env := range [][]string{nil, {RunTagVar + "=someone-else"}} {
		c := exec.Command("sleep", marker)
		c.Env = append(os.Environ(), env...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		others = append(others, c)
	}
	t.Cleanup(func() {
		for _, c := range others {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	})
	runs := probeOnce(t, "#!/bin/sh\nsetsid sleep "+marker+" &\nexit 0\n", 0o755, Options{})
	if len(runs) != 2 {
		t.Fatalf("runs %v", runs)
	}
	left := procsMatching("", marker)
	if len(left) != len(others) {
		t.Errorf("pids %v run sleep %s, want only the test's own %d, %d", left, marker, others[0].Process.Pid, others[1].Process.Pid)
	}
	for _, c := range others {
		if !alive(c.Process.Pid) {
			t.Errorf("the sweep killed pid %d, which is not the probe's", c.Process.Pid)
		}
	}
}

// A tag is long and random: one run's sweep cannot match another's.
func TestRunTagsAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		tag := newRunTag()
		if _, err := hex.DecodeString(tag); err != nil || len(tag) < 16 || seen[tag] {
			t.Fatalf("tag %q", tag)
		}
		seen[tag] = true
	}
}
