package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
)

// Options are a command's options, run in kubectl's order. Complete
// fills in what the command works on from the factory and the command
// line (the lab, a trace, the class's lab: it may read them, and it
// starts nothing: no run, no program on the terminal, no question);
// Run does the work and returns what ended it (nil, or an error Execute
// turns into its Korean text and exit code: ExitError, UsageError). A
// command with something to refuse before it runs implements Validator
// too. Every command package's NewCmd(f, streams) builds its command
// around an Options with Command.
type Options interface {
	Complete(f Factory, cmd *cobra.Command, args []string) error
	Run(ctx context.Context) error
}

// Validator is a command's options that refuse what cannot work after
// Complete, with no side effect: an error says why (Korean).
type Validator interface {
	Validate() error
}

// Command is a command whose help comes from content (NewCommand) and
// that completes, validates (when o is a Validator) and runs o. An
// error of Complete or Validate that carries no exit code ends the
// command with 2 (a usage or environment error); one of Run with 1 (a
// failure).
func Command(key, use string, args cobra.PositionalArgs, f Factory, o Options) *cobra.Command {
	return NewCommand(key, use, args, func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(f, cmd, args); err != nil {
			return usage(err)
		}
		if v, ok := o.(Validator); ok {
			if err := v.Validate(); err != nil {
				return usage(err)
			}
		}
		return withCode(ExitFail, o.Run(cmd.Context()))
	})
}

// usage is err as Complete and Validate end a command: a usage error as
// it is, else with its code or 2.
func usage(err error) error {
	var ue *UsageError
	if errors.As(err, &ue) {
		return err
	}
	return withCode(ExitUsage, err)
}

// Group is a command that only holds others (`labmate lab`, `labmate
// class`): run alone it is a usage error saying which to choose (the
// content message key which).
func Group(key, use, which string) *cobra.Command {
	return NewCommand(key, use, NoArgs, func(cmd *cobra.Command, _ []string) error {
		return &UsageError{Cmd: cmd, Msg: content.Msg(which)}
	})
}
