package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// LabFlags are the flags that choose the lab and where the learner
// works on it, bound once on the root for every command. Only the flag
// parser writes them; a command that works on another lab (a picker's
// choice, an argument, the class's lab) asks the Factory for one
// (WithLab), never changes these.
type LabFlags struct {
	Root string // --root
	Lab  string // --lab: the lab the command works on (the last one given)
	// Labs are every --lab given, in order: the labs a class carries
	// (class init reads the flag as a list).
	Labs     []string
	LabDir   string // --lab-dir: a lab read from a directory (declarative checks only)
	StateDir string // --state-dir
	Log      string // --log
	Poll     bool   // --poll: poll the lab's files instead of file events
	// Config is the settings file (--config): the TUI's look and keys,
	// and the labs' roots ([roots]); "" for its default place.
	Config string
}

// AddFlags binds the lab flags as root's persistent flags.
func (l *LabFlags) AddFlags(root *cobra.Command) {
	fs := root.PersistentFlags()
	fs.StringVar(&l.Root, "root", "", content.Msg("cli.flag.root", "roots", LabFacts(catalog.DefaultShown)))
	fs.BoolVar(&l.Poll, "poll", false, content.Msg("cli.flag.poll"))
	fs.StringVar(&l.Log, "log", "", content.Msg("cli.flag.log"))
	fs.StringVar(&l.StateDir, "state-dir", "", content.Msg("cli.flag.state_dir"))
	fs.Var(labValue{&l.Lab, &l.Labs}, "lab", content.Msg("cli.flag.lab"))
	fs.StringVar(&l.LabDir, "lab-dir", "", content.Msg("cli.flag.lab_dir"))
	fs.StringVar(&l.Config, "config", "", content.Msg("cli.flag.config"))
	Metavars(fs, map[string]string{"root": "DIR", "log": "FILE", "state-dir": "DIR", "lab": "ID", "lab-dir": "DIR", "config": "FILE"})
	_ = root.MarkPersistentFlagDirname("lab-dir")
	_ = root.MarkPersistentFlagDirname("root")
	_ = root.MarkPersistentFlagDirname("state-dir")
	_ = root.MarkPersistentFlagFilename("log")
	_ = root.MarkPersistentFlagFilename("config", "toml")
	_ = root.RegisterFlagCompletionFunc("lab", CompleteLabs)
}

// labValue is --lab: a string flag (the last value names the lab) that
// keeps every value given as well.
type labValue struct {
	last *string
	all  *[]string
}

func (v labValue) String() string {
	if v.last == nil {
		return ""
	}
	return *v.last
}

func (v labValue) Set(s string) error {
	*v.last = s
	*v.all = append(*v.all, s)
	return nil
}

func (v labValue) Type() string { return "string" }

// ClusterFlags choose the lab cluster as kubectl's flags do
// (genericclioptions.ConfigFlags), bound once on the root. Only the flag
// parser writes them.
type ClusterFlags struct {
	Kubeconfig string // --kubeconfig
	Context    string // --context
	NoCluster  bool   // --no-cluster
}

// AddFlags binds the cluster flags as root's persistent flags.
func (c *ClusterFlags) AddFlags(root *cobra.Command) {
	fs := root.PersistentFlags()
	fs.StringVar(&c.Kubeconfig, "kubeconfig", "", content.Msg("cli.flag.kubeconfig"))
	fs.StringVar(&c.Context, "context", "", content.Msg("cli.flag.context"))
	fs.BoolVar(&c.NoCluster, "no-cluster", false, content.Msg("cli.flag.no_cluster"))
	Metavars(fs, map[string]string{"kubeconfig": "FILE", "context": "NAME"})
	_ = root.MarkPersistentFlagFilename("kubeconfig")
	_ = root.RegisterFlagCompletionFunc("context", c.completeContexts)
}

// Options are the kubeconfig loading options the flags name.
func (c ClusterFlags) Options() kube.Options {
	return kube.Options{Path: c.Kubeconfig, Context: c.Context}
}

// Named reports whether the flags name a kubeconfig or a context: then
// one that cannot be used is an error, never a cluster that is off.
func (c ClusterFlags) Named() bool { return c.Kubeconfig != "" || c.Context != "" }

// completeContexts lists the contexts of the kubeconfig labmate would
// use.
func (c *ClusterFlags) completeContexts(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	names, err := kube.Contexts(kube.Options{Path: c.Kubeconfig})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// ClassFlags are a learner's class flags (the TUI, check, class
// preview).
type ClassFlags struct {
	File string // --class: the learner's class kubeconfig
	Name string // --class-name: the name shown on the board
}

// AddFlags binds the class flags.
func (c *ClassFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.File, "class", "", content.Msg("class.flag.class"))
	fs.StringVar(&c.Name, "class-name", "", content.Msg("class.flag.class_name"))
}

// Reads marks the root's persistent flag name as one cmd reads with a
// meaning of its own (the instructor's --kubeconfig, the labs of a
// class's --lab): the flag is bound once, on the root, and no command
// binds another of its name (docs/wiring_test.go); cmd's help lists it
// among cmd's own flags, worded usage, its value named metavar (""
// names it by its type).
func Reads(cmd *cobra.Command, name, usage, metavar string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[readsKey+name] = usage + "\x00" + metavar
}

const readsKey = "labmate_reads:"

// FlagUsage is f's usage as cmd's help and completion word it: cmd's own
// wording of a root flag it reads (Reads), else the flag's.
func FlagUsage(cmd *cobra.Command, f *pflag.Flag) string {
	if usage, _, ok := readsOf(cmd, f); ok {
		return usage
	}
	return f.Usage
}

// wordReadFlags gives the root's flags cmd reads (Reads) cmd's wording,
// for the completion of flag names (cobra describes a flag by its Usage):
// a command line runs one command, whose words they then are.
func wordReadFlags(cmd *cobra.Command) {
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if usage, _, ok := readsOf(cmd, f); ok {
			f.Usage = usage
		}
	})
}

// readsOf is how cmd words the root's flag f it reads (Reads), ok false
// when it gives f no meaning of its own.
func readsOf(cmd *cobra.Command, f *pflag.Flag) (usage, metavar string, ok bool) {
	v, ok := cmd.Annotations[readsKey+f.Name]
	if !ok {
		return "", "", false
	}
	usage, metavar, _ = strings.Cut(v, "\x00")
	return usage, metavar, true
}

// CompleteLabs lists what --lab and a lab argument complete to.
func CompleteLabs(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	labs, _ := catalog.List() // a completion has nowhere to say the store is unreadable
	for _, l := range labs {
		out = append(out, cobra.CompletionWithDesc(l.Ref, l.Text.Title))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
