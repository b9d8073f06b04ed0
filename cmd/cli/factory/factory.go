// Package factory is the default construction of the command line's
// factory (gh's pkg/cmd/factory beside its pkg/cmdutil.Factory): cli's
// Factory made from the flag groups the root binds, what it opens (the
// kubeconfig loader, the learner's and the instructor's class
// kubeconfigs) and the prompter (the TUI's lab picker) given as Deps, so
// that clitest.NewTestFactory swaps the ones that reach outside.
package factory

import (
	"errors"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/applog"
	"github.com/labhub/labmate/internal/dirs"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/trace"
)

// Deps are what the factory reaches outside labmate with: the defaults
// (Default) open real connections and ask on the terminal; a test's open
// fakes (clitest).
type Deps struct {
	// Open connects with a kubeconfig (kube.Open): the lab cluster's,
	// the instructor's, a learner's class file.
	Open func(kube.Options) (kube.Conn, error)
	// Prompter asks the learner (the lab picker).
	Prompter cli.Prompter
	// StateHome is the state directory when --state-dir names none
	// (dirs.State).
	StateHome func() (string, error)
}

// Default are the dependencies of the labmate binary: kube.Open, the
// TUI's lab picker on streams, the XDG state directory.
func Default(streams cli.Streams) Deps {
	return Deps{Open: kube.Open, Prompter: picker{streams: streams}, StateHome: dirs.State}
}

// Factory is cli.Factory built from the flag groups (New).
type Factory struct {
	labs    *cli.LabFlags
	cluster *cli.ClusterFlags
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

	session *cli.Session
}

var _ cli.Factory = (*Factory)(nil)

// invocation is what one command line shares across the factories of
// its labs: which command runs, the --log file, the connections.
type invocation struct {
	deps      Deps
	cmdPath   string
	log       *os.File
	logOpened bool

	conn     kube.Conn
	connErr  error
	connDone bool

	learners map[string]learnerConn
}

type learnerConn struct {
	l   *learner.Learner
	err error
}

// New is the factory of the flag groups labs and cluster, which the
// root binds (AddFlags); version is labmate's, for what records it.
func New(labs *cli.LabFlags, cluster *cli.ClusterFlags, version string, deps Deps) *Factory {
	return &Factory{labs: labs, cluster: cluster, version: version,
		inv: &invocation{deps: deps, learners: map[string]learnerConn{}}}
}

// Begin runs before every command (the root's PersistentPreRunE): it
// notes the command being run, for messages that suggest a command
// line, and opens the --log file, where slog and klog write (and so the
// client's own words behind a Korean message).
func (f *Factory) Begin(cmd *cobra.Command, _ []string) error {
	f.inv.cmdPath = cli.CommandLine(cmd, "lab", "lab-dir")
	if err := f.openLog(); err != nil {
		return cli.Exit(cli.ExitUsage, err.Error())
	}
	return nil
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

func (f *Factory) LogFile() *os.File                       { return f.inv.log }
func (f *Factory) Version() string                         { return f.version }
func (f *Factory) Prompter() cli.Prompter                  { return f.inv.deps.Prompter }
func (f *Factory) Flags() (cli.LabFlags, cli.ClusterFlags) { return *f.labs, *f.cluster }

func (f *Factory) StateDir() (string, error) {
	if f.labs.StateDir != "" {
		return f.labs.StateDir, nil
	}
	return f.inv.deps.StateHome()
}

// of is a factory of the lab ref or dir names in place of the flags',
// sharing f's command line.
func (f *Factory) of(ref, dir string) *Factory {
	return &Factory{labs: f.labs, cluster: f.cluster, version: f.version, inv: f.inv, lab: ref, labDir: dir, override: true}
}

func (f *Factory) WithLab(ref string) cli.Factory    { return f.of(ref, "") }
func (f *Factory) WithLabDir(dir string) cli.Factory { return f.of("", dir) }

// names is the lab the factory names: --lab and --lab-dir, or the
// override.
func (f *Factory) names() (ref, dir string) {
	if f.override {
		return f.lab, f.labDir
	}
	return f.labs.Lab, f.labs.LabDir
}

func (f *Factory) LabDir() string {
	_, dir := f.names()
	return dir
}

// query is what the flags say of the lab to open, for the catalog.
func (f *Factory) query() catalog.Query {
	ref, dir := f.names()
	stateDir, _ := f.StateDir()
	return catalog.Query{Lab: ref, Dir: dir, Root: f.labs.Root, Config: f.labs.Config, StateDir: stateDir, Command: f.inv.cmdPath}
}

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

func (f *Factory) Notices() []string { return slices.Clone(f.notices) }
func (f *Factory) RememberLab()      { catalog.Remember(f.query(), f.ref) }

func (f *Factory) RootFor(lab *content.Lab) (labroot.Root, error) {
	return f.query().RootOf(lab)
}

func (f *Factory) Cluster() kube.Target {
	if f.cluster.NoCluster {
		return kube.Target{Off: true}
	}
	inv := f.inv
	if !inv.connDone {
		inv.connDone = true
		inv.conn, inv.connErr = inv.deps.Open(f.cluster.Options())
	}
	return kube.Target{Named: f.cluster.Named(), Conn: inv.conn, Err: inv.connErr}
}

func (f *Factory) Sandbox(kubeconfig string) kube.Target {
	conn, err := f.inv.deps.Open(kube.Options{Path: kubeconfig, Only: true})
	return kube.Target{Named: true, Conn: conn, Err: err}
}

func (f *Factory) Replay(kit *labkit.Lab, tr *trace.Trace, o trace.ReplayOptions) *labrun.Run {
	return labrun.Replay(kit.Text, kit.Steps, tr, o)
}

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
