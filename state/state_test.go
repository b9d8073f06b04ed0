package state

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
)

func TestRoundTrip(t *testing.T) {
	s, _ := Open(t.TempDir(), "gpu-incident", "/root/gpuop")
	when := time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)
	err := s.Update(func(f *File) {
		f.Progress.CurrentStep = 5
		f.Progress.PassedAt = map[int]time.Time{1: when}
		f.Progress.HintsSeen = map[int]int{3: 2}
		f.Witness.Set("pod.unschedulable", checks.WitnessFact{Value: "0/3 nodes", UID: "u1", Seen: when})
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got.Progress.CurrentStep != 5 || !got.Progress.PassedAt[1].Equal(when) || got.Progress.HintsSeen[3] != 2 {
		t.Fatalf("progress lost: %+v", got.Progress)
	}
	if f, ok := got.Witness.Get("pod.unschedulable"); !ok || f.Value != "0/3 nodes" || f.UID != "u1" {
		t.Fatalf("witness lost: %+v", got.Witness)
	}
}

func TestMissingIsEmpty(t *testing.T) {
	s, _ := Open(t.TempDir(), "lab", "/x")
	f, err := s.Load()
	if err != nil || f.Progress.CurrentStep != 0 || f.Version != Version {
		t.Fatalf("Load of missing = %+v, %v", f, err)
	}
}

func TestCorruptFileIsSetAsideNotDropped(t *testing.T) {
	s, _ := Open(t.TempDir(), "lab", "/x")
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		t.Fatal(err)
	}
	junk := []byte("{\"version\": 1, \"progress\": {\"current_")
	if err := os.WriteFile(s.Path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.Load()
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load = %v, want ErrCorrupt", err)
	}
	matches, _ := filepath.Glob(s.Path + ".damaged-*")
	if len(matches) != 1 {
		t.Fatalf("damaged copy not kept: %v", matches)
	}
	kept, _ := os.ReadFile(matches[0])
	if string(kept) != string(junk) {
		t.Fatalf("damaged copy altered")
	}
	// And the store works again.
	if err := s.Update(func(f *File) { f.Progress.CurrentStep = 2 }); err != nil {
		t.Fatal(err)
	}
	if f, err := s.Load(); err != nil || f.Progress.CurrentStep != 2 {
		t.Fatalf("after recovery: %+v %v", f, err)
	}
}

func TestNewerVersionIsSetAside(t *testing.T) {
	s, _ := Open(t.TempDir(), "lab", "/x")
	os.MkdirAll(filepath.Dir(s.Path), 0o700)
	os.WriteFile(s.Path, []byte(`{"version": 99}`), 0o600)
	if _, err := s.Load(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load = %v, want ErrCorrupt", err)
	}
}

// A crash between writing the temp file and renaming it leaves the old
// state intact and a stray temp file that the next write ignores.
func TestCrashMidWriteKeepsOldState(t *testing.T) {
	s, _ := Open(t.TempDir(), "lab", "/x")
	if err := s.Update(func(f *File) { f.Progress.CurrentStep = 3 }); err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(filepath.Dir(s.Path), ".state.json.123.tmp")
	if err := os.WriteFile(torn, []byte(`{"version":1,"progress":{"cur`), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := s.Load()
	if err != nil || f.Progress.CurrentStep != 3 {
		t.Fatalf("Load after torn write = %+v, %v", f, err)
	}
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s, _ := Open(dir, "lab", "/x")
			for j := 0; j < 10; j++ {
				if err := s.Update(func(f *File) {
					if f.Progress.HintsSeen == nil {
						f.Progress.HintsSeen = map[int]int{}
					}
					f.Progress.HintsSeen[i]++
				}); err != nil {
					t.Error(err)
				}
			}
		}(i)
	}
	wg.Wait()
	s, _ := Open(dir, "lab", "/x")
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		if f.Progress.HintsSeen[i] != 10 {
			t.Fatalf("writer %d: %d updates kept, want 10 (%v)", i, f.Progress.HintsSeen[i], f.Progress.HintsSeen)
		}
	}
}

// Two labmate processes: the test binary re-executes itself as a writer.
func TestConcurrentProcesses(t *testing.T) {
	if dir := os.Getenv("LABMATE_STATE_WRITER_DIR"); dir != "" {
		id, _ := strconv.Atoi(os.Getenv("LABMATE_STATE_WRITER_ID"))
		s, _ := Open(dir, "lab", "/x")
		for j := 0; j < 25; j++ {
			if err := s.Update(func(f *File) {
				if f.Progress.HintsSeen == nil {
					f.Progress.HintsSeen = map[int]int{}
				}
				f.Progress.HintsSeen[id]++
			}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for id := 1; id <= 2; id++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentProcesses$")
		cmd.Env = append(os.Environ(), "LABMATE_STATE_WRITER_DIR="+dir, "LABMATE_STATE_WRITER_ID="+strconv.Itoa(id))
		var out strings.Builder
		cmd.Stderr, cmd.Stdout = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	s, _ := Open(dir, "lab", "/x")
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if f.Progress.HintsSeen[1] != 25 || f.Progress.HintsSeen[2] != 25 {
		t.Fatalf("lost updates across processes: %v", f.Progress.HintsSeen)
	}
}

func TestResetOneStep(t *testing.T) {
	s, _ := Open(t.TempDir(), "lab", "/x")
	s.Update(func(f *File) {
		f.Progress.PassedAt = map[int]time.Time{5: time.Now(), 6: time.Now()}
		f.Witness.Set("s5.unschedulable", checks.WitnessFact{Value: "a"})
		f.Witness.Set("s8.ready-old", checks.WitnessFact{Value: "b"})
	})
	if err := s.Reset(5, []string{"s5."}); err != nil {
		t.Fatal(err)
	}
	f, _ := s.Load()
	if _, ok := f.Progress.PassedAt[5]; ok {
		t.Error("step 5 progress kept")
	}
	if _, ok := f.Progress.PassedAt[6]; !ok {
		t.Error("step 6 progress dropped")
	}
	if _, ok := f.Witness.Get("s5.unschedulable"); ok {
		t.Error("step 5 witness kept")
	}
	if _, ok := f.Witness.Get("s8.ready-old"); !ok {
		t.Error("step 8 witness dropped")
	}
}
