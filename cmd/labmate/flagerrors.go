package main

// Usage errors: bad arguments and flags, worded in Korean, each with the
// command it concerns (exit code 2).

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/labhub/labmate/content"
)

// usageError is a bad command line: its Korean message, then the usage
// line of the command it concerns; exit code 2.
type usageError struct {
	cmd *cobra.Command
	msg string
}

func (e *usageError) Error() string { return e.msg }

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

// exactArgs wants exactly n positional arguments.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return &usageError{cmd: cmd, msg: content.Msg("cli.missing_args", "use", cmd.Use)}
		}
		return maxArgs(n)(cmd, args)
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
