package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
)

// resetOptions are `labmate reset`'s flags.
type resetOptions struct {
	*common
	step    int
	yes     bool
	streams cli.Streams
}

// newResetCmd is `labmate reset [--step N] [--yes]`: it forgets the
// learner's progress and the facts labmate witnessed, for one step or the
// whole lab root, after a y/N question on stdin unless --yes. The
// learner's own files are never touched. Exit 0 when done (or nothing to
// do), 1 when the learner said no, 2 on a usage or state error.
func newResetCmd(c *common, streams cli.Streams) *cobra.Command {
	o := &resetOptions{common: c, streams: streams}
	cmd := cli.NewCommand("reset", cli.FlagsUse(), cli.NoArgs, func(cmd *cobra.Command, _ []string) int { return o.Run(cmd.Context()) })
	cmd.Flags().IntVar(&o.step, "step", 0, content.Msg("ops.flag.reset_step"))
	cmd.Flags().BoolVar(&o.yes, "yes", false, content.Msg("ops.flag.yes"))
	_ = cmd.RegisterFlagCompletionFunc("step", c.completeSteps)
	return cmd
}

// Run resets and returns the exit code.
func (o *resetOptions) Run(ctx context.Context) int {
	c, in, stdout, stderr := o.common, o.streams.In, o.streams.Out, o.streams.ErrOut
	step, yes := &o.step, &o.yes
	// Forgetting progress needs the state only: no run, no cluster, no
	// start files laid out.
	s, err := c.buildState()
	if err != nil {
		return exitFor(err, stderr)
	}
	defer s.closeLog()
	for _, w := range append(s.warnings, c.notices...) {
		fmt.Fprintln(stderr, w)
	}
	if s.store == nil {
		fmt.Fprintln(stderr, content.Msg("ops.reset.no_store", "err", "-"))
		return cli.ExitUsage
	}
	if *step < 0 || *step > len(s.lab.Steps) {
		fmt.Fprintln(stderr, content.Msg("cli.step_range", "step", *step, "max", len(s.lab.Steps)))
		return cli.ExitUsage
	}

	what := content.Msg("ops.reset.scope_all", "root", s.root)
	stepID := ""
	if *step > 0 {
		ls := labStep(s.lab, *step)
		what = content.Msg("ops.reset.scope_step", "step", *step, "title", ls.Title)
		stepID = ls.ID
	}
	plan := s.state.Preview(*step, stepID)
	if plan.Empty() && (*step > 0 || s.state.Progress.CurrentStep == 0) {
		fmt.Fprintln(stdout, content.Msg("ops.reset.nothing", "what", what, "path", s.store.Path))
		return cli.ExitOK
	}
	fmt.Fprintln(stdout, content.Msg("ops.reset.plan", "what", what, "passed", plan.Passed, "hints", plan.Hints,
		"solutions", plan.Solutions, "facts", len(plan.Facts), "root", s.root, "path", s.store.Path))

	if !*yes {
		fmt.Fprint(stdout, content.Msg("ops.reset.prompt"))
		answer, err := bufio.NewReader(in).ReadString('\n')
		if !isTerminal(in) {
			// The answer was not echoed: end the prompt's line ourselves.
			fmt.Fprintln(stdout)
		}
		if err != nil && strings.TrimSpace(answer) == "" {
			fmt.Fprintln(stderr, content.Msg("ops.reset.needs_yes"))
			return cli.ExitFail
		}
		if !affirmative(answer) {
			fmt.Fprintln(stdout, content.Msg("ops.reset.cancelled"))
			return cli.ExitFail
		}
	}
	if *step > 0 {
		_, err = s.store.ResetStep(*step, stepID)
	} else {
		_, err = s.store.ResetAll()
	}
	if err != nil {
		fmt.Fprintln(stderr, content.Msg("ops.reset.failed", "err", err))
		return cli.ExitUsage
	}
	fmt.Fprintln(stdout, content.Msg("ops.reset.done", "what", what))
	return cli.ExitOK
}

// affirmative accepts the yes-words listed in content (y, yes and their
// Korean counterparts); anything else is no.
func affirmative(answer string) bool {
	a := strings.ToLower(strings.TrimSpace(answer))
	for _, yes := range strings.Fields(content.Msg("ops.reset.yes_words")) {
		if a == yes {
			return true
		}
	}
	return false
}

// labStep returns the lab's step with that number (checked in range).
func labStep(lab *content.Lab, n int) content.Step {
	for _, s := range lab.Steps {
		if s.Number == n {
			return s
		}
	}
	return lab.Steps[n-1]
}
