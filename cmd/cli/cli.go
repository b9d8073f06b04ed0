// Package cli is labmate's command-line machinery, apart from any command:
// commands whose help comes from content in Korean, Korean help templates
// and flag listings in place of cobra's English ones, usage and flag
// errors worded in Korean, and the exit codes a command's Run returns.
package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
)

// Exit codes shared by every command.
const (
	ExitOK    = 0
	ExitFail  = 1 // a requested step (or check) did not pass
	ExitUsage = 2 // usage or environment error
)

// Streams are a command's standard streams, injected so that a test
// drives a command without a terminal (kubectl's genericiooptions.IOStreams).
type Streams struct {
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
	if code == ExitOK {
		return nil
	}
	return exitCode(code)
}

// exitError carries an exit code through cobra; its message is Korean.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// Exit is an error that ends a command with code, saying msg (Korean).
func Exit(code int, msg string) error { return exitError{code, msg} }

// UsageErr is an Exit with code 2 saying the content message key.
func UsageErr(key string, kv ...any) error {
	return exitError{ExitUsage, content.Msg(key, kv...)}
}

// ExitWith says what ended a command that returns errors (nil: nothing)
// and returns its exit code: an Exit's own, else 1.
func ExitWith(err error, stderr io.Writer) int {
	var ee exitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		fmt.Fprintln(stderr, ee.msg)
		return ee.code
	}
	fmt.Fprintln(stderr, err)
	return ExitFail
}

// Execute runs the command tree on args and maps the outcome to an exit
// code, printing usage errors in Korean.
func Execute(root *cobra.Command, args []string, streams Streams) int {
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	var code exitCode
	var ue *UsageError
	var ee exitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &ee):
		// a command's own Korean refusal with its exit code (class)
		fmt.Fprintln(streams.ErrOut, ee.msg)
		return ee.code
	case errors.As(err, &ue):
		cmd = ue.Cmd
	default:
		// cobra's own refusals (its text is English): name the command line.
		ue = &UsageError{Cmd: cmd, Msg: content.Msg("cli.bad_args", "args", strings.Join(args, " "))}
	}
	if cmd == nil {
		cmd = root
	}
	fmt.Fprintln(streams.ErrOut, ue.Msg)
	fmt.Fprintln(streams.ErrOut, content.Msg("cli.help.usage_line", "line", useLine(cmd)))
	fmt.Fprintln(streams.ErrOut, content.Msg("cli.help.more", "cmd", cmd.CommandPath()))
	return ExitUsage
}

// NewCommand is a command whose help comes from content (cli.cmd.<key>.*)
// and whose Run returns an exit code. use is the usage after the name.
func NewCommand(key, use string, args cobra.PositionalArgs, run func(cmd *cobra.Command, args []string) int) *cobra.Command {
	name := key[strings.LastIndexByte(key, '.')+1:]
	if use != "" {
		name += " " + use
	}
	cmd := &cobra.Command{
		Use:   name,
		Short: content.Msg("cli.cmd." + key + ".short"),
		Long:  content.Msg("cli.cmd."+key+".long", "labs", LabFacts(func(l *content.Lab) string { return l.Title })),
		Args:  args,
		RunE:  func(cmd *cobra.Command, args []string) error { return codeErr(run(cmd, args)) },
	}
	if content.HasMsg("cli.cmd." + key + ".example") {
		cmd.Example = content.Msg("cli.cmd." + key + ".example")
	}
	return cmd
}

// Root makes cmd the root of a Korean command tree: errors silenced for
// Execute to word, Korean help templates, help command and flag errors,
// streams set. Call it once every command is added.
func Root(root *cobra.Command, streams Streams) {
	root.SilenceErrors, root.SilenceUsage = true, true
	root.SuggestionsMinimumDistance = 2
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.SetHelpCommand(newHelpCmd())
	root.SetFlagErrorFunc(flagError)
	root.SetUsageTemplate(usageTemplate)
	root.SetHelpTemplate(helpTemplate)
	localize(root)
}

// LabFacts words one fact of each installed lab for help texts
// ("gpu-incident: /root/gpuop, ..."); help never fails on a lab that does
// not load.
func LabFacts(fact func(*content.Lab) string) string {
	var parts []string
	for _, id := range content.IDs() {
		if l, err := content.Load(id); err == nil {
			parts = append(parts, id+": "+fact(l))
		}
	}
	return strings.Join(parts, ", ")
}
