package cli

// Usage errors: bad arguments and flags, worded in Korean, each with the
// command it concerns (exit code 2).

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/labhub/labmate/content"
)

// UsageError is a bad command line: its Korean message, then the usage
// line of the command it concerns; exit code 2.
type UsageError struct {
	Cmd *cobra.Command
	Msg string
}

func (e *UsageError) Error() string { return e.Msg }

// NoArgs refuses positional arguments: on the root an unknown word is an
// unknown command, elsewhere an extra argument.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasAvailableSubCommands() {
		msg := content.Msg("cli.unknown_command", "cmd", args[0])
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n" + content.Msg("cli.suggest", "cmds", strings.Join(s, ", "))
		}
		return &UsageError{Cmd: cmd, Msg: msg}
	}
	return &UsageError{Cmd: cmd, Msg: content.Msg("cli.extra_args", "args", strings.Join(args, " "))}
}

// MaxArgs allows up to n positional arguments.
func MaxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) <= n {
			return nil
		}
		return &UsageError{Cmd: cmd, Msg: content.Msg("cli.extra_args", "args", strings.Join(args[n:], " "))}
	}
}

// ExactArgs wants exactly n positional arguments.
func ExactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return &UsageError{Cmd: cmd, Msg: content.Msg("cli.missing_args", "use", cmd.Use)}
		}
		return MaxArgs(n)(cmd, args)
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
	return &UsageError{Cmd: cmd, Msg: msg}
}
