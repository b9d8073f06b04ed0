package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
)

// Options are a command's options, run in kubectl's order. Complete
// fills in what the command works on from the factory and the command
// line (the lab, a trace, the class's lab: it may read them, and it
// starts nothing); Validate refuses what cannot work and has no side
// effects; Run does the work and returns the exit code. Every command
// package's NewCmd(f, streams) builds its command around an Options
// with Command.
type Options interface {
	Complete(f *Factory, cmd *cobra.Command, args []string) error
	Validate() error
	Run() int
}

// Command is a command whose help comes from content (NewCommand) and
// that completes, validates and runs o. An error of Complete or
// Validate ends the command: a *UsageError with the usage line, an Exit
// with its code, any other (Korean) error with code 2.
func Command(key, use string, args cobra.PositionalArgs, f *Factory, o Options) *cobra.Command {
	cmd := NewCommand(key, use, args, nil)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(f, cmd, args); err != nil {
			return asExit(err)
		}
		if err := o.Validate(); err != nil {
			return asExit(err)
		}
		return codeErr(o.Run())
	}
	return cmd
}

// asExit is err as Execute words it: a usage error or an Exit as they
// are, anything else (a Korean refusal) an Exit with code 2.
func asExit(err error) error {
	var ue *UsageError
	var ee exitError
	if errors.As(err, &ue) || errors.As(err, &ee) {
		return err
	}
	return Exit(ExitUsage, err.Error())
}

// Group is a command that only holds others (`labmate lab`, `labmate
// class`): run alone it is a usage error saying which to choose (the
// content message key which).
func Group(key, use, which string) *cobra.Command {
	cmd := NewCommand(key, use, NoArgs, nil)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return &UsageError{Cmd: cmd, Msg: content.Msg(which)}
	}
	return cmd
}
