package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/labrun/textout"
	"github.com/labhub/labmate/trace"
)

// checkOptions are `labmate check`'s flags.
type checkOptions struct {
	*common
	step    int
	json    bool
	timeout time.Duration
	watch   bool
	replay  string
	record  string
	class   classFlags
	streams cli.Streams
}

// newCheckCmd is `labmate check`: evaluate once and exit 0 when every
// requested step passed, 1 when any did not, 2 on a usage or environment
// error.
func newCheckCmd(c *common, streams cli.Streams) *cobra.Command {
	o := &checkOptions{common: c, streams: streams}
	cmd := cli.NewCommand("check", cli.FlagsUse(), cli.NoArgs, func(cmd *cobra.Command, _ []string) int { return o.Run(cmd.Context()) })
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error { return o.Validate(cmd) }
	fs := cmd.Flags()
	fs.IntVar(&o.step, "step", 0, content.Msg("cli.flag.step", "ranges", cli.LabFacts(func(l *content.Lab) string { return fmt.Sprintf("1-%d", len(l.Steps)) })))
	fs.BoolVar(&o.json, "json", false, content.Msg("cli.flag.json"))
	fs.DurationVar(&o.timeout, "timeout", 20*time.Second, content.Msg("cli.flag.timeout"))
	fs.BoolVar(&o.watch, "watch", false, content.Msg("ops.flag.watch"))
	fs.StringVar(&o.replay, "replay", "", content.Msg("cli.flag.replay"))
	fs.StringVar(&o.record, "record", "", content.Msg("cli.flag.record"))
	o.class.bind(fs)
	cli.Metavars(fs, map[string]string{"replay": "FILE|reference", "record": "FILE"})
	_ = cmd.RegisterFlagCompletionFunc("step", c.completeSteps)
	_ = cmd.RegisterFlagCompletionFunc("replay", completeTraces)
	_ = cmd.MarkFlagFilename("record")
	return cmd
}

// Validate refuses flag combinations that cannot work together.
func (o *checkOptions) Validate(cmd *cobra.Command) error {
	if o.replay != "" && (o.watch || o.record != "") {
		return &cli.UsageError{Cmd: cmd, Msg: content.Msg("cli.replay_exclusive")}
	}
	return nil
}

// Run evaluates (or watches, or replays) and returns the exit code.
func (o *checkOptions) Run(ctx context.Context) int {
	stdout, stderr := o.streams.Out, o.streams.ErrOut
	if o.replay != "" {
		return o.checkReplay(ctx, stdout, stderr)
	}
	s, err := o.buildForClass(ctx, o.class)
	if err != nil {
		return exitFor(err, stderr)
	}
	defer s.closeLog()
	if o.step < 0 || o.step > len(s.lab.Steps) {
		fmt.Fprintln(stderr, content.Msg("cli.step_range", "step", o.step, "max", len(s.lab.Steps)))
		return cli.ExitUsage
	}
	if code, ok := s.record(o.record, stderr); !ok {
		return code
	}
	defer s.stop(o.record, stderr)
	if o.watch {
		s.startClass(ctx, o.class, false)
		sayClassLab(o.classLabNotes(ctx, o.class), stderr)
		return watch(ctx, textout.Watch{JSON: o.json, Step: o.step, ReadyTimeout: o.timeout}, s, stdout, stderr)
	}
	rep := s.run.Once(ctx, o.timeout) // the run's notices first among its problems
	if o.class.File != "" {
		s.publishOnce(ctx, o.class, stderr, func(ctx context.Context, pub *class.Publisher) error { return class.PublishOnce(ctx, pub, rep) })
	}
	return reportCode(textout.Report(stdout, rep, o.step, o.json))(stderr)
}

// completeTraces offers the built-in reference run; files complete as
// files.
func completeTraces(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return []cobra.Completion{cobra.CompletionWithDesc(trace.ReferenceName, content.Msg("cli.complete.reference"))}, cobra.ShellCompDirectiveDefault
}

// checkReplay is `labmate check --replay FILE|reference`: the final
// results of a trace, evaluated exactly after every record.
func (o *checkOptions) checkReplay(ctx context.Context, stdout, stderr io.Writer) int {
	step, asJSON := o.step, o.json
	t, kit, err := o.openTrace(o.replay)
	if err != nil {
		return exitFor(err, stderr)
	}
	lab := kit.Text
	if step < 0 || step > len(lab.Steps) {
		fmt.Fprintln(stderr, content.Msg("cli.step_range", "step", step, "max", len(lab.Steps)))
		return cli.ExitUsage
	}
	rep, _, err := labrun.Exact(ctx, lab, kit.Steps, t)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}
	return reportCode(textout.Report(stdout, rep, step, asJSON))(stderr)
}

// reportCode is the exit code of a report printed (textout.Report):
// 0 when every step printed passed, 1 when one did not, 2 when it could
// not be written (said on stderr).
func reportCode(passed bool, err error) func(stderr io.Writer) int {
	return func(stderr io.Writer) int {
		switch {
		case err != nil:
			fmt.Fprintln(stderr, err)
			return cli.ExitUsage
		case passed:
			return cli.ExitOK
		}
		return cli.ExitFail
	}
}

// watch is check --watch: 0 when ctx ends, 2 when stdout refuses a line.
func watch(ctx context.Context, o textout.Watch, s *setup, stdout, stderr io.Writer) int {
	if err := o.Run(ctx, s.run, stdout); err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}
	return cli.ExitOK
}
