package state

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
)

func TestProgressApply(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Hour)
	var p Progress
	steps := []struct {
		ev   Event
		want bool
	}{
		{Event{Kind: Visited, Step: 3, At: t0}, true},
		{Event{Kind: Visited, Step: 3, At: t1}, false},
		{Event{Kind: HintOpened, Step: 3, Hint: 2, At: t0}, true},
		{Event{Kind: HintOpened, Step: 3, Hint: 1, At: t1}, false}, // reopening an earlier hint
		{Event{Kind: HintOpened, Step: 3, Hint: 2, At: t1}, false},
		{Event{Kind: SolutionOpened, Step: 3, At: t0}, true},
		{Event{Kind: SolutionOpened, Step: 3, At: t1}, false},
		{Event{Kind: StepPassed, Step: 3, At: t0}, true},
		{Event{Kind: StepPassed, Step: 3, At: t1}, false}, // first pass is kept
		{Event{Kind: StepPassed, Step: 0, At: t1}, false}, // the introduction never passes
		{Event{Kind: HintOpened, Step: -1, Hint: 4}, false},
		{Event{Kind: "bogus", Step: 2}, false},
	}
	for i, s := range steps {
		if got := p.Apply(s.ev); got != s.want {
			t.Errorf("event %d %+v: changed = %v, want %v", i, s.ev, got, s.want)
		}
	}
	if p.CurrentStep != 3 || p.HintsSeen[3] != 2 || !p.SolutionSeen[3] || !p.PassedAt[3].Equal(t0) || !p.StartedAt.Equal(t0) {
		t.Fatalf("progress = %+v", p)
	}
}

func TestProgressMerge(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	p := Progress{StartedAt: t0, CurrentStep: 2, PassedAt: map[int]time.Time{1: t0.Add(time.Minute)}, HintsSeen: map[int]int{2: 3}}
	o := Progress{
		StartedAt: t0.Add(time.Hour), CurrentStep: 4,
		PassedAt:     map[int]time.Time{1: t0.Add(time.Hour), 2: t0.Add(2 * time.Hour)},
		HintsSeen:    map[int]int{2: 1, 4: 1},
		SolutionSeen: map[int]bool{4: true},
	}
	if !p.Merge(o) {
		t.Fatal("merge reported no change")
	}
	if !p.StartedAt.Equal(t0) || p.CurrentStep != 4 || !p.PassedAt[1].Equal(t0.Add(time.Minute)) ||
		!p.PassedAt[2].Equal(t0.Add(2*time.Hour)) || p.HintsSeen[2] != 3 || p.HintsSeen[4] != 1 || !p.SolutionSeen[4] {
		t.Fatalf("merged = %+v", p)
	}
	if p.Merge(o) {
		t.Fatal("second merge of the same progress changed something")
	}
}

func TestRecordWritesOnlyOnChange(t *testing.T) {
	s, _ := Open(t.TempDir(), "lab", "/x")
	if err := s.Record(Event{Kind: Visited, Step: 2}); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record(Event{Kind: Visited, Step: 2}, Event{Kind: HintOpened, Step: 2, Hint: 0}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(s.Path)
	if !os.SameFile(before, after) {
		t.Fatal("a no-op Record rewrote the state file")
	}
	if err := s.Record(Event{Kind: HintOpened, Step: 2, Hint: 1}); err != nil {
		t.Fatal(err)
	}
	after, _ = os.Stat(s.Path)
	if os.SameFile(before, after) {
		t.Fatal("a real change was not written")
	}
	f, _ := s.Load()
	if f.Progress.CurrentStep != 2 || f.Progress.HintsSeen[2] != 1 {
		t.Fatalf("progress = %+v", f.Progress)
	}
}

func TestResetStepByID(t *testing.T) {
	s, _ := Open(t.TempDir(), "lab", "/x")
	s.Update(func(f *File) {
		f.Progress.PassedAt = map[int]time.Time{5: time.Now(), 8: time.Now()}
		f.Progress.HintsSeen = map[int]int{5: 2}
		f.Progress.SolutionSeen = map[int]bool{5: true}
		f.Witness.Set("runtimeclass-pending/unschedulable", checks.WitnessFact{Value: "0/3"})
		f.Witness.Set("runtimeclass-pending-extra/x", checks.WitnessFact{Value: "other step"})
		f.Witness.Set("rollout-stall/ready-old", checks.WitnessFact{Value: "3"})
	})
	c, err := s.ResetStep(5, "runtimeclass-pending")
	if err != nil {
		t.Fatal(err)
	}
	if c.Passed != 1 || c.Hints != 2 || c.Solutions != 1 || len(c.Facts) != 1 || c.Facts[0] != "runtimeclass-pending/unschedulable" {
		t.Fatalf("cleared = %+v", c)
	}
	f, _ := s.Load()
	if _, ok := f.Witness.Get("runtimeclass-pending-extra/x"); !ok {
		t.Error("a fact of another step sharing the ID prefix was dropped")
	}
	if _, ok := f.Witness.Get("rollout-stall/ready-old"); !ok {
		t.Error("step 8's fact was dropped")
	}
	if _, ok := f.Progress.PassedAt[8]; !ok {
		t.Error("step 8's progress was dropped")
	}
	if c, _ := s.ResetStep(5, "runtimeclass-pending"); !c.Empty() {
		t.Errorf("second reset cleared %+v", c)
	}
}

func TestPreviewChangesNothing(t *testing.T) {
	f := File{Progress: Progress{PassedAt: map[int]time.Time{1: time.Now(), 2: time.Now()}, HintsSeen: map[int]int{1: 2, 2: 1},
		SolutionSeen: map[int]bool{2: true}}, Witness: checks.Witness{Facts: map[string]checks.WitnessFact{"two/a": {}, "one/b": {}}}}
	one := f.Preview(1, "one")
	if one.Passed != 1 || one.Hints != 2 || one.Solutions != 0 || len(one.Facts) != 1 || one.Facts[0] != "one/b" {
		t.Errorf("preview of step 1 = %+v", one)
	}
	all := f.Preview(0, "")
	if all.Passed != 2 || all.Hints != 3 || all.Solutions != 1 || len(all.Facts) != 2 {
		t.Errorf("preview of all = %+v", all)
	}
	if len(f.Progress.PassedAt) != 2 || len(f.Witness.Facts) != 2 || f.Progress.HintsSeen[1] != 2 {
		t.Errorf("preview changed the file: %+v", f)
	}
}

func TestResetAllReturnsWhatWasThere(t *testing.T) {
	s, _ := Open(t.TempDir(), "lab", "/x")
	s.Record(Event{Kind: StepPassed, Step: 1}, Event{Kind: Visited, Step: 2})
	old, err := s.ResetAll()
	if err != nil || len(old.Progress.PassedAt) != 1 {
		t.Fatalf("ResetAll = %+v, %v", old.Progress, err)
	}
	f, _ := s.Load()
	if len(f.Progress.PassedAt) != 0 || f.Progress.CurrentStep != 0 || !f.Progress.StartedAt.IsZero() {
		t.Fatalf("after reset: %+v", f.Progress)
	}
}

func TestStaleTempFilesAreSwept(t *testing.T) {
	s, _ := Open(t.TempDir(), "lab", "/x")
	s.Record(Event{Kind: Visited, Step: 1})
	dir := filepath.Dir(s.Path)
	old := filepath.Join(dir, ".state.json.old.tmp")
	fresh := filepath.Join(dir, ".state.json.fresh.tmp")
	os.WriteFile(old, []byte("{"), 0o600)
	os.WriteFile(fresh, []byte("{"), 0o600)
	past := time.Now().Add(-time.Hour)
	os.Chtimes(old, past, past)
	if err := s.Record(Event{Kind: Visited, Step: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temp file kept: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temp file (maybe another writer's) was removed: %v", err)
	}
}

// A writer process killed at a random point while it rewrites the state in
// a loop never leaves a file that fails to load.
func TestKilledWriterNeverCorrupts(t *testing.T) {
	const written = "labmate-state-written"
	if dir := os.Getenv("LABMATE_STATE_LOOP_DIR"); dir != "" {
		s, _ := Open(dir, "lab", "/x")
		for i := 1; ; i++ {
			s.Update(func(f *File) {
				f.Progress.CurrentStep = i
				// A larger payload widens the window a kill can hit.
				if f.Witness.Facts == nil {
					f.Witness.Facts = map[string]checks.WitnessFact{}
				}
				for j := 0; j < 200; j++ {
					f.Witness.Facts["k/"+string(rune('a'+j%26))+time.Duration(j).String()] = checks.WitnessFact{Value: time.Now().String()}
				}
			})
			if i == 1 {
				// The handshake: the parent kills only after a completed write.
				fmt.Println(written)
			}
		}
	}
	dir := t.TempDir()
	for round := 0; round < 5; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterNeverCorrupts$")
		cmd.Env = append(os.Environ(), "LABMATE_STATE_LOOP_DIR="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		for sc.Scan() && sc.Text() != written {
		}
		if sc.Err() != nil || sc.Text() != written {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: the writer never reported a completed write", round)
		}
		// Kill at a different point of the write loop each round; what
		// the test relies on is the handshake above, not this delay.
		time.Sleep(time.Duration(round*7) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		io.Copy(io.Discard, out) // EOF once the killed writer is gone
		cmd.Wait()
		s, _ := Open(dir, "lab", "/x")
		f, err := s.Load()
		if err != nil {
			t.Fatalf("round %d: state after a killed writer: %v", round, err)
		}
		if f.Progress.CurrentStep == 0 {
			t.Fatalf("round %d: a completed write was lost", round)
		}
	}
}

func TestRecordHints(t *testing.T) {
	s, _ := Open(t.TempDir(), "lab", "/x")
	if err := s.RecordHints(4, 1, false); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordHints(4, 3, true); err != nil {
		t.Fatal(err)
	}
	s.RecordHints(4, 2, false) // an earlier rung reopened: no step back
	f, _ := s.Load()
	if f.Progress.HintsSeen[4] != 3 || !f.Progress.SolutionSeen[4] {
		t.Fatalf("progress = %+v", f.Progress)
	}
}

func TestStepTimesFollowThePasses(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	got := StepTimes(t0, map[int]time.Time{
		1: t0.Add(5 * time.Minute),
		2: t0.Add(12 * time.Minute),
		3: t0.Add(12 * time.Minute), // passed with step 2
		5: t0.Add(30 * time.Minute), // step 4 not passed
	})
	want := map[int]time.Duration{1: 5 * time.Minute, 2: 7 * time.Minute, 3: 0, 5: 18 * time.Minute}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for n, d := range want {
		if got[n] != d {
			t.Errorf("step %d: %v, want %v", n, got[n], d)
		}
	}
	if got := StepTimes(time.Time{}, map[int]time.Time{1: t0, 2: t0.Add(time.Minute)}); len(got) != 1 || got[2] != time.Minute {
		t.Errorf("without a start the first has no time: %v", got)
	}
}
