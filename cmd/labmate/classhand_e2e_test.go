package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/cmd/cli"
)

// A room that keeps moving, from other terminals: with `labmate check
// --watch --class` running for each learner (it reads no input),
// learner-01 raises a hand with `labmate class hand` in another
// terminal: the record shows it at once, and the running watcher takes
// it from the progress file and publishes it with its checks' messages
// rather than overwriting it; `class hand --down` lowers it for good.
// learner-02, in a new root, runs `labmate catch-up --to 2` in another
// terminal: the running watcher publishes step 1 caught up, not passed,
// without a restart.
func TestClassHandAndCatchUpFromAnotherTerminalE2E(t *testing.T) {
	e := newClassLabE2E(t)
	e.firstStart(t)
	// learner-02 in a root of their own, new: step 1 never passed there
	// (catch-up leaves a step the learner passed once theirs).
	l1, l2 := e.learners[0], e.learners[1]
	l2.root = t.TempDir()
	record := func(id string) func() (class.Record, bool) {
		return func() (class.Record, bool) {
			cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(e.ctx, class.ObjectName(id, "nginx-conf"), metav1.GetOptions{})
			if err != nil {
				return class.Record{}, false
			}
			r, err := class.Unmarshal([]byte(cm.Data[class.DataKey]))
			return r, err == nil
		}
	}
	l1.watch(t)
	l2.watch(t)
	waitRecord(t, "learner-02's watcher publishing step 1 undone", record("learner-02"), func(r class.Record) bool {
		s := r.Step(1)
		return s != nil && s.Status != checks.Passed
	})

	// learner-01's hand, from a shell beside the watcher.
	l1.use(t)
	code, out, errOut := runStreams("class", "hand", "--class", l1.file, "--root", l1.root, "포트를", "모르겠어요")
	if code != cli.ExitOK || !strings.Contains(out, "2단계에서 손을 들었습니다") {
		t.Fatalf("class hand: exit %d\n%s%s", code, out, errOut)
	}
	raised := time.Now()
	up := waitRecord(t, "the hand taken by learner-01's watcher, with its checks' messages", record("learner-01"), func(r class.Record) bool {
		return r.Hand != nil && r.Hand.Step == 2 && r.Hand.Note == "포트를 모르겠어요" && len(r.Hand.Checks) > 0 && r.Hand.Checks[0].Message != ""
	})
	t.Logf("class hand returned → the watcher's record carries the hand: %v", time.Since(raised).Round(time.Millisecond))
	code, out, errOut = runStreams("class", "hand", "--down", "--class", l1.file, "--root", l1.root)
	if code != cli.ExitOK || !strings.Contains(out, "손을 내렸습니다") {
		t.Fatalf("class hand --down: exit %d\n%s%s", code, out, errOut)
	}
	waitRecord(t, "the hand down", record("learner-01"), func(r class.Record) bool { return r.Hand == nil && r.Step(2).Hands >= 1 })
	if up.Run == "" {
		t.Error("the hand was not published by a labmate run")
	}

	// learner-02's catch-up, from another terminal.
	l2.use(t)
	code, out, errOut = runStreams("catch-up", "--to", "2", "--yes", "--lab", "nginx-conf", "--root", l2.root)
	if code != cli.ExitOK {
		t.Fatalf("catch-up --to 2: exit %d\n%s%s", code, out, errOut)
	}
	caught := time.Now()
	waitRecord(t, "learner-02's watcher publishing step 1 caught up", record("learner-02"), func(r class.Record) bool {
		s := r.Step(1)
		return s != nil && s.Status == checks.Passed && s.CaughtUp
	})
	t.Logf("catch-up returned → the watcher's record has step 1 caught up: %v", time.Since(caught).Round(time.Millisecond))
}

// watch starts `labmate check --watch --class FILE --root ROOT` as this
// learner (this test binary as labmate), stopped when the test ends.
func (l classLearner) watch(t *testing.T) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "check", "--watch", "--class", l.file, "--root", l.root)
	cmd.Env = []string{"HOME=" + os.Getenv("HOME"), "PATH=" + os.Getenv("PATH"), "XDG_DATA_HOME=" + l.data,
		"XDG_STATE_HOME=" + l.state, "LANG=C.UTF-8", "LABMATE_TEST_AS_LABMATE=1"}
	log, err := os.Create(filepath.Join(t.TempDir(), "watch.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("%s's check --watch --class:\n%s", l.id, b)
		}
	})
}

// waitRecord reads a record until ok says it is what is waited for (90
// s, for a loaded machine) and returns it; past the deadline it fails
// with the last record seen.
func waitRecord(t *testing.T, what string, read func() (class.Record, bool), ok func(class.Record) bool) class.Record {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		r, read := read()
		if read && ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			raw, _ := class.Marshal(r)
			t.Fatalf("waiting for %s; the record is:\n%s", what, raw)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
