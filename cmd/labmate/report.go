package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/report"
)

// reportNow is the report's clock; tests fix it.
var reportNow = time.Now

// reportOptions are `labmate report`'s flags.
type reportOptions struct {
	*common
	json      bool
	out       string
	timeout   time.Duration
	fromTrace string
	streams   cli.Streams
}

// newReportCmd is `labmate report [--json] [-o FILE]`: it evaluates once,
// as `labmate check` does, and writes the skeleton of an incident report
// of the learner's run (per step: when it passed, hints used, the values
// that decided it). Exit 0 when the report was written, 2 otherwise; how
// far the learner got is in the report, not in the exit code.
func newReportCmd(c *common, streams cli.Streams) *cobra.Command {
	o := &reportOptions{common: c, streams: streams}
	cmd := cli.NewCommand("report", cli.FlagsUse(), cli.NoArgs, func(cmd *cobra.Command, _ []string) int { return o.Run(cmd.Context()) })
	fs := cmd.Flags()
	fs.BoolVar(&o.json, "json", false, content.Msg("ops.flag.report_json"))
	fs.StringVarP(&o.out, "output", "o", "", content.Msg("ops.flag.output"))
	fs.DurationVar(&o.timeout, "timeout", 20*time.Second, content.Msg("cli.flag.timeout"))
	fs.StringVar(&o.fromTrace, "trace", "", content.Msg("ops.flag.trace"))
	cli.Metavars(fs, map[string]string{"output": "FILE", "trace": "FILE|reference"})
	_ = cmd.MarkFlagFilename("output")
	_ = cmd.RegisterFlagCompletionFunc("trace", completeTraces)
	return cmd
}

// Run writes the report and returns the exit code.
func (o *reportOptions) Run(ctx context.Context) int {
	c, stdout, stderr := o.common, o.streams.Out, o.streams.ErrOut
	asJSON, out, timeout, fromTrace := &o.json, o.out, &o.timeout, &o.fromTrace
	if *fromTrace != "" {
		r, err := traceReport(ctx, c, *fromTrace)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return cli.ExitUsage
		}
		return writeReport(r, *asJSON, out, stdout, stderr)
	}
	s, err := c.build()
	if err != nil {
		return exitFor(err, stderr)
	}
	defer s.closeLog()
	rep := s.run.Once(ctx, *timeout) // the run's notices first among its problems
	now := reportNow()
	progress := s.state.Progress
	if s.store != nil {
		if f, err := s.store.Load(); err == nil {
			progress = f.Progress
		}
	}
	r := report.Build(s.lab, rep, progress, now)
	return writeReport(r, *asJSON, out, stdout, stderr)
}

// traceReport is the report of a recorded session (or "reference").
func traceReport(ctx context.Context, c *common, name string) (report.Report, error) {
	tr, kit, err := c.openTrace(name)
	if err != nil {
		return report.Report{}, err
	}
	return report.FromTrace(ctx, kit.Text, kit.Steps, tr)
}

// writeReport prints the report to stdout or, with -o, to a file.
func writeReport(r report.Report, asJSON bool, out string, stdout, stderr io.Writer) int {
	if err := r.Save(asJSON, out, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}
	return cli.ExitOK
}
