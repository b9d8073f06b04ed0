package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/catchup"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/state"
)

// State is the learner's state for a factory's lab: the lab, its root
// and what labmate keeps of the learner's progress there.
type State struct {
	Kit  *labkit.Lab
	Lab  *content.Lab
	Root string
	// Place is the root as it was when the state was opened: a root the
	// learner cannot work in yet is said by the run's first answer
	// (check, report) and by the TUI's own note.
	Place labroot.Place
	// Store keeps the progress; nil when the state can be neither read
	// nor created (progress is then kept for this run only).
	Store *state.Store
	File  state.File
	// Warnings are Korean lines to show but not fail on (a damaged state
	// file moved aside, progress carried from another version).
	Warnings []string
}

// StateLab is the lab as the learner's state keys it: its ID, version
// and step IDs, so progress of two versions never mixes.
func StateLab(l *content.Lab) state.Lab {
	steps := map[int]string{}
	for _, s := range l.Steps {
		steps[s.Number] = s.ID
	}
	return state.Lab{ID: l.ID, Version: l.Version, Steps: steps}
}

// statePath is where the state for lab and root is kept under dir.
func statePath(dir string, lab *content.Lab, root string) string {
	st, err := state.OpenLab(dir, StateLab(lab), root)
	if err != nil {
		return ""
	}
	return st.Path
}

// Lenient says how a session takes a kubeconfig that cannot be used:
// as a warning, the file steps working on (the TUI), or as the end of
// the command (scripts).
type Lenient bool

// Session is the live run of a factory's lab on the learner's root,
// with the learner's state: what the TUI, check, report and class
// preview consume.
type Session struct {
	*State
	Run *labrun.Run
	// Warnings are the state's, the run's own (files polled, start files
	// laid out, a cluster that cannot be reached as configured) and the
	// lab's notices: Korean, shown, never failed on.
	Warnings []string

	version string
	learner func(file string) (*learner.Learner, error)
}

// NewSession is the session of st's lab running as run: the factory's
// Session makes it, with labmate's version (what records it) and the
// factory's Learner (the class a session joins).
func NewSession(st *State, run *labrun.Run, version string, learner func(string) (*learner.Learner, error)) *Session {
	return &Session{State: st, Run: run, Warnings: run.Warnings(), version: version, learner: learner}
}

// Notice is a Korean notice for the learner: shown by the TUI, and said
// among the problems of the run's first answer when it comes before the
// run starts.
func (s *Session) Notice(msg string) {
	s.Warnings = append(s.Warnings, msg)
	s.Run.Notice(msg)
}

// Record starts recording the run to path ("" records nothing); its
// error is Korean.
func (s *Session) Record(path string) error {
	if path == "" {
		return nil
	}
	return s.Run.Record(path, s.version)
}

// Stop ends the run; its error says that the trace it recorded to path
// could not be written whole (Korean).
func (s *Session) Stop(path string) error {
	if err := s.Run.Stop(); err != nil {
		return errors.New(content.Msg("cli.record_failed", "path", path, "err", err))
	}
	return nil
}

// Identity is who the session publishes as: learner (the class file's
// slot; Join fills it in), the name the learner chose, the lab.
func (s *Session) Identity(learnerID, name string) class.Identity {
	return class.Identity{Learner: learnerID, Name: name, Lab: s.Lab.ID, LabVersion: s.Lab.Version, Labmate: s.version}
}

// Join starts publishing the session to the class of a --class
// kubeconfig (learner.Join). A file that cannot be used is a notice,
// never the end of the lab: the lab goes on without a class.
func (s *Session) Join(ctx context.Context, c ClassFlags, page bool) *learner.Publisher {
	if c.File == "" {
		return nil
	}
	bad := func(err error) *learner.Publisher {
		s.Notice(content.Msg("class.cli.class_file", "path", c.File, "err", learner.Explain(err)))
		return nil
	}
	l, err := s.learner(c.File)
	if err != nil {
		return bad(err)
	}
	pub, err := learner.Join(ctx, learner.JoinConfig{Learner: l, Identity: s.Identity("", c.Name),
		Progress: s.File.Progress, Page: page, Tap: s.Run.Tap, Lab: s.Lab, Hands: page, Store: s.Store})
	if err != nil {
		return bad(err)
	}
	return pub
}

// PublishOnce sends one evaluation to the class (`check --class` without
// --watch), waiting at most learner.PublishWait for it to land; what
// kept it from landing is said on stderr as a notice and never changes
// check's exit code. once publishes; it is handed the publisher and its
// context.
func (s *Session) PublishOnce(ctx context.Context, c ClassFlags, stderr io.Writer, once func(context.Context, *learner.Publisher) error) {
	ctx, cancel := context.WithTimeout(ctx, learner.PublishWait)
	defer cancel()
	pub := s.Join(ctx, c, false)
	if pub == nil {
		for _, w := range s.Warnings {
			if strings.Contains(w, c.File) {
				fmt.Fprintln(stderr, w)
			}
		}
		return
	}
	if err := once(ctx, pub); err != nil {
		fmt.Fprintln(stderr, err)
	}
}

// PlanCatchUp plans the catch-up of st's lab to step `to`
// (labkit/catchup.New) on a run of its own (NewRun), with the learner's
// progress and the lab cluster the flags name: `labmate catch-up` and
// the TUI's catch-up key make their plan here, so both show, refuse and
// do the same. It changes nothing; Close the plan when done. caughtUp,
// if set, hears each step caught up (catchup.Options.CaughtUp).
func PlanCatchUp(ctx context.Context, f Factory, st *State, to int, caughtUp func(step int)) (*catchup.Plan, error) {
	run, err := f.NewRun(st, false)
	if err != nil {
		return nil, err
	}
	p, err := catchup.New(ctx, catchup.Options{Kit: st.Kit, Root: st.Root, Run: run, Cluster: f.Cluster(), Progress: st.Store, To: to, CaughtUp: caughtUp})
	if err != nil {
		// New stops the run of a plan it made; one refused before
		// (a step without a reference) never started it.
		_ = run.Stop()
		return nil, err
	}
	return p, nil
}
