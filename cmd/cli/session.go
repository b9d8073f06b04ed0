package cli

import (
	"errors"
	"os"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/state"
)

// State is the learner's state for the factory's lab: the lab, its root
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

// State opens the learner's state for the lab the factory names: for
// commands that read or change progress and nothing else (reset), no
// run, so no cluster is reached and no start file is laid out.
func (f *Factory) State() (*State, error) {
	kit, err := f.Lab()
	if err != nil {
		return nil, err
	}
	lab := kit.Text
	where, err := f.RootFor(lab)
	if err != nil {
		named := f.labs.Root
		if named == "" {
			named = lab.DefaultRoot
		}
		return nil, errors.New(content.Msg("cli.root_bad", "root", named, "err", err))
	}
	root := where.Path
	if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
		return nil, errors.New(content.Msg("cli.root_not_dir", "root", root))
	}
	s := &State{Kit: kit, Lab: lab, Root: root, Place: labroot.Look(where)}
	if s.Store, err = state.OpenLab(f.labs.StateDir, StateLab(lab), root); err == nil {
		s.File, err = s.Store.Load()
		switch {
		case errors.Is(err, state.ErrCorrupt):
			s.Warnings = append(s.Warnings, content.Msg("cli.state_damaged", "err", err))
		case err != nil:
			// Cannot even read or create it: remember progress for
			// this run only, instead of failing every write.
			s.Store = nil
			s.Warnings = append(s.Warnings, content.Msg("cli.state_unavailable", "err", err))
		}
	} else {
		s.Warnings = append(s.Warnings, content.Msg("cli.state_unavailable", "err", err))
	}
	if st := s.File; st.CarriedFrom != "" && s.Store != nil && !exists(s.Store.Path) {
		// The first run of a new version: say what came along.
		s.Warnings = append(s.Warnings, content.Msg("cli.state_carried", "lab", lab.ID, "from", st.CarriedFrom,
			"to", lab.Version, "passed", len(st.Progress.PassedAt)))
	}
	return s, nil
}

// StatePath is where the learner's state for lab and root is kept ("" when
// it cannot be opened).
func (f *Factory) StatePath(lab *content.Lab, root string) string {
	st, err := state.OpenLab(f.labs.StateDir, StateLab(lab), root)
	if err != nil {
		return ""
	}
	return st.Path
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

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Session is the live run of the factory's lab on the learner's root,
// with the learner's state: what the TUI, check, report and class
// preview consume.
type Session struct {
	*State
	Run *labrun.Run
	// Warnings are the state's, the run's own (files polled, start files
	// laid out, a cluster that cannot be reached as configured) and the
	// lab's notices: Korean, shown, never failed on.
	Warnings []string

	f *Factory
}

// Lenient says how a session takes a kubeconfig that cannot be used:
// as a warning, the file steps working on (the TUI), or as the end of
// the command (scripts).
type Lenient bool

// Session wires the live run of the factory's lab, once: the learner's
// state, the lab's start files laid out where nothing is yet, the file
// source, the script prober and the cluster source on the factory's
// connection. Its errors are Korean.
func (f *Factory) Session(lenient Lenient) (*Session, error) {
	if f.session != nil {
		return f.session, nil
	}
	st, err := f.State()
	if err != nil {
		return nil, err
	}
	cl, warning, err := f.runCluster(st.Kit, lenient)
	if err != nil {
		return nil, err
	}
	// Steps passed or caught up before are no first passes now.
	passed := st.File.Progress.Done()
	run, err := labrun.New(labrun.Options{
		Lab: st.Lab, Steps: st.Kit.Steps, Scope: st.Kit.Scope, Root: st.Root, Poll: f.labs.Poll,
		Cluster: cl, Progress: st.Store, Witness: st.File.Witness, Passed: passed, Notices: st.Warnings,
	})
	if err != nil {
		return nil, err
	}
	if warning != "" {
		run.Notice(warning)
	}
	s := &Session{State: st, Run: run, Warnings: run.Warnings(), f: f}
	for _, n := range f.notices {
		s.Notice(n)
	}
	// Where the files go, when the learner cannot work there yet: the
	// first answer's (check, report); the TUI says it in its own note
	// (State.Place), so it is not among the warnings it lists.
	if say := st.Place.Say(); say != "" {
		run.Notice(say)
	}
	f.session = s
	return s, nil
}

// runCluster is how the run reaches the lab cluster: not at all with
// --no-cluster or a lab that watches nothing there; with no kubeconfig
// anywhere (none named) as a cluster that is off; a kubeconfig that
// cannot be used is an error, or with lenient a warning and no cluster
// source.
func (f *Factory) runCluster(kit *labkit.Lab, lenient Lenient) (cl labrun.Cluster, warning string, err error) {
	switch {
	case f.cluster.NoCluster:
		return labrun.Cluster{Mode: labrun.ClusterOff}, "", nil
	case kit.Scope.Empty():
		return labrun.Cluster{Mode: labrun.ClusterNone}, "", nil
	}
	conn, err := f.Cluster()
	switch {
	case err == nil:
		return labrun.Cluster{Mode: labrun.ClusterAuto, Conn: conn}, "", nil
	case kube.IsMissing(err) && !f.cluster.named():
		return labrun.Cluster{Mode: labrun.ClusterAuto}, "", nil
	}
	msg := content.Msg("cli.kubeconfig_bad", "err", kube.Explain(err))
	if lenient {
		return labrun.Cluster{Mode: labrun.ClusterNone}, msg, nil
	}
	return labrun.Cluster{}, "", errors.New(msg)
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
	return s.Run.Record(path, s.f.version)
}

// Stop ends the run; its error says that the trace it recorded to path
// could not be written whole (Korean).
func (s *Session) Stop(path string) error {
	if err := s.Run.Stop(); err != nil {
		return errors.New(content.Msg("cli.record_failed", "path", path, "err", err))
	}
	return nil
}
