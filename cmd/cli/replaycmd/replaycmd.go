// Package replaycmd is `labmate replay [FILE]`: a recorded session (the
// lab's built-in reference run when no FILE is given) played through the
// same engine and TUI a live session uses.
package replaycmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/config"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/labrun/textout"
	"github.com/labhub/labmate/trace"
	"github.com/labhub/labmate/tui"
)

// Options are `labmate replay`'s flags and argument.
type Options struct {
	Speed  string
	NoTUI  bool
	MaxGap time.Duration
	Theme  string

	streams cli.Streams
	ctx     context.Context
	f       *cli.Factory
	name    string
	speed   float64
	quit    *int
	trace   *trace.Trace
	kit     *labkit.Lab
}

// NewCmd is `labmate replay [FILE] [--speed N|instant] [--no-tui]`.
func NewCmd(f *cli.Factory, streams cli.Streams) *cobra.Command {
	o := &Options{streams: streams}
	cmd := cli.Command("replay", "[FILE] "+cli.FlagsUse(), cli.MaxArgs(1), f, o)
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return cli.CompleteTraces(nil, nil, "")
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Speed, "speed", "1", content.Msg("trace.flag.speed"))
	fs.BoolVar(&o.NoTUI, "no-tui", false, content.Msg("trace.flag.no_tui"))
	fs.DurationVar(&o.MaxGap, "max-gap", 10*time.Second, content.Msg("trace.flag.max_gap"))
	fs.StringVar(&o.Theme, "theme", "", content.Msg("cli.flag.theme"))
	cli.Metavars(fs, map[string]string{"speed": "N|instant", "theme": "dark|light|auto"})
	_ = cmd.RegisterFlagCompletionFunc("speed", cobra.FixedCompletions([]cobra.Completion{"1", "10", "instant"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("theme", cobra.FixedCompletions([]cobra.Completion{"dark", "light", "auto"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Complete reads the speed and the trace with its lab (for the
// reference run in the TUI, the lab the learner picks when nothing says
// which).
func (o *Options) Complete(f *cli.Factory, cmd *cobra.Command, args []string) error {
	o.ctx, o.name = cmd.Context(), trace.ReferenceName
	if len(args) == 1 {
		o.name = args[0]
	}
	speed, err := trace.ParseSpeed(o.Speed)
	if err != nil {
		return err
	}
	o.speed = speed
	if o.name == trace.ReferenceName && !o.NoTUI {
		g, code, ok := f.PickLab(o.ctx, o.Theme, o.streams)
		if !ok {
			o.quit = &code
			return nil
		}
		f = g
	}
	o.f = f
	o.trace, o.kit, err = f.Trace(o.name)
	return err
}

// Validate has nothing to refuse that Complete did not.
func (o *Options) Validate() error { return nil }

// Run plays the trace and returns the exit code.
func (o *Options) Run() int {
	if o.quit != nil {
		return *o.quit
	}
	stdout, stderr := o.streams.Out, o.streams.ErrOut
	for _, w := range o.trace.Warnings {
		fmt.Fprintln(stderr, w)
	}
	// A replay wires nothing of the learner's: no files, state or
	// cluster; its memory of the past is kept in memory only.
	run := o.f.Replay(o.kit, o.trace, trace.ReplayOptions{Speed: o.speed, MaxGap: o.MaxGap})
	if o.NoTUI {
		passed, played := textout.Replay(o.ctx, run, o.trace, o.kit.Text, stdout)
		if passed || !played {
			return cli.ExitOK
		}
		return cli.ExitFail
	}
	return o.runTUI(run)
}

// runTUI shows the replay in the TUI, marked as a replay, with the
// status changes precomputed so "jump to the next change" stops at each.
// The learner's TUI config (theme, keys) applies; their progress does not
// move.
func (o *Options) runTUI(run *labrun.Run) int {
	stderr := o.streams.ErrOut
	_, changes, err := labrun.Exact(o.ctx, o.kit.Text, o.kit.Steps, o.trace)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}
	run.Trace().SetMarks(labrun.Marks(changes))
	labs, _ := o.f.Flags()
	cfg, warnings := config.Load(config.Path(labs.Config))
	if o.Theme != "" {
		cfg.Theme = o.Theme
	}
	opts := tui.WithConfig(tui.Options{
		Lab:    o.kit.Text,
		Root:   o.trace.Header.Root,
		Banner: content.Msg("trace.banner_static", "name", trace.DisplayName(o.trace.Name)),
		Replay: run.Trace(),
	}, cfg, warnings)
	opts.Updates = run.Start(o.ctx).Updates()
	defer run.Stop()
	if err := tui.Run(o.ctx, opts); err != nil {
		fmt.Fprintln(stderr, content.Msg("cli.tui_failed", "err", err))
		return cli.ExitFail
	}
	return cli.ExitOK
}

// The TUI binds its replay keys to the replay source itself.
var _ tui.ReplayControl = (*trace.Replay)(nil)
