// Package replaycmd is `labmate replay [FILE]`: a recorded session (the
// lab's built-in reference run when no FILE is given) played through the
// same engine and TUI a live session uses.
package replaycmd

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/config"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/labrun/textout"
	"github.com/labhub/labmate/trace"
	"github.com/labhub/labmate/tui"
	"github.com/labhub/labmate/tui/terminal"
)

// Options are `labmate replay`'s flags and argument.
type Options struct {
	Speed  string
	NoTUI  bool
	MaxGap time.Duration
	Theme  string

	streams  cli.Streams
	prompter cli.Prompter
	f        cli.Factory
	name     string
	speed    float64
	// trace and kit are the trace played and its lab; for the reference
	// run in the TUI they are read in Run, once the learner picked the
	// lab when nothing says which.
	trace *trace.Trace
	kit   *labkit.Lab
}

// NewCmd is `labmate replay [FILE] [--speed N|instant] [--no-tui]`.
func NewCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &Options{streams: streams, prompter: f.Prompter()}
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

// Complete reads the speed and the trace with its lab; the reference run
// in the TUI is read in Run, after the learner picked its lab when
// nothing says which.
func (o *Options) Complete(f cli.Factory, _ *cobra.Command, args []string) error {
	o.f, o.name = f, trace.ReferenceName
	if len(args) == 1 {
		o.name = args[0]
	}
	speed, err := trace.ParseSpeed(o.Speed)
	if err != nil {
		return err
	}
	o.speed = speed
	if o.picks() {
		if _, err := f.Lab(); err == nil || !isChoose(err) {
			o.trace, o.kit, err = f.Trace(o.name)
			return err
		}
		return nil
	}
	o.trace, o.kit, err = f.Trace(o.name)
	return err
}

// picks says the learner may pick the lab of the reference run (in the
// TUI).
func (o *Options) picks() bool { return o.name == trace.ReferenceName && !o.NoTUI }

func isChoose(err error) bool {
	_, ok := catalog.IsChoose(err)
	return ok
}

// Run plays the trace: nil, or exit code 1 when a played trace ends with
// a step not passed (--no-tui).
func (o *Options) Run(ctx context.Context) error {
	if o.trace == nil {
		f, err := cli.PickLab(ctx, o.f, o.prompter, o.Theme)
		if err != nil {
			return err
		}
		if o.trace, o.kit, err = f.Trace(o.name); err != nil {
			return cli.Env(err)
		}
	}
	stdout, stderr := o.streams.Out, o.streams.ErrOut
	for _, w := range o.trace.Warnings {
		fmt.Fprintln(stderr, w)
	}
	// A replay wires nothing of the learner's: no files, state or
	// cluster; its memory of the past is kept in memory only.
	run := o.f.Replay(o.kit, o.trace, trace.ReplayOptions{Speed: o.speed, MaxGap: o.MaxGap})
	if o.NoTUI {
		passed, played := textout.Replay(ctx, run, o.trace, o.kit.Text, stdout)
		if passed || !played {
			return nil
		}
		return cli.Quiet(cli.ExitFail)
	}
	return o.runTUI(ctx, run)
}

// runTUI shows the replay in the TUI, marked as a replay, with the
// status changes precomputed so "jump to the next change" stops at each.
// The learner's TUI config (theme, keys) applies; their progress does not
// move.
func (o *Options) runTUI(ctx context.Context, run *labrun.Run) error {
	_, changes, err := labrun.Exact(ctx, o.kit.Text, o.kit.Steps, o.trace)
	if err != nil {
		return cli.Env(err)
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
	opts.Updates = run.Start(ctx).Updates()
	defer run.Stop()
	tc := terminal.NewContext(o.streams.In, o.streams.Out, opts.Theme, slog.Default())
	if err := tui.Run(ctx, tc, opts); err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("cli.tui_failed", "err", err))
	}
	return nil
}

// The TUI binds its replay keys to the replay source itself.
var _ tui.ReplayControl = (*trace.Replay)(nil)
