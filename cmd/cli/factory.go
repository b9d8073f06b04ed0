package cli

import (
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"mvdan.cc/sh/v3/syntax"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/applog"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/trace"
)

// Factory is what every command gets what it works on from (kubectl's
// cmdutil.Factory): the lab the flags name, the learner's state for it,
// a run of it, the connection to the lab cluster and a learner's class,
// each made the first time it is asked for and kept. It is built once
// from the flag groups, which it only reads. A command that works on
// another lab than the flags name (the picker's choice, an argument,
// the class's lab) asks for a Factory of that lab (WithLab), which
// shares the connections and the log. Not safe for concurrent use:
// commands ask for what they need before they start anything.
type Factory struct {
	labs    *LabFlags
	cluster *ClusterFlags
	version string
	// lab and labDir name the lab when set by WithLab or WithLabDir,
	// in place of the flags' --lab and --lab-dir.
	lab, labDir string
	override    bool
	inv         *invocation

	resolved bool
	kit      *labkit.Lab
	ref      string
	kitErr   error
	// notices are Korean lines the choice of lab had to say (the class's
	// lab fetched, the store unreadable); every run of it says them.
	notices []string
	// classLab is the class's lab this factory opens (ForClass).
	classLab *classlab.InstalledLab

	session *Session
}

// invocation is what one command line shares across the factories of
// its labs: which command runs, the --log file, the connections.
type invocation struct {
	cmdPath   string
	log       *os.File
	logOpened bool

	conn     *kube.Conn
	connErr  error
	connDone bool

	learners map[string]learnerConn
}

type learnerConn struct {
	l   *learner.Learner
	err error
}

// NewFactory is the factory of the flag groups labs and cluster, which
// the root binds (AddFlags); version is labmate's, for what records it.
func NewFactory(labs *LabFlags, cluster *ClusterFlags, version string) *Factory {
	return &Factory{labs: labs, cluster: cluster, version: version, inv: &invocation{learners: map[string]learnerConn{}}}
}

// Begin runs before every command (the root's PersistentPreRunE): it
// notes the command being run, for messages that suggest a command
// line, and opens the --log file, where slog and klog write (and so the
// client's own words behind a Korean message).
func (f *Factory) Begin(cmd *cobra.Command, _ []string) error {
	f.inv.cmdPath = CommandLine(cmd, "lab", "lab-dir")
	if err := f.openLog(); err != nil {
		return Exit(ExitUsage, err.Error())
	}
	return nil
}

// CommandLine is the command as it was run: its path and every flag the
// user gave, but the ones named in leave (what a suggestion replaces),
// shell-quoted, so that a line suggesting one more flag keeps the others
// (`labmate sandbox up --from FILE --sha256 X --lab ID`).
func CommandLine(cmd *cobra.Command, leave ...string) string {
	words := strings.Fields(cmd.CommandPath())
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if slices.Contains(leave, fl.Name) {
			return
		}
		name := "--" + fl.Name
		switch v := fl.Value.(type) {
		case pflag.SliceValue:
			for _, s := range v.GetSlice() {
				words = append(words, name, s)
			}
		default:
			switch {
			case fl.Value.Type() == "bool" && fl.Value.String() == "true":
				words = append(words, name)
			case fl.Value.Type() == "bool":
				words = append(words, name+"="+fl.Value.String())
			default:
				words = append(words, name, fl.Value.String())
			}
		}
	})
	for i, w := range words {
		if q, err := syntax.Quote(w, syntax.LangPOSIX); err == nil {
			words[i] = q
		}
	}
	return strings.Join(words, " ")
}

// Close closes the --log file; the process's end calls it.
func (f *Factory) Close() {
	if f.inv.log != nil {
		_ = f.inv.log.Close()
	}
}

func (f *Factory) openLog() error {
	if f.inv.logOpened {
		return nil
	}
	lf, err := applog.Open(f.labs.Log)
	if err != nil {
		return errors.New(content.Msg("cli.log_open", "path", f.labs.Log, "err", err))
	}
	f.inv.log, f.inv.logOpened = lf, true
	return nil
}

// LogFile is the open --log file (nil without one).
func (f *Factory) LogFile() *os.File { return f.inv.log }

// Version is labmate's version.
func (f *Factory) Version() string { return f.version }

// Flags are the lab flags and cluster flags, as the command line set
// them.
func (f *Factory) Flags() (LabFlags, ClusterFlags) { return *f.labs, *f.cluster }

// WithLab is a factory of the lab ref names (an installed lab's ID or
// reference, catalog's grammar) in place of what the flags name.
func (f *Factory) WithLab(ref string) *Factory {
	return &Factory{labs: f.labs, cluster: f.cluster, version: f.version, inv: f.inv, lab: ref, override: true}
}

// WithLabDir is a factory of the lab in dir in place of what the flags
// name.
func (f *Factory) WithLabDir(dir string) *Factory {
	return &Factory{labs: f.labs, cluster: f.cluster, version: f.version, inv: f.inv, labDir: dir, override: true}
}

// WithLabArg is a factory of the lab a command's [ID|DIR] argument
// names, or f itself when there is none.
func (f *Factory) WithLabArg(args []string) *Factory {
	if len(args) != 1 {
		return f
	}
	ref, dir := catalog.Arg(args[0])
	if dir != "" {
		return f.WithLabDir(dir)
	}
	return f.WithLab(ref)
}

// names is the lab the factory names: --lab and --lab-dir, or the
// override.
func (f *Factory) names() (ref, dir string) {
	if f.override {
		return f.lab, f.labDir
	}
	return f.labs.Lab, f.labs.LabDir
}

// LabDir is the directory the lab is read from ("" for an installed or
// built-in lab).
func (f *Factory) LabDir() string {
	_, dir := f.names()
	return dir
}

// query is what the flags say of the lab to open, for the catalog.
func (f *Factory) query() catalog.Query {
	ref, dir := f.names()
	return catalog.Query{Lab: ref, Dir: dir, Root: f.labs.Root, Config: f.labs.Config, StateDir: f.labs.StateDir, Command: f.inv.cmdPath}
}

// Lab is the lab the command works on (catalog.Resolve), compiled once.
// Its error is Korean, or a *catalog.Choose when nothing says which of
// several labs.
func (f *Factory) Lab() (*labkit.Lab, error) {
	if f.resolved {
		return f.kit, f.kitErr
	}
	f.resolved = true
	r, err := catalog.Resolve(f.query())
	if err != nil {
		f.kitErr = err
		return nil, err
	}
	if r.Notice != "" && !slices.Contains(f.notices, r.Notice) {
		f.notices = append(f.notices, r.Notice)
	}
	f.kit, f.ref = r.Kit, r.Ref
	return f.kit, nil
}

// Notices are what choosing the lab had to say (Korean).
func (f *Factory) Notices() []string { return slices.Clone(f.notices) }

// RememberLab keeps the lab for this root, as it was named, so the next
// `labmate` opens it without asking (the TUI).
func (f *Factory) RememberLab() { catalog.Remember(f.query(), f.ref) }

// RootFor is the lab root a command works in and where it was chosen
// (catalog.Query.RootOf).
func (f *Factory) RootFor(lab *content.Lab) (labroot.Root, error) {
	return f.query().RootOf(lab)
}

// Cluster is the connection to the lab cluster the cluster flags name
// (kube.Open: kubectl's rules, then the sandbox's kubeconfig), made
// once for the command line. Its error is a *kube.LoadError;
// kube.IsMissing says there is no kubeconfig at all.
func (f *Factory) Cluster() (*kube.Conn, error) {
	inv := f.inv
	if !inv.connDone {
		inv.connDone = true
		inv.conn, inv.connErr = kube.Open(f.cluster.Options())
	}
	return inv.conn, inv.connErr
}

// Learner is the learner's class kubeconfig at file, opened once
// (learner.Open).
func (f *Factory) Learner(file string) (*learner.Learner, error) {
	if c, ok := f.inv.learners[file]; ok {
		return c.l, c.err
	}
	l, err := learner.Open(file)
	f.inv.learners[file] = learnerConn{l, err}
	return l, err
}

// Replay wires a run of kit over a recorded trace: nothing of it
// touches the learner's files, state or cluster (labrun.Replay).
func (f *Factory) Replay(kit *labkit.Lab, tr *trace.Trace, o trace.ReplayOptions) *labrun.Run {
	return labrun.Replay(kit.Text, kit.Steps, tr, o)
}

// Trace reads a trace and the lab it was recorded on: "reference" is
// the reference run of the lab the command works on; a file names its
// lab in its header (the lab of --lab-dir when the IDs match, else an
// installed one). Its errors are Korean.
func (f *Factory) Trace(name string) (*trace.Trace, *labkit.Lab, error) {
	if name == trace.ReferenceName {
		kit, err := f.Lab()
		if err != nil {
			return nil, nil, err
		}
		tr, err := trace.ReferenceOf(kit.Text)
		if err != nil {
			return nil, nil, err
		}
		return tr, kit, nil
	}
	tr, err := trace.Open(name)
	if err != nil {
		return nil, nil, err
	}
	if f.LabDir() != "" {
		kit, err := f.Lab()
		if err != nil {
			return nil, nil, err
		}
		if kit.ID() == tr.Header.Lab {
			return tr, kit, nil
		}
	}
	// A store that cannot be read fails Open's own look-up, which says so.
	labs, _ := catalog.List()
	kit, err := catalog.Open(tr.Header.Lab, labs)
	if err != nil {
		return nil, nil, errors.New(content.Msg("cli.lab_missing", "lab", tr.Header.Lab, "err", err))
	}
	return tr, kit, nil
}
