package factory

import (
	"errors"
	"os"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/state"
)

func (f *Factory) State() (*cli.State, error) {
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
	s := &cli.State{Kit: kit, Lab: lab, Root: root, Place: labroot.Look(where)}
	// With no directory at all (no home), OpenLab says why.
	dir, _ := f.StateDir()
	if s.Store, err = state.OpenLab(dir, cli.StateLab(lab), root); err == nil {
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

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (f *Factory) Session(lenient cli.Lenient) (*cli.Session, error) {
	if f.session != nil {
		return f.session, nil
	}
	st, err := f.State()
	if err != nil {
		return nil, err
	}
	run, err := f.NewRun(st, lenient)
	if err != nil {
		return nil, err
	}
	s := cli.NewSession(st, run, f.version, f.Learner)
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

func (f *Factory) NewRun(st *cli.State, lenient cli.Lenient) (*labrun.Run, error) {
	// The lab cluster is opened only for a lab that watches something
	// there; --no-cluster says the cluster is off all the same.
	var cluster kube.Target
	if f.cluster.NoCluster || !st.Kit.Scope.Empty() {
		cluster = f.Cluster()
	}
	// Steps passed or caught up before are no first passes now.
	passed := st.File.Progress.Done()
	return labrun.New(labrun.Options{
		Lab: st.Lab, Steps: st.Kit.Steps, Scope: st.Kit.Scope, Root: st.Root, Poll: f.labs.Poll,
		Cluster: cluster, Lenient: bool(lenient), Progress: st.Store, Witness: st.File.Witness, Passed: passed, Notices: st.Warnings,
	})
}
