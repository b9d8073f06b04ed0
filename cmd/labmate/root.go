package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
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
