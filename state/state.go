// Package state keeps what labmate must remember between runs, per lab and
// per lab root: the facts of the past it witnessed and the learner's
// progress. The file is small JSON under the XDG state dir, written
// atomically (temp file, fsync, rename) under an advisory lock so that a
// crash, a full disk or a second labmate never corrupts it.
package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/internal/dirs"
	"github.com/labhub/labmate/internal/lockfile"
	"github.com/labhub/labmate/internal/safefile"
)

// Version is the state file format version.
const Version = 1

// File is the state of one lab at one root.
type File struct {
	Version  int            `json:"version"`
	Lab      string         `json:"lab"`
	Root     string         `json:"root"`
	Witness  checks.Witness `json:"witness"`
	Progress Progress       `json:"progress"`
	// LabVersion is the version of the lab this file keeps ("" for a
	// file of labmate before versions); Steps its step IDs by number,
	// so the numbers above are never read against another version's.
	LabVersion string         `json:"lab_version,omitempty"`
	Steps      map[int]string `json:"steps,omitempty"`
	// CarriedFrom is the version whose progress this file started from
	// (OpenLab), "" when it started empty or from a file before versions.
	CarriedFrom string `json:"carried_from,omitempty"`
}

// Progress is the learner's way through the lab.
type Progress struct {
	// CurrentStep is the page the learner was on (0 = introduction).
	CurrentStep int `json:"current_step"`
	// PassedAt is when each step first passed.
	PassedAt map[int]time.Time `json:"passed_at,omitempty"`
	// CaughtUpAt is when `labmate catch-up` brought each step to its
	// reference (a step the learner had not passed): it never counts as
	// passed, and a later pass of it is not the learner's.
	CaughtUpAt map[int]time.Time `json:"caught_up_at,omitempty"`
	// HintsSeen is how many hints of each step the learner opened.
	HintsSeen map[int]int `json:"hints_seen,omitempty"`
	// SolutionSeen marks steps whose worked solution was opened.
	SolutionSeen map[int]bool `json:"solution_seen,omitempty"`
	// StartedAt is when labmate first recorded anything for this lab root.
	StartedAt time.Time `json:"started_at,omitzero"`
	// Hand is the learner's newest raising or lowering of their hand in
	// a class (nil: never): the TUI, plain mode and `labmate class hand`
	// each write theirs here, and a running labmate's publisher takes
	// the newest (by At) from here, whichever terminal it came from.
	Hand *HandAct `json:"hand,omitempty"`
}

// HandAct is one raising or lowering of the learner's hand.
type HandAct struct {
	Up bool `json:"up"`
	// Step is the step the hand went up on (0: the learner's current
	// step, as the publisher knows it).
	Step int `json:"step,omitempty"`
	// Note is the learner's note, untrusted (the publisher clips it).
	Note string `json:"note,omitempty"`
	// At is when the learner did it: the newest act wins, and a raised
	// hand is named by At to the second (class.Hand.Raised).
	At time.Time `json:"at"`
}

// Store reads and writes one state file.
type Store struct {
	Path string
	lab  string
	root string
	// version and steps are the lab's (OpenLab).
	version string
	steps   map[int]string
}

// Dir returns the XDG state directory for labmate (dirs.State).
func Dir() (string, error) { return dirs.State() }

// Open returns the store labmate kept before versions for a lab at a
// root, under dir (Dir() when empty): OpenLab of the lab without a
// version. Nothing is created until the first write.
func Open(dir, lab, root string) (*Store, error) {
	return OpenLab(dir, Lab{ID: lab}, root)
}

// orDir is dir, or Dir() when it is empty.
func orDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return Dir()
}

// ErrCorrupt wraps a state file that could not be read; Load moved it
// aside to the path named in the error and starts afresh.
var ErrCorrupt = errors.New("state file damaged")

// Load reads the state. A missing file is an empty state. A damaged file
// is renamed to *.damaged-<time> and reported with ErrCorrupt alongside an
// empty state, so the learner is told and nothing is silently dropped.
func (s *Store) Load() (File, error) {
	var f File
	err := s.locked(func() error {
		var err error
		f, err = s.read()
		return err
	})
	return f, err
}

// Update applies fn to the current state and writes the result atomically.
// Concurrent labmate processes serialise on a lock file, and each applies
// its change to what the other wrote.
func (s *Store) Update(fn func(*File)) error {
	return s.locked(func() error {
		f, err := s.read()
		if err != nil && !errors.Is(err, ErrCorrupt) {
			return err
		}
		fn(&f)
		return s.write(f)
	})
}

// UpdateIf is Update for changes that may turn out to be no-ops: fn
// reports whether it changed anything, and the file is written only then.
func (s *Store) UpdateIf(fn func(*File) bool) error {
	return s.locked(func() error {
		f, err := s.read()
		if err != nil && !errors.Is(err, ErrCorrupt) {
			return err
		}
		if !fn(&f) {
			return nil
		}
		return s.write(f)
	})
}

// Record folds progress events into the file (see Progress.Apply),
// writing only when they changed something. It is what the TUI's progress
// callback calls.
func (s *Store) Record(evs ...Event) error {
	return s.UpdateIf(func(f *File) bool {
		changed := false
		for _, ev := range evs {
			changed = f.Progress.Apply(ev) || changed
		}
		return changed
	})
}

// RecordHints is Record for the TUI's hint ladder callback
// (tui.Options.OnProgress): hints opened so far on a step, and whether its
// worked solution was opened.
func (s *Store) RecordHints(step, hintsSeen int, solutionSeen bool) error {
	evs := []Event{{Kind: HintOpened, Step: step, Hint: hintsSeen}}
	if solutionSeen {
		evs = append(evs, Event{Kind: SolutionOpened, Step: step})
	}
	return s.Record(evs...)
}

// RecordHand keeps act as the learner's newest hand act, unless the
// file holds a newer one (another terminal acted later); it reports
// whether act was kept.
func (s *Store) RecordHand(act HandAct) (bool, error) {
	kept := false
	err := s.UpdateIf(func(f *File) bool {
		kept = f.Progress.RecordHand(act)
		return kept
	})
	return kept, err
}

// ResetStep forgets one step (see File.ResetStep) and reports what it
// removed.
func (s *Store) ResetStep(step int, stepID string) (Cleared, error) {
	var c Cleared
	err := s.UpdateIf(func(f *File) bool {
		c = f.ResetStep(step, stepID)
		return !c.Empty()
	})
	return c, err
}

// ResetAll forgets everything recorded for this lab root and returns what
// was there.
func (s *Store) ResetAll() (File, error) {
	var old File
	err := s.UpdateIf(func(f *File) bool {
		old = *f
		*f = s.empty()
		return true
	})
	return old, err
}

// Reset clears progress and witnessed facts: of one step when step > 0
// (its witness keys are those prefixed by keyPrefix), or all.
func (s *Store) Reset(step int, keyPrefixes []string) error {
	return s.Update(func(f *File) {
		if step <= 0 {
			*f = s.empty()
			return
		}
		delete(f.Progress.PassedAt, step)
		delete(f.Progress.CaughtUpAt, step)
		delete(f.Progress.HintsSeen, step)
		delete(f.Progress.SolutionSeen, step)
		for k := range f.Witness.Facts {
			for _, p := range keyPrefixes {
				if len(k) >= len(p) && k[:len(p)] == p {
					delete(f.Witness.Facts, k)
				}
			}
		}
	})
}

func (s *Store) empty() File {
	return File{Version: Version, Lab: s.lab, Root: s.root, LabVersion: s.version, Steps: s.steps}
}

// read reads the file; a missing one of a versioned lab starts from the
// version used before (OpenLab), renumbered by step ID like a file whose
// recorded step numbers are not the lab's now.
func (s *Store) read() (File, error) {
	raw, err := readRegular(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		f := s.empty()
		if prev, ok := s.previous(); ok && s.version != "" {
			f.Progress, f.Witness, f.CarriedFrom = prev.Progress, prev.Witness, prev.LabVersion
			s.renumber(&f, prev.Steps)
		}
		return f, nil
	}
	if err != nil {
		return s.empty(), err
	}
	var f File
	if err := json.Unmarshal(raw, &f); err != nil || f.Version < 1 || f.Version > Version {
		reason := "unknown version"
		if err != nil {
			reason = err.Error()
		}
		aside := fmt.Sprintf("%s.damaged-%s", s.Path, time.Now().UTC().Format("20060102T150405Z"))
		if rerr := os.Rename(s.Path, aside); rerr != nil {
			return s.empty(), fmt.Errorf("%w (%s); could not move it aside: %v", ErrCorrupt, reason, rerr)
		}
		return s.empty(), fmt.Errorf("%w (%s); moved to %s", ErrCorrupt, reason, aside)
	}
	f.Lab, f.Root = s.lab, s.root
	s.renumber(&f, f.Steps)
	return f, nil
}

// write replaces the file atomically: a crash leaves either the old or the
// new content, never a torn one.
func (s *Store) write(f File) error {
	f.Version = Version
	if s.version != "" {
		f.LabVersion = s.version
	}
	if len(s.steps) > 0 {
		f.Steps = s.steps
	}
	raw, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := lockfile.WriteAtomic(s.Path, append(raw, '\n'), 0o600); err != nil {
		return err
	}
	s.sweepTemps(dir)
	return nil
}

// sweepTemps removes temp files that a crashed writer left behind. Only
// old ones: a temp file of a live writer is at most milliseconds old, and
// writers hold the lock anyway.
func (s *Store) sweepTemps(dir string) {
	olds, _ := filepath.Glob(filepath.Join(dir, "."+filepath.Base(s.Path)+".*.tmp"))
	for _, p := range olds {
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > time.Minute {
			_ = os.Remove(p)
		}
	}
}

// locked runs fn holding the exclusive lock on a file beside the state.
func (s *Store) locked(fn func() error) error {
	unlock, err := lockfile.Lock(context.Background(), s.Path+".lock", lockfile.Options{})
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// maxStateSize caps what is read: a state file is a few kilobytes; a
// larger one is treated as damaged.
const maxStateSize = 4 << 20

// readRegular reads the state file without ever blocking on a FIFO.
func readRegular(path string) ([]byte, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxStateSize))
}
