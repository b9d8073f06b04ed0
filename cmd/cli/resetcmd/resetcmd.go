// Package resetcmd is `labmate reset [--step N] [--yes]`: forget the
// learner's progress and the facts labmate witnessed, for one step or
// the whole lab root, after a y/N question (the factory's Prompter)
// unless --yes. The
// learner's own files are never touched.
package resetcmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
)

// Options are `labmate reset`'s flags.
type Options struct {
	Step int
	Yes  bool

	streams  cli.Streams
	prompter cli.Prompter
	// state opens the learner's state of the factory's lab; notices are
	// what choosing the lab had to say.
	state   func() (*cli.State, error)
	notices func() []string
	kit     *labkit.Lab
}

// NewCmd is `labmate reset`. Exit 0 when done (or nothing to do), 1 when
// the learner said no, 2 on a usage or state error.
func NewCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &Options{streams: streams, prompter: f.Prompter()}
	cmd := cli.Command("reset", cli.FlagsUse(), cli.NoArgs, f, o)
	cmd.Flags().IntVar(&o.Step, "step", 0, content.Msg("ops.flag.reset_step"))
	cmd.Flags().BoolVar(&o.Yes, "yes", false, content.Msg("ops.flag.yes"))
	_ = cmd.RegisterFlagCompletionFunc("step", cli.CompleteSteps(f))
	return cmd
}

// Complete finds the lab whose progress is forgotten.
func (o *Options) Complete(f cli.Factory, _ *cobra.Command, _ []string) error {
	o.state, o.notices = f.State, f.Notices
	var err error
	o.kit, err = f.Lab()
	return err
}

// Validate refuses a step the lab does not have.
func (o *Options) Validate() error {
	if n := len(o.kit.Text.Steps); o.Step < 0 || o.Step > n {
		return cli.Exit(cli.ExitUsage, content.Msg("cli.step_range", "step", o.Step, "max", n))
	}
	return nil
}

// Run resets. Forgetting progress needs the state only: no run, no
// cluster, no start files laid out.
func (o *Options) Run(context.Context) error {
	stdout, stderr := o.streams.Out, o.streams.ErrOut
	s, err := o.state()
	if err != nil {
		return cli.Env(err)
	}
	for _, w := range append(s.Warnings, o.notices()...) {
		fmt.Fprintln(stderr, w)
	}
	if s.Store == nil {
		return cli.UsageErr("ops.reset.no_store", "err", "-")
	}
	what := content.Msg("ops.reset.scope_all", "root", s.Root)
	stepID := ""
	if o.Step > 0 {
		ls := s.Lab.Step(o.Step)
		what = content.Msg("ops.reset.scope_step", "step", o.Step, "title", ls.Title)
		stepID = ls.ID
	}
	plan := s.File.Preview(o.Step, stepID)
	if plan.Empty() && (o.Step > 0 || s.File.Progress.CurrentStep == 0) {
		fmt.Fprintln(stdout, content.Msg("ops.reset.nothing", "what", what, "path", s.Store.Path))
		return nil
	}
	fmt.Fprintln(stdout, content.Msg("ops.reset.plan", "what", what, "passed", plan.Passed, "hints", plan.Hints,
		"solutions", plan.Solutions, "facts", len(plan.Facts), "root", s.Root, "path", s.Store.Path))

	if !o.Yes {
		switch err := o.prompter.Confirm(content.Msg("ops.reset.prompt"), "--yes"); {
		case errors.Is(err, cli.ErrNotConfirmed):
			// The learner's own answer: said where the question was.
			fmt.Fprintln(stdout, content.Msg("ops.reset.cancelled"))
			return cli.Quiet(cli.ExitFail)
		case err != nil:
			return err
		}
	}
	if o.Step > 0 {
		_, err = s.Store.ResetStep(o.Step, stepID)
	} else {
		_, err = s.Store.ResetAll()
	}
	if err != nil {
		return cli.UsageErr("ops.reset.failed", "err", err)
	}
	fmt.Fprintln(stdout, content.Msg("ops.reset.done", "what", what))
	return nil
}
