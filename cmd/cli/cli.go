// Package cli is labmate's command line apart from any command: the
// contract every command package builds on (the Factory it gets what it
// works on from, the Options it completes, validates and runs, the
// Prompter that asks the learner), the flag groups the root binds once,
// commands whose help comes from content in Korean, Korean help
// templates and flag listings in place of cobra's English ones, and the
// one place that turns what a command returned into Korean text on
// stderr and an exit code (Execute). The factory's default construction
// is package cli/factory.
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/labhub/labmate/content"
)

// Exit codes shared by every command.
const (
	ExitOK    = 0
	ExitFail  = 1 // a requested step (or check) did not pass; a failure
	ExitUsage = 2 // usage or environment error
)

// Streams are a command's standard streams, injected so that a test
// drives a command without a terminal (kubectl's genericiooptions.IOStreams).
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// ExitError ends a command with Code, saying Err (Korean) on stderr; an
// ExitError without Err ends it having said everything it had to (gh's
// SilentError), one with Code 0 says Err and ends it well (a recording
// that could not be closed after the work was done).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Exit is an error that ends a command with code, saying msg (Korean).
func Exit(code int, msg string) error { return &ExitError{Code: code, Err: errors.New(msg)} }

// Env is err (Korean) as what ends a command with code 2: the lab, a
// file, the state or a cluster the command cannot work with.
func Env(err error) error { return withCode(ExitUsage, err) }

// Fail is err (Korean) as what ends a command with code 1.
func Fail(err error) error { return withCode(ExitFail, err) }

// Warn is err (Korean) said on stderr, the command ending well all the
// same.
func Warn(err error) error { return withCode(ExitOK, err) }

// Quiet ends a command with code, saying nothing more: what it printed
// says why (check's table of failed steps, lab verify's), or there is
// nothing to say (the learner left the lab picker: ExitOK).
func Quiet(code int) error { return &ExitError{Code: code} }

// UsageErr is an Exit with code 2 saying the content message key.
func UsageErr(key string, kv ...any) error {
	return Exit(ExitUsage, content.Msg(key, kv...))
}

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	return &ExitError{Code: code, Err: err}
}

// Execute runs the command tree on args and is the one place that turns
// what a command returned into its Korean text on stderr and an exit
// code (kubectl's CheckErr): a *UsageError with the command's usage line
// (2), an ExitError with its code, several errors (errors.Join) each said
// with the first code that is not 0; any other error is cobra's own
// refusal of the command line, worded in Korean as a usage error.
func Execute(root *cobra.Command, args []string, streams Streams) int {
	root.SetArgs(args)
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		// Completing a command line: its command's words for the root's
		// flags it reads, as its help has them.
		if cmd, _, err := root.Find(args[1:]); err == nil {
			wordReadFlags(cmd)
		}
	}
	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	var ue *UsageError
	if !errors.As(err, &ue) {
		if code, ok := Say(streams.ErrOut, err); ok {
			return code
		}
		// cobra's own refusals (its text is English): name the command line.
		ue = &UsageError{Cmd: cmd, Msg: content.Msg("cli.bad_args", "args", strings.Join(args, " "))}
	}
	if ue.Cmd != nil {
		cmd = ue.Cmd
	}
	if cmd == nil {
		cmd = root
	}
	fmt.Fprintln(streams.ErrOut, ue.Msg)
	fmt.Fprintln(streams.ErrOut, content.Msg("cli.help.usage_line", "line", useLine(cmd)))
	fmt.Fprintln(streams.ErrOut, content.Msg("cli.help.more", "cmd", cmd.CommandPath()))
	return ExitUsage
}

// Say writes what err says on w, one line per error joined in it, and
// returns its exit code: an ExitError's, the first that is not 0 of
// several, 1 for an error of no code among them. ok is false for an
// error that is none of a command's (no ExitError in it at all).
func Say(w io.Writer, err error) (code int, ok bool) {
	var ee *ExitError
	if !errors.As(err, &ee) {
		return ExitFail, false
	}
	return say(w, err), true
}

func say(w io.Writer, err error) int {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		code := ExitOK
		for _, e := range joined.Unwrap() {
			if c := say(w, e); code == ExitOK {
				code = c
			}
		}
		return code
	}
	var ee *ExitError
	if !errors.As(err, &ee) {
		fmt.Fprintln(w, err)
		return ExitFail
	}
	if ee.Err != nil {
		fmt.Fprintln(w, ee.Err)
	}
	return ee.Code
}

// NewCommand is a command whose help comes from content (cli.cmd.<key>.*)
// and that runs run. use is the usage after the name.
func NewCommand(key, use string, args cobra.PositionalArgs, run func(cmd *cobra.Command, args []string) error) *cobra.Command {
	name := key[strings.LastIndexByte(key, '.')+1:]
	if use != "" {
		name += " " + use
	}
	cmd := &cobra.Command{
		Use:   name,
		Short: content.Msg("cli.cmd." + key + ".short"),
		Long:  content.Msg("cli.cmd."+key+".long", "labs", LabFacts(func(l *content.Lab) string { return l.Title })),
		Args:  args,
		RunE:  run,
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

// IsTerminal reports whether v is a terminal (x/term: a character
// device such as /dev/null is not one).
func IsTerminal(v any) bool {
	fd, ok := v.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(fd.Fd()))
}
