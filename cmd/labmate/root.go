package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/kubeconfig"
	"github.com/labhub/labmate/labkit"
)

// ioStreams are a command's standard streams, injected so that a test
// drives a command without a terminal (kubectl's genericiooptions.IOStreams).
type ioStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// exitCode is what a command's Run returns through cobra: the process's
// exit code, after the command printed whatever explains it.
type exitCode int

func (e exitCode) Error() string { return "exit " + strconv.Itoa(int(e)) }

// codeErr turns a Run result into cobra's error return.
func codeErr(code int) error {
	if code == exitOK {
		return nil
	}
	return exitCode(code)
}

// usageError is a bad command line: its Korean message, then the usage
// line of the command it concerns; exit code 2.
type usageError struct {
	cmd *cobra.Command
	msg string
}

func (e *usageError) Error() string { return e.msg }

// execute runs the command tree on args and maps the outcome to an exit
// code, printing usage errors in Korean.
func execute(root *cobra.Command, args []string, streams ioStreams) int {
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	var code exitCode
	var ue *usageError
	var ee exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &ee):
		// a command's own Korean refusal with its exit code (class)
		fmt.Fprintln(streams.ErrOut, ee.msg)
		return ee.code
	case errors.As(err, &ue):
		cmd = ue.cmd
	default:
		// cobra's own refusals (its text is English): name the command line.
		ue = &usageError{cmd: cmd, msg: content.Msg("cli.bad_args", "args", strings.Join(args, " "))}
	}
	if cmd == nil {
		cmd = root
	}
	fmt.Fprintln(streams.ErrOut, ue.msg)
	fmt.Fprintln(streams.ErrOut, content.Msg("cli.help.usage_line", "line", useLine(cmd)))
	fmt.Fprintln(streams.ErrOut, content.Msg("cli.help.more", "cmd", cmd.CommandPath()))
	return exitUsage
}

// newRootCmd builds the whole command tree. Adding a command is one line
// here: root.AddCommand(newXCmd(c, streams)).
func newRootCmd(streams ioStreams) *cobra.Command {
	c := &common{}
	root := newTUICmd(c, streams)
	root.SilenceErrors, root.SilenceUsage = true, true
	root.SuggestionsMinimumDistance = 2
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	c.bindPersistent(root)
	root.PersistentPreRunE = c.preRun

	root.AddCommand(
		newCheckCmd(c, streams),
		newReplayCmd(c, streams),
		newSandboxCmd(c, streams),
		newDoctorCmd(c, streams),
		newReportCmd(c, streams),
		newResetCmd(c, streams),
		newVersionCmd(streams),
		newCompletionCmd(streams),
		newClassCmd(c, streams),
		newLabCmd(c, streams),
	)
	root.SetHelpCommand(newHelpCmd())
	root.SetFlagErrorFunc(flagError)
	root.SetUsageTemplate(usageTemplate)
	root.SetHelpTemplate(helpTemplate)
	localize(root)
	return root
}

// bindPersistent declares the flags every lab-reading command takes, once,
// on the root; every subcommand inherits them.
func (c *common) bindPersistent(root *cobra.Command) {
	fs := root.PersistentFlags()
	fs.StringVar(&c.root, "root", "", content.Msg("cli.flag.root", "roots", labFacts(func(l *content.Lab) string { return l.DefaultRoot })))
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", content.Msg("cli.flag.kubeconfig"))
	fs.StringVar(&c.kubeCtx, "context", "", content.Msg("cli.flag.context"))
	fs.BoolVar(&c.noCluster, "no-cluster", false, content.Msg("cli.flag.no_cluster"))
	fs.BoolVar(&c.poll, "poll", false, content.Msg("cli.flag.poll"))
	fs.StringVar(&c.logFile, "log", "", content.Msg("cli.flag.log"))
	fs.StringVar(&c.stateDir, "state-dir", "", content.Msg("cli.flag.state_dir"))
	fs.StringVar(&c.lab, "lab", "", content.Msg("cli.flag.lab"))
	fs.StringVar(&c.labDir, "lab-dir", "", content.Msg("cli.flag.lab_dir"))
	metavars(fs, map[string]string{"root": "DIR", "kubeconfig": "FILE", "context": "NAME", "log": "FILE", "state-dir": "DIR", "lab": "ID", "lab-dir": "DIR"})
	_ = root.MarkPersistentFlagDirname("lab-dir")
	_ = root.MarkPersistentFlagDirname("root")
	_ = root.MarkPersistentFlagDirname("state-dir")
	_ = root.MarkPersistentFlagFilename("kubeconfig")
	_ = root.MarkPersistentFlagFilename("log")
	_ = root.RegisterFlagCompletionFunc("context", c.completeContexts)
	_ = root.RegisterFlagCompletionFunc("lab", completeLabs)
}

// localize gives every command of the tree a Korean help flag (cobra's
// default says "help for X") and a usage line without cobra's English
// "[flags]".
func localize(cmd *cobra.Command) {
	cmd.DisableFlagsInUseLine = true
	if cmd.Flags().Lookup("help") == nil {
		cmd.Flags().BoolP("help", "h", false, content.Msg("cli.flag.help"))
	}
	for _, sub := range cmd.Commands() {
		localize(sub)
	}
}

// newCommand is a command whose help comes from content (cli.cmd.<key>.*)
// and whose Run returns an exit code. use is the usage after the name.
func newCommand(key, use string, args cobra.PositionalArgs, run func(cmd *cobra.Command, args []string) int) *cobra.Command {
	name := key[strings.LastIndexByte(key, '.')+1:]
	if use != "" {
		name += " " + use
	}
	cmd := &cobra.Command{
		Use:   name,
		Short: content.Msg("cli.cmd." + key + ".short"),
		Long:  content.Msg("cli.cmd."+key+".long", "labs", labFacts(func(l *content.Lab) string { return l.Title })),
		Args:  args,
		RunE:  func(cmd *cobra.Command, args []string) error { return codeErr(run(cmd, args)) },
	}
	if content.HasMsg("cli.cmd." + key + ".example") {
		cmd.Example = content.Msg("cli.cmd." + key + ".example")
	}
	return cmd
}

// flagsUse is "[플래그]" for a command's usage line.
func flagsUse() string { return "[" + content.Msg("cli.help.flags_word") + "]" }

// noArgs refuses positional arguments: on the root an unknown word is an
// unknown command, elsewhere an extra argument.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasAvailableSubCommands() {
		msg := content.Msg("cli.unknown_command", "cmd", args[0])
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n" + content.Msg("cli.suggest", "cmds", strings.Join(s, ", "))
		}
		return &usageError{cmd: cmd, msg: msg}
	}
	return &usageError{cmd: cmd, msg: content.Msg("cli.extra_args", "args", strings.Join(args, " "))}
}

// maxArgs allows up to n positional arguments.
func maxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) <= n {
			return nil
		}
		return &usageError{cmd: cmd, msg: content.Msg("cli.extra_args", "args", strings.Join(args[n:], " "))}
	}
}

// flagError words pflag's typed parse errors in Korean.
func flagError(cmd *cobra.Command, err error) error {
	var (
		notExist *pflag.NotExistError
		required *pflag.ValueRequiredError
		invalid  *pflag.InvalidValueError
		syntax   *pflag.InvalidSyntaxError
	)
	msg := content.Msg("cli.flag_error.other", "err", err)
	switch {
	case errors.As(err, &notExist):
		flag := "--" + notExist.GetSpecifiedName()
		if group := notExist.GetSpecifiedShortnames(); group != "" {
			flag = "-" + notExist.GetSpecifiedName()[:1] // one letter of a group like -xv
		}
		msg = content.Msg("cli.flag_error.unknown", "flag", flag)
	case errors.As(err, &required):
		msg = content.Msg("cli.flag_error.needs_value", "flag", "--"+required.GetFlag().Name)
	case errors.As(err, &invalid):
		msg = content.Msg("cli.flag_error.bad_value", "flag", "--"+invalid.GetFlag().Name, "value", invalid.GetValue(),
			"kind", metavar(invalid.GetFlag()))
	case errors.As(err, &syntax):
		msg = content.Msg("cli.flag_error.syntax", "flag", syntax.GetSpecifiedFlag())
	}
	return &usageError{cmd: cmd, msg: msg}
}

const metavarKey = "labmate_metavar"

// metavars names the value of each flag in help (`--root DIR`).
func metavars(fs *pflag.FlagSet, names map[string]string) {
	for flag, name := range names {
		_ = fs.SetAnnotation(flag, metavarKey, []string{name})
	}
}

func metavar(f *pflag.Flag) string {
	if v := f.Annotations[metavarKey]; len(v) > 0 {
		return v[0]
	}
	switch f.Value.Type() {
	case "bool":
		return ""
	case "int":
		return "N"
	case "duration":
		return content.Msg("cli.help.duration")
	}
	return content.Msg("cli.help.value")
}

// flagUsages renders a flag set in Korean, one flag a line, replacing
// pflag's English "(default ...)".
func flagUsages(fs *pflag.FlagSet) string {
	type row struct{ left, right string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		if mv := metavar(f); mv != "" {
			left += " " + mv
		}
		right := f.Usage
		if def := flagDefault(f); def != "" {
			right += " " + content.Msg("cli.help.default", "value", def)
		}
		rows = append(rows, row{left, right})
		width = max(width, runewidth.StringWidth(left))
	})
	var b strings.Builder
	for _, r := range rows {
		pad := strings.Repeat(" ", width-runewidth.StringWidth(r.left))
		fmt.Fprintf(&b, "%s%s   %s\n", r.left, pad, r.right)
	}
	return strings.TrimRight(b.String(), "\n")
}

// flagDefault is a flag's default as help shows it, or "" when it is the
// type's zero value or already spelled out in the usage text.
func flagDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return ""
	}
	if f.Value.Type() == "duration" {
		if d, err := time.ParseDuration(f.DefValue); err == nil {
			return content.Duration(d)
		}
	}
	if f.Name == "help" {
		return ""
	}
	return f.DefValue
}

// useLine is cobra's UseLine without its English "[flags]".
func useLine(cmd *cobra.Command) string {
	line := cmd.UseLine()
	if cmd.HasAvailableSubCommands() && !cmd.Runnable() {
		line = cmd.CommandPath() + " " + content.Msg("cli.help.command_arg")
	}
	return line
}

func init() {
	cobra.AddTemplateFunc("msg", func(key string, kv ...any) string { return content.Msg(key, kv...) })
	cobra.AddTemplateFunc("koFlags", flagUsages)
	cobra.AddTemplateFunc("useLine", useLine)
	// A double-click on labmate.exe in Explorer would otherwise print
	// cobra's English explanation.
	cobra.MousetrapHelpText = ""
}

const helpTemplate = `{{with (or .Long .Short)}}{{. | trimTrailingWhitespaces}}

{{end}}{{if or .Runnable .HasSubCommands}}{{.UsageString}}{{end}}`

const usageTemplate = `{{msg "cli.help.usage"}}{{if .Runnable}}
  {{useLine .}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} {{msg "cli.help.command_arg"}}{{end}}{{if .HasExample}}

{{msg "cli.help.examples"}}
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

{{msg "cli.help.commands"}}{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

{{msg "cli.help.flags"}}
{{koFlags .LocalFlags}}{{end}}{{if .HasAvailableInheritedFlags}}

{{msg "cli.help.global_flags"}}
{{koFlags .InheritedFlags}}{{end}}{{if .HasAvailableSubCommands}}

{{msg "cli.help.more_cmd" "cmd" .CommandPath}}{{end}}
`

// newHelpCmd replaces cobra's English help command.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [" + content.Msg("cli.help.command_word") + "]",
		Short: content.Msg("cli.cmd.help.short"),
		Long:  content.Msg("cli.cmd.help.long"),
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				return &usageError{cmd: c.Root(), msg: content.Msg("cli.unknown_command", "cmd", strings.Join(args, " "))}
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}

// newVersionCmd is `labmate version`.
func newVersionCmd(streams ioStreams) *cobra.Command {
	return newCommand("version", "", noArgs, func(*cobra.Command, []string) int {
		fmt.Fprintln(streams.Out, "labmate", versionString(version, readBuildInfo))
		return exitOK
	})
}

var readBuildInfo = debug.ReadBuildInfo

// versionString is the injected version or, for a source build, the
// module version and the VCS revision Go recorded in the binary.
func versionString(injected string, info func() (*debug.BuildInfo, bool)) string {
	if injected != "" && injected != "dev" {
		return injected
	}
	bi, ok := info()
	if !ok {
		return "dev"
	}
	v := "dev"
	if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
		v = mv
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		return v + " (" + content.Msg("cli.version_dirty", "rev", rev) + ")"
	}
	return v + " (" + rev + ")"
}

// newCompletionCmd is `labmate completion bash|zsh|fish|powershell`, in
// place of cobra's default one whose help is English.
func newCompletionCmd(streams ioStreams) *cobra.Command {
	shells := []string{"bash", "zsh", "fish", "powershell"}
	return &cobra.Command{
		Use:                   "completion bash|zsh|fish|powershell",
		Short:                 content.Msg("cli.cmd.completion.short"),
		Long:                  content.Msg("cli.cmd.completion.long"),
		Example:               content.Msg("cli.cmd.completion.example"),
		ValidArgs:             shells,
		DisableFlagsInUseLine: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || !slices.Contains(shells, args[0]) {
				return &usageError{cmd: cmd, msg: content.Msg("cli.completion_shell", "args", strings.Join(args, " "))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(streams.Out, true)
			case "zsh":
				return root.GenZshCompletion(streams.Out)
			case "fish":
				return root.GenFishCompletion(streams.Out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(streams.Out)
			}
		},
	}
}

// completeContexts lists the contexts of the kubeconfig labmate would use.
func (c *common) completeContexts(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	names, err := kubeconfig.Contexts(kubeconfig.Options{Path: c.kubeconfig})
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

// completeLabs lists the installed labs.
func completeLabs(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, l := range labkit.Installed() {
		out = append(out, cobra.CompletionWithDesc(l.ID(), l.Text.Title))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeSteps lists the steps of the lab the command would open.
func (c *common) completeSteps(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	kit, err := c.resolveLab()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, s := range kit.Text.Steps {
		out = append(out, cobra.CompletionWithDesc(strconv.Itoa(s.Number), s.Title))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// stdinFile is the process's stdin; tests inject their own reader.
func stdinFile() io.Reader { return os.Stdin }

// labFacts words one fact of each installed lab for help texts
// ("gpu-incident: /root/gpuop, ..."); help never fails on a lab that does
// not load.
func labFacts(fact func(*content.Lab) string) string {
	var parts []string
	for _, id := range content.IDs() {
		if l, err := content.Load(id); err == nil {
			parts = append(parts, id+": "+fact(l))
		}
	}
	return strings.Join(parts, ", ")
}
