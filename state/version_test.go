package state

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func fact(v string) checks.WitnessFact { return checks.WitnessFact{Value: v, Seen: t0} }

func TestProgressIsKeptPerLabVersion(t *testing.T) {
	dir, root := t.TempDir(), "/root/lab"
	// What labmate kept before versions: one file per lab and root.
	legacy, _ := Open(dir, "demo", root)
	err := legacy.Update(func(f *File) {
		f.Progress = Progress{StartedAt: t0, CurrentStep: 3,
			PassedAt:  map[int]time.Time{1: t0, 2: t0.Add(time.Minute), 3: t0.Add(2 * time.Minute)},
			HintsSeen: map[int]int{3: 2}, SolutionSeen: map[int]bool{2: true}}
		f.Witness.Facts = map[string]checks.WitnessFact{"b/seen": fact("x"), "c/seen": fact("y")}
	})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(legacy.Path)

	// Version 1.0.0 numbers the steps as the lab did: taken as it is.
	v1 := Lab{ID: "demo", Version: "1.0.0", Steps: map[int]string{1: "a", 2: "b", 3: "c"}}
	s1, _ := OpenLab(dir, v1, root)
	f1, err := s1.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(f1.Progress.PassedAt) != 3 || f1.Progress.CurrentStep != 3 || f1.LabVersion != "1.0.0" || f1.CarriedFrom != "" {
		t.Fatalf("1.0.0 from the file before versions: %+v", f1)
	}
	if err := s1.Record(Event{Kind: HintOpened, Step: 1, Hint: 1, At: t0}); err != nil {
		t.Fatal(err)
	}
	if s1.Path == legacy.Path || filepath.Base(filepath.Dir(filepath.Dir(s1.Path))) != "demo@1.0.0" {
		t.Errorf("1.0.0 kept at %s", s1.Path)
	}
	if after, _ := os.ReadFile(legacy.Path); string(after) != string(before) {
		t.Error("the file before versions was changed")
	}

	// Version 2 drops b and moves c to 2: c keeps its pass, hints and
	// facts under its new number; b's go; nothing of 1.0.0 changes.
	v2 := Lab{ID: "demo", Version: "2.0.0", Steps: map[int]string{1: "a", 2: "c", 3: "d"}}
	s2, _ := OpenLab(dir, v2, root)
	f2, err := s2.Load()
	if err != nil {
		t.Fatal(err)
	}
	p := f2.Progress
	if !p.PassedAt[1].Equal(t0) || !p.PassedAt[2].Equal(t0.Add(2*time.Minute)) || len(p.PassedAt) != 2 {
		t.Errorf("passes in 2.0.0 = %v, want a at 1 and c at 2", p.PassedAt)
	}
	if p.HintsSeen[2] != 2 || p.HintsSeen[1] != 1 || len(p.SolutionSeen) != 0 || p.CurrentStep != 2 {
		t.Errorf("2.0.0 progress = %+v", p)
	}
	if _, ok := f2.Witness.Facts["b/seen"]; ok || len(f2.Witness.Facts) != 1 {
		t.Errorf("2.0.0 facts = %v, want c's only", f2.Witness.Facts)
	}
	if f2.CarriedFrom != "1.0.0" {
		t.Errorf("CarriedFrom = %q", f2.CarriedFrom)
	}
	if err := s2.Record(Event{Kind: StepPassed, Step: 3, At: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	var onDisk File
	raw, _ := os.ReadFile(s2.Path)
	if err := json.Unmarshal(raw, &onDisk); err != nil || onDisk.Steps[3] != "d" || onDisk.LabVersion != "2.0.0" {
		t.Errorf("2.0.0 file does not record its steps: %s", raw)
	}
	back, _ := s1.Load()
	if _, ok := back.Progress.PassedAt[3]; !ok || back.Progress.PassedAt[3].Equal(t0.Add(time.Hour)) || len(back.Progress.PassedAt) != 3 {
		t.Errorf("1.0.0 mixed with 2.0.0's numbers: %v", back.Progress.PassedAt)
	}
	if !Used(dir, "demo", root) || Used(dir, "demo", "/elsewhere") || Used(dir, "other", root) {
		t.Error("Used does not tell where the lab was used")
	}
}

// A version whose steps changed under the same version string (a lab
// directory being written, an archive installed again) is read by ID too.
func TestSameVersionRenumberedByID(t *testing.T) {
	dir, root := t.TempDir(), "/r"
	s, _ := OpenLab(dir, Lab{ID: "demo", Version: "0", Steps: map[int]string{1: "a", 2: "b"}}, root)
	if err := s.Record(Event{Kind: StepPassed, Step: 2, At: t0}); err != nil {
		t.Fatal(err)
	}
	s, _ = OpenLab(dir, Lab{ID: "demo", Version: "0", Steps: map[int]string{1: "new", 2: "a", 3: "b"}}, root)
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Progress.PassedAt[3]; !ok || len(f.Progress.PassedAt) != 1 {
		t.Errorf("passes = %v, want b's pass at its new number 3", f.Progress.PassedAt)
	}
}
