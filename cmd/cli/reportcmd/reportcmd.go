// Package reportcmd is `labmate report [--json] [-o FILE]`: the skeleton
// of an incident report of the learner's run (per step: when it passed,
// hints used, the values that decided it), or of a recorded session
// (--trace).
package reportcmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/report"
	"github.com/labhub/labmate/trace"
)

// Now is the report's clock; tests fix it.
var Now = time.Now

// Options are `labmate report`'s flags.
type Options struct {
	JSON    bool
	Out     string
	Timeout time.Duration
	Trace   string

	streams cli.Streams
	// session is the factory's run of the lab (without --trace).
	session func(cli.Lenient) (*cli.Session, error)
	trace   *trace.Trace
	kit     *labkit.Lab
}

// NewCmd is `labmate report`. Exit 0 when the report was written, 2
// otherwise; how far the learner got is in the report, not in the exit
// code.
func NewCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &Options{streams: streams}
	cmd := cli.Command("report", cli.FlagsUse(), cli.NoArgs, f, o)
	fs := cmd.Flags()
	fs.BoolVar(&o.JSON, "json", false, content.Msg("ops.flag.report_json"))
	fs.StringVarP(&o.Out, "output", "o", "", content.Msg("ops.flag.output"))
	fs.DurationVar(&o.Timeout, "timeout", 20*time.Second, content.Msg("cli.flag.timeout"))
	fs.StringVar(&o.Trace, "trace", "", content.Msg("ops.flag.trace"))
	cli.Metavars(fs, map[string]string{"output": "FILE", "trace": "FILE|reference"})
	_ = cmd.MarkFlagFilename("output")
	_ = cmd.RegisterFlagCompletionFunc("trace", cli.CompleteTraces)
	return cmd
}

// Complete finds the lab: the trace's with --trace, else the flags'.
func (o *Options) Complete(f cli.Factory, _ *cobra.Command, _ []string) error {
	o.session = f.Session
	var err error
	if o.Trace != "" {
		o.trace, o.kit, err = f.Trace(o.Trace)
		return err
	}
	o.kit, err = f.Lab()
	return err
}

// Run writes the report.
func (o *Options) Run(ctx context.Context) error {
	if o.trace != nil {
		r, err := report.FromTrace(ctx, o.kit.Text, o.kit.Steps, o.trace)
		if err != nil {
			return cli.Env(err)
		}
		return o.write(r)
	}
	s, err := o.session(false)
	if err != nil {
		return cli.Env(err)
	}
	rep := s.Run.Once(ctx, o.Timeout) // the run's notices first among its problems
	now := Now()
	progress := s.File.Progress
	if s.Store != nil {
		if f, err := s.Store.Load(); err == nil {
			progress = f.Progress
		}
	}
	return o.write(report.Build(s.Lab, rep, progress, now))
}

// write prints the report to stdout or, with -o, to a file.
func (o *Options) write(r report.Report) error {
	return cli.Env(r.Save(o.JSON, o.Out, o.streams.Out, o.streams.ErrOut))
}
