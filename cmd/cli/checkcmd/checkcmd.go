// Package checkcmd is `labmate check`: evaluate the lab once (or keep
// watching, or replay a trace) and exit 0 when every requested step
// passed, 1 when one did not, 2 on a usage or environment error.
package checkcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/labrun/textout"
	"github.com/labhub/labmate/trace"
)

// Options are `labmate check`'s flags and what they name.
type Options struct {
	Step    int
	JSON    bool
	Timeout time.Duration
	Watch   bool
	Replay  string
	Record  string
	Class   cli.ClassFlags

	streams cli.Streams
	cmd     *cobra.Command
	// f is the factory of the lab checked (a --class run's may be the
	// class's); lab is its lab, or with --replay the trace's.
	f     cli.Factory
	lab   *labkit.Lab
	trace *trace.Trace // --replay
}

// NewCmd is `labmate check`.
func NewCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &Options{streams: streams}
	cmd := cli.Command("check", cli.FlagsUse(), cli.NoArgs, f, o)
	fs := cmd.Flags()
	fs.IntVar(&o.Step, "step", 0, content.Msg("cli.flag.step", "ranges", cli.LabFacts(func(l *content.Lab) string { return fmt.Sprintf("1-%d", len(l.Steps)) })))
	fs.BoolVar(&o.JSON, "json", false, content.Msg("cli.flag.json"))
	fs.DurationVar(&o.Timeout, "timeout", 20*time.Second, content.Msg("cli.flag.timeout"))
	fs.BoolVar(&o.Watch, "watch", false, content.Msg("ops.flag.watch"))
	fs.StringVar(&o.Replay, "replay", "", content.Msg("cli.flag.replay"))
	fs.StringVar(&o.Record, "record", "", content.Msg("cli.flag.record"))
	o.Class.AddFlags(fs)
	cli.Metavars(fs, map[string]string{"replay": "FILE|reference", "record": "FILE"})
	_ = cmd.RegisterFlagCompletionFunc("step", cli.CompleteSteps(f))
	_ = cmd.RegisterFlagCompletionFunc("replay", cli.CompleteTraces)
	_ = cmd.MarkFlagFilename("record")
	return cmd
}

// Complete finds the lab checked: the trace's with --replay, else the
// one the flags name (a --class run's may be the class's, fetched).
func (o *Options) Complete(f cli.Factory, cmd *cobra.Command, _ []string) error {
	o.cmd = cmd
	if o.Replay != "" {
		if o.replayExclusive() {
			return nil // Validate refuses it
		}
		var err error
		o.trace, o.lab, err = f.Trace(o.Replay)
		return err
	}
	g, err := f.ForClass(cmd.Context(), o.Class.File)
	if err != nil {
		return err
	}
	o.f = g
	o.lab, err = g.Lab()
	return err
}

func (o *Options) replayExclusive() bool { return o.Replay != "" && (o.Watch || o.Record != "") }

// Validate refuses flags that cannot work together and a step the lab
// does not have.
func (o *Options) Validate() error {
	if o.replayExclusive() {
		return &cli.UsageError{Cmd: o.cmd, Msg: content.Msg("cli.replay_exclusive")}
	}
	if n := len(o.lab.Text.Steps); o.Step < 0 || o.Step > n {
		return cli.Exit(cli.ExitUsage, content.Msg("cli.step_range", "step", o.Step, "max", n))
	}
	return nil
}

// Run evaluates (or watches, or replays): nil when every step printed
// passed, an exit code 1 when one did not, 2 when it could not run.
func (o *Options) Run(ctx context.Context) (err error) {
	stdout, stderr := o.streams.Out, o.streams.ErrOut
	if o.trace != nil {
		return o.checkReplay(ctx)
	}
	s, err := o.f.Session(false)
	if err != nil {
		return cli.Env(err)
	}
	if err := s.Record(o.Record); err != nil {
		return cli.Env(err)
	}
	defer func() {
		if stop := s.Stop(o.Record); stop != nil {
			err = errors.Join(err, cli.Warn(stop))
		}
	}()
	if o.Watch {
		s.Join(ctx, o.Class, false)
		sayClassLab(o.f.ClassLabNotes(ctx, o.Class.File), stderr)
		w := textout.Watch{JSON: o.JSON, Step: o.Step, ReadyTimeout: o.Timeout}
		// 0 when ctx ends, 2 when stdout refuses a line.
		return cli.Env(w.Run(ctx, s.Run, stdout))
	}
	rep := s.Run.Once(ctx, o.Timeout) // the run's notices first among its problems
	if o.Class.File != "" {
		s.PublishOnce(ctx, o.Class, stderr, func(ctx context.Context, pub *learner.Publisher) error { return learner.PublishOnce(ctx, pub, rep) })
	}
	return reportCode(textout.Report(stdout, rep, o.Step, o.JSON))
}

// checkReplay is `labmate check --replay FILE|reference`: the final
// results of a trace, evaluated exactly after every record.
func (o *Options) checkReplay(ctx context.Context) error {
	rep, _, err := labrun.Exact(ctx, o.lab.Text, o.lab.Steps, o.trace)
	if err != nil {
		return cli.Env(err)
	}
	return reportCode(textout.Report(o.streams.Out, rep, o.Step, o.JSON))
}

// reportCode is what a report printed (textout.Report) ends check with:
// nil when every step printed passed, exit code 1 when one did not, 2
// when it could not be written.
func reportCode(passed bool, err error) error {
	switch {
	case err != nil:
		return cli.Env(err)
	case passed:
		return nil
	}
	return cli.Quiet(cli.ExitFail)
}

// sayClassLab words the class lab's notes on stderr, for `check --watch
// --class`, which has no step strip.
func sayClassLab(notes <-chan classlab.LabNote, stderr io.Writer) {
	if notes == nil {
		return
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				slog.Error("class lab notes panicked", "panic", r)
			}
		}()
		for n := range notes {
			if n.Refused {
				fmt.Fprintln(stderr, n.Why)
				continue
			}
			fmt.Fprintln(stderr, content.Msg("class.lab.toast_new", "version", n.Version))
		}
	}()
}
