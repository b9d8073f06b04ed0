// Package catchupcmd is `labmate catch-up --to N [--yes]`: the learner's
// lab brought to "steps 1..N-1 done the reference way" (labkit/catchup),
// after the plan is shown and a y/N question (the factory's Prompter)
// unless --yes.
package catchupcmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
)

// Options are `labmate catch-up`'s flags.
type Options struct {
	To  int
	Yes bool

	streams  cli.Streams
	prompter cli.Prompter
	f        cli.Factory
	kit      *labkit.Lab
}

// NewCmd is `labmate catch-up`. Exit 0 when done (or nothing to do), 1
// when the learner said no or the catch-up stopped, 2 on a usage error
// or a refusal (nothing changed).
func NewCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &Options{streams: streams, prompter: f.Prompter()}
	cmd := cli.Command("catch-up", cli.FlagsUse(), cli.NoArgs, f, o)
	cmd.Flags().IntVar(&o.To, "to", 0, content.Msg("ops.flag.catch_up_to"))
	cmd.Flags().BoolVar(&o.Yes, "yes", false, content.Msg("ops.flag.catch_up_yes"))
	_ = cmd.RegisterFlagCompletionFunc("to", cli.CompleteSteps(f))
	return cmd
}

// Complete finds the lab to catch up.
func (o *Options) Complete(f cli.Factory, _ *cobra.Command, _ []string) error {
	o.f = f
	var err error
	o.kit, err = f.Lab()
	return err
}

// Validate refuses a step the lab does not have.
func (o *Options) Validate() error {
	if n := len(o.kit.Text.Steps); o.To < 2 || o.To > n {
		return cli.Exit(cli.ExitUsage, content.Msg("catchup.bad_to", "to", o.To, "max", n))
	}
	return nil
}

// Run plans, asks and catches up.
func (o *Options) Run(ctx context.Context) error {
	stdout := o.streams.Out
	st, err := o.f.State()
	if err != nil {
		return cli.Env(err)
	}
	p, err := cli.PlanCatchUp(ctx, o.f, st, o.To, nil)
	if err != nil {
		return cli.Env(err)
	}
	defer p.Close()
	if p.Empty() {
		fmt.Fprintln(stdout, p.Result())
		return nil
	}
	p.Write(stdout)
	if !o.Yes {
		switch err := o.prompter.Confirm(content.Msg("catchup.prompt"), "--yes"); {
		case errors.Is(err, cli.ErrNotConfirmed):
			// The learner's own answer: said where the question was.
			fmt.Fprintln(stdout, content.Msg("catchup.cancelled"))
			return cli.Quiet(cli.ExitFail)
		case err != nil:
			return err
		}
	}
	if err := p.Do(ctx, stdout); err != nil {
		return cli.Fail(err)
	}
	fmt.Fprintln(stdout, p.Result())
	return nil
}
