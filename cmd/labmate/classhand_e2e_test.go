package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/kube"
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
	l1.watch(t)
	l2.watch(t)
	e.waitRecord(t, "learner-02", "its watcher publishing step 1 undone", func(r class.Record) bool {
		s := r.Step(1)
		return s != nil && s.Status != checks.Passed
	})

	// learner-01's hand, from a shell beside the watcher.
	l1.use(t)
	code, out, errOut := runStreams("class", "hand", "--class", l1.file, "--root", l1.root, "포트를", "모르겠어요")
	if code != cli.ExitOK || !strings.Contains(out, "2단계에서 손을 들었습니다") {
		t.Fatalf("class hand: exit %d\n%s%s", code, out, errOut)
	}
	up := e.waitRecord(t, "learner-01", "the hand taken by its watcher, with its checks' messages", func(r class.Record) bool {
		return r.Hand != nil && r.Hand.Step == 2 && r.Hand.Note == "포트를 모르겠어요" && len(r.Hand.Checks) > 0 && r.Hand.Checks[0].Message != ""
	})
	code, out, errOut = runStreams("class", "hand", "--down", "--class", l1.file, "--root", l1.root)
	if code != cli.ExitOK || !strings.Contains(out, "손을 내렸습니다") {
		t.Fatalf("class hand --down: exit %d\n%s%s", code, out, errOut)
	}
	e.waitRecord(t, "learner-01", "the hand down", func(r class.Record) bool { return r.Hand == nil && r.Step(2).Hands >= 1 })
	if up.Run == "" {
		t.Error("the hand was not published by a labmate run")
	}

	// learner-02's catch-up, from another terminal.
	l2.use(t)
	code, out, errOut = runStreams("catch-up", "--to", "2", "--yes", "--lab", "nginx-conf", "--root", l2.root)
	if code != cli.ExitOK {
		t.Fatalf("catch-up --to 2: exit %d\n%s%s", code, out, errOut)
	}
	e.waitRecord(t, "learner-02", "its watcher publishing step 1 caught up", func(r class.Record) bool {
		s := r.Step(1)
		return s != nil && s.Status == checks.Passed && s.CaughtUp
	})
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

// waitRecord watches learner id's record (kube.WatchConfigMaps: each
// change, no polling) until ok says it is what is waited for (90 s, for
// a loaded machine) and returns it; past the deadline it fails with the
// last record seen.
func (e *classLabE2E) waitRecord(t *testing.T, id, what string, ok func(class.Record) bool) class.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 90*time.Second)
	defer cancel()
	name := class.ObjectName(id, "nginx-conf")
	w := kube.WatchConfigMaps(ctx, e.cs, e.ns, name)
	defer w.Wait()
	defer cancel()
	var last class.Record
	for {
		select {
		case <-ctx.Done():
			raw, _ := class.Marshal(last)
			t.Fatalf("waiting for %s's record: %s; the record is:\n%s", id, what, raw)
		case <-w.Changed:
			cm, err := w.Get(name)
			if err != nil {
				continue
			}
			if r, err := class.Unmarshal([]byte(cm.Data[class.DataKey])); err == nil {
				if last = r; ok(r) {
					return r
				}
			}
		}
	}
}
