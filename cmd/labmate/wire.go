package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/applog"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/state"
	"github.com/labhub/labmate/trace"
)

// common are the flags every lab-reading command takes, declared once as
// the root's persistent flags (bindPersistent).
type common struct {
	root       string
	kubeconfig string
	kubeCtx    string
	noCluster  bool
	poll       bool // --poll: poll the lab's files instead of file events
	logFile    string
	stateDir   string
	lab        string
	labDir     string // --lab-dir: a lab read from a directory (declarative checks only)
	// lenient turns an unusable kubeconfig into a warning (the TUI)
	// instead of an environment error (scripts).
	lenient bool
	// cmdPath is the command being run ("labmate check"), for messages
	// that suggest a command line.
	cmdPath string
	// log is the open --log file (nil without one), logOpened whether
	// openLog ran.
	log       *os.File
	logOpened bool
	// resolved is the lab resolveLab found, so a command that asks twice
	// (the TUI: the picker, then the wiring) compiles it once.
	resolved *labkit.Lab
	// ref is how the resolved lab was named ("gpu-incident",
	// "my-lab@installed"), "" for --lab-dir: what rememberLab keeps.
	ref string
	// classLab is the class's lab this run opens (--class, no lab
	// named; classlab.go), and notices what fetching it had to say.
	classLab *class.InstalledLab
	notices  []string
}

// setup is the wired-up program for one lab root: its run (sources,
// engine, report stream) and the learner's state.
type setup struct {
	lab   *content.Lab
	kit   *labkit.Lab
	root  string
	run   *labrun.Run
	store *state.Store
	state state.File
	// warnings are Korean messages to show but not fail on.
	warnings []string
	closeLog func()
	logFile  *os.File // the --log file, if any
}

// envError is a usage or environment problem: exit code 2.
type envError struct{ msg string }

func (e envError) Error() string { return e.msg }

// build wires the program for the lab the flags name: its state and
// its live run.
func (c *common) build() (*setup, error) {
	s, err := c.buildState()
	if err != nil {
		return nil, err
	}
	if err := c.buildRun(s); err != nil {
		return nil, err
	}
	for _, n := range c.notices {
		s.notice(n)
	}
	return s, nil
}

// notice is a Korean notice for the learner: shown by the TUI, and said
// among the problems of the run's first answer when it comes before the
// run starts.
func (s *setup) notice(msg string) {
	s.warnings = append(s.warnings, msg)
	s.run.Notice(msg)
}

// buildState opens only the learner's state for the lab the flags name,
// for commands that read or change progress and nothing else (reset):
// no run, so no cluster is reached and no start file is laid out.
// s.run is nil.
func (c *common) buildState() (*setup, error) {
	s := &setup{closeLog: func() {}}
	if err := c.openLog(); err != nil {
		return nil, err
	}
	if f := c.log; f != nil {
		s.logFile, s.closeLog = f, func() { f.Close() }
	}
	kit, err := c.resolveLab()
	if err != nil {
		return nil, err
	}
	if err := c.openState(s, kit); err != nil {
		return nil, err
	}
	return s, nil
}

// openState finds the lab root and opens the learner's state there.
func (c *common) openState(s *setup, kit *labkit.Lab) error {
	lab := kit.Text
	s.lab, s.kit = lab, kit
	root, err := c.rootFor(lab)
	if err != nil {
		return envError{content.Msg("cli.root_bad", "root", c.root, "err", err)}
	}
	if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
		return envError{content.Msg("cli.root_not_dir", "root", root)}
	}
	s.root = root

	if s.store, err = state.OpenLab(c.stateDir, stateLab(lab), root); err == nil {
		s.state, err = s.store.Load()
		switch {
		case errors.Is(err, state.ErrCorrupt):
			s.warnings = append(s.warnings, content.Msg("cli.state_damaged", "err", err))
		case err != nil:
			// Cannot even read or create it: remember progress for
			// this run only, instead of failing every write.
			s.store = nil
			s.warnings = append(s.warnings, content.Msg("cli.state_unavailable", "err", err))
		}
	} else {
		s.warnings = append(s.warnings, content.Msg("cli.state_unavailable", "err", err))
	}
	if f := s.state; f.CarriedFrom != "" && s.store != nil && !exists(s.store.Path) {
		// The first run of a new version: say what came along.
		s.warnings = append(s.warnings, content.Msg("cli.state_carried", "lab", lab.ID, "from", f.CarriedFrom,
			"to", lab.Version, "passed", len(f.Progress.PassedAt)))
	}
	return nil
}

// buildRun wires the live run of the lab whose state s holds.
func (c *common) buildRun(s *setup) error {
	lab, kit := s.lab, s.kit
	mode := labrun.ClusterAuto
	if c.noCluster {
		mode = labrun.ClusterOff
	}
	var err error
	s.run, err = labrun.New(labrun.Options{
		Lab: lab, Steps: kit.Steps, Scope: kit.Scope, Root: s.root, Poll: c.poll,
		Cluster:  labrun.Cluster{Mode: mode, Kubeconfig: c.kubeconfig, Context: c.kubeCtx, Lenient: c.lenient},
		Progress: s.store, Witness: s.state.Witness, Notices: s.warnings,
	})
	if err != nil {
		return envError{err.Error()}
	}
	s.warnings = s.run.Warnings()
	return nil
}

// replayRun wires a run of kit over a recorded trace: nothing of it
// touches the learner's files, state or cluster.
func replayRun(kit *labkit.Lab, tr *trace.Trace, opts trace.ReplayOptions) *labrun.Run {
	return labrun.Replay(kit.Text, kit.Steps, tr, opts)
}

// preRun runs before every command: it notes the command line's command
// and opens the --log file.
func (c *common) preRun(cmd *cobra.Command, _ []string) error {
	c.cmdPath = cmd.CommandPath()
	if err := c.openLog(); err != nil {
		return cli.Exit(cli.ExitUsage, err.Error())
	}
	return nil
}

// openLog opens the --log file, once per command line (every command
// does, before it runs): slog and klog write there, and so the client's
// own words behind a Korean message (kubeerr) are kept; without --log,
// nowhere.
func (c *common) openLog() error {
	if c.logOpened {
		return nil
	}
	f, err := applog.Open(c.logFile)
	if err != nil {
		return envError{content.Msg("cli.log_open", "path", c.logFile, "err", err)}
	}
	c.log, c.logOpened = f, true
	return nil
}

// exitFor prints an error that ends a command before it ran (a usage or
// environment problem, a lab to choose: each carries its Korean text)
// and returns its exit code.
func exitFor(err error, stderr io.Writer) int {
	fmt.Fprintln(stderr, err)
	return cli.ExitUsage
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// stateLab is the lab as the learner's state keys it: its ID, version
// and step IDs, so progress of two versions never mixes.
func stateLab(l *content.Lab) state.Lab {
	steps := map[int]string{}
	for _, s := range l.Steps {
		steps[s.Number] = s.ID
	}
	return state.Lab{ID: l.ID, Version: l.Version, Steps: steps}
}
