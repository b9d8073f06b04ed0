package cli

import (
	"context"
	"errors"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/trace"
)

// Factory is what every command gets what it works on from (kubectl's
// cmdutil.Factory): the lab the flags name, the learner's state for it,
// a run of it, the lab cluster, the instructor's and a learner's class
// connections, the prompter. It is built once from the flag groups the
// root binds, which it only reads; each thing is made the first time it
// is asked for and kept. A command that works on another lab than the
// flags name (the picker's choice, an argument, the class's lab) asks
// for a Factory of that lab (WithLab), which shares the connections and
// the log. Its default construction is package cli/factory; tests get
// one from clitest.NewTestFactory (fake connections, a lab from a
// directory, a state in a temporary directory, captured streams). Not
// safe for concurrent use: commands ask for what they need before they
// start anything.
type Factory interface {
	// Lab is the lab the command works on (catalog.Resolve: --lab-dir,
	// --lab, $LABMATE_LAB, the lab chosen for the root, the root),
	// compiled once. Its error is Korean, or a *catalog.Choose when
	// nothing says which of several labs.
	Lab() (*labkit.Lab, error)
	// LabDir is the directory the lab is read from ("" for an installed
	// or built-in lab).
	LabDir() string
	// Notices are what choosing the lab had to say (Korean): the class's
	// lab fetched, the store unreadable.
	Notices() []string
	// RememberLab keeps the lab for this root, as it was named, so the
	// next `labmate` opens it without asking.
	RememberLab()
	// RootFor is the lab root a command works in and where it was
	// chosen (catalog.Query.RootOf).
	RootFor(lab *content.Lab) (labroot.Root, error)
	// Flags are the shared flags as the command line set them.
	Flags() (LabFlags, ClusterFlags)

	// WithLab is a factory of the lab ref names (an installed lab's ID
	// or reference, catalog's grammar) in place of what the flags name.
	WithLab(ref string) Factory
	// WithLabDir is a factory of the lab in dir in place of what the
	// flags name.
	WithLabDir(dir string) Factory
	// ForClass is the factory of a --class run: when the learner named
	// no lab (--lab, --lab-dir), the class's lab: fetched and checked,
	// installed and opened from the store (classlab.Use), or the
	// built-in lab the class names. A class that names no lab, or a
	// class file that cannot be used (the session's Join says why),
	// changes nothing; a class cluster that does not answer, with no
	// copy of its lab installed before, adds a notice. Its error
	// (Korean) ends the run: the class's lab was refused and none was
	// installed before.
	ForClass(ctx context.Context, file string) (Factory, error)
	// ClassLabNotes watches the class's lab this factory opened (nil
	// without one): each new version installed, or refused.
	ClassLabNotes(ctx context.Context, file string) <-chan classlab.LabNote
	// Trace reads a trace and the lab it was recorded on: "reference" is
	// the reference run of the factory's lab; a file names its lab in
	// its header. Its errors are Korean.
	Trace(name string) (*trace.Trace, *labkit.Lab, error)

	// State opens the learner's state for the factory's lab: for
	// commands that read or change progress and nothing else (reset):
	// no run, so no cluster is reached and no start file is laid out.
	State() (*State, error)
	// Session wires the live run of the factory's lab, once: the
	// learner's state, the lab's start files laid out where nothing is
	// yet, the file source, the script prober and the cluster source on
	// the lab cluster (Cluster). Its errors are Korean.
	Session(lenient Lenient) (*Session, error)
	// NewRun wires a live run of st's lab as Session does, a new one
	// each call and apart from the Session's: catch-up judges on a run
	// of its own (PlanCatchUp), which the TUI plans while its session
	// runs.
	NewRun(st *State, lenient Lenient) (*labrun.Run, error)
	// Replay wires a run of kit over a recorded trace: nothing of it
	// touches the learner's files, state or cluster.
	Replay(kit *labkit.Lab, tr *trace.Trace, o trace.ReplayOptions) *labrun.Run

	// Cluster is the lab cluster the cluster flags name (kube.Target):
	// off with --no-cluster, else the connection, made once per command
	// line, or why there is none.
	Cluster() kube.Target
	// Sandbox is a connection to a sandbox labmate made, from its own
	// kubeconfig alone (sandbox.Kubeconfig): a proof's lanes. A new one
	// each call, keeping nothing: safe from any goroutine.
	Sandbox(kubeconfig string) kube.Target
	// Admin is the instructor's connection to the class cluster, from
	// the same flags (--kubeconfig, --context: kubectl's rules, then the
	// sandbox's kubeconfig), or, with kubeconfig set, from that file
	// alone (class init --sandbox). Its error is the loader's.
	Admin(kubeconfig string) (kube.Conn, error)
	// Learner is the learner's class kubeconfig at file, opened once.
	Learner(file string) (*learner.Learner, error)

	// Prompter asks the learner on the terminal (the lab picker, a yes
	// before a change).
	Prompter() Prompter
	// StateDir is where labmate keeps the learner's state: --state-dir,
	// or the XDG state directory. Every file labmate keeps there
	// (progress, the lab chosen per root, stderr.log) is under it.
	StateDir() (string, error)
	// LogFile is the open --log file (nil without one).
	LogFile() *os.File
	// Version is labmate's version.
	Version() string
}

// LabArg is the factory of the lab a command's [ID|DIR] argument names,
// or f itself when there is none.
func LabArg(f Factory, args []string) Factory {
	if len(args) != 1 {
		return f
	}
	ref, dir := catalog.Arg(args[0])
	if dir != "" {
		return f.WithLabDir(dir)
	}
	return f.WithLab(ref)
}

// Prompter asks the learner something on the terminal (gh's
// prompter.Prompter): a command is handed one by its factory and asks
// in Run, never in Complete, so a test drives a command that asks with
// a fake.
type Prompter interface {
	// PickLab shows the labs and returns the reference of the one the
	// learner opens; ErrNoChoice when they left without choosing,
	// ErrNoTerminal when labmate runs on no terminal to ask on. theme
	// is the learner's --theme.
	PickLab(ctx context.Context, labs []catalog.Lab, theme string) (string, error)
	// Confirm asks question (Korean, ending in "[y/N] ") before a
	// change: nil for yes, ErrNotConfirmed for no, and, with no answer
	// to read, an Exit of ExitFail naming yesFlag, the flag that answers
	// yes instead (ConfirmOn).
	Confirm(question, yesFlag string) error
}

var (
	// ErrNoChoice is a Prompter's answer when the learner left without
	// choosing.
	ErrNoChoice = errors.New("no lab chosen")
	// ErrNoTerminal is a Prompter's answer when there is no terminal to
	// ask on.
	ErrNoTerminal = errors.New("not a terminal")
)

// PickLab is f, or, when nothing says which of several labs the command
// works on and the learner can be asked, the factory of the lab they
// pick (p). An error ends the command: the learner left the picker
// (ExitOK, said nothing), or it could not run (ExitFail).
func PickLab(ctx context.Context, f Factory, p Prompter, theme string) (Factory, error) {
	_, err := f.Lab()
	ch, choose := catalog.IsChoose(err)
	if !choose {
		return f, nil
	}
	ref, err := p.PickLab(ctx, ch.Labs, theme)
	switch {
	case errors.Is(err, ErrNoTerminal):
		return f, nil // the command says how to choose
	case errors.Is(err, ErrNoChoice):
		return nil, Quiet(ExitOK)
	case err != nil:
		return nil, Exit(ExitFail, content.Msg("cli.tui_failed", "err", err))
	}
	return f.WithLab(ref), nil
}

// StatePath is where the learner's state for lab and root is kept under
// dir ("" when it cannot be opened).
func StatePath(f Factory, lab *content.Lab, root string) string {
	dir, err := f.StateDir()
	if err != nil {
		return ""
	}
	return statePath(dir, lab, root)
}

// CompleteSteps lists the steps of the lab the command would open.
func CompleteSteps(f Factory) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		kit, err := f.Lab()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, s := range kit.Text.Steps {
			out = append(out, cobra.CompletionWithDesc(strconv.Itoa(s.Number), s.Title))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// CompleteTraces offers the built-in reference run; files complete as
// files.
func CompleteTraces(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return []cobra.Completion{cobra.CompletionWithDesc(trace.ReferenceName, content.Msg("cli.complete.reference"))}, cobra.ShellCompDirectiveDefault
}
