package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/labrun/textout"
	"github.com/labhub/labmate/trace"
	"github.com/labhub/labmate/tui"
	"github.com/labhub/labmate/tui/config"
)

// replaySession is a trace wired to a run of its lab through the replay
// source: nothing of it touches the learner's files, state or cluster.
type replaySession struct {
	trace *trace.Trace
	kit   *labkit.Lab
	lab   *content.Lab
	run   *labrun.Run
}

// replayOptions are `labmate replay`'s flags and argument.
type replayOptions struct {
	*common
	speed   string
	noTUI   bool
	maxGap  time.Duration
	theme   string
	name    string
	streams cli.Streams
}

// newReplayCmd is `labmate replay [FILE] [--speed N|instant] [--no-tui]`:
// it plays a trace (the built-in reference run when no FILE is given)
// through the same engine and TUI a live session uses.
func newReplayCmd(c *common, streams cli.Streams) *cobra.Command {
	o := &replayOptions{common: c, streams: streams, name: trace.ReferenceName}
	cmd := cli.NewCommand("replay", "[FILE] "+cli.FlagsUse(), cli.MaxArgs(1), func(cmd *cobra.Command, args []string) int {
		if len(args) == 1 {
			o.name = args[0]
		}
		return o.Run(cmd.Context())
	})
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completeTraces(nil, nil, "")
	}
	fs := cmd.Flags()
	fs.StringVar(&o.speed, "speed", "1", content.Msg("trace.flag.speed"))
	fs.BoolVar(&o.noTUI, "no-tui", false, content.Msg("trace.flag.no_tui"))
	fs.DurationVar(&o.maxGap, "max-gap", 10*time.Second, content.Msg("trace.flag.max_gap"))
	fs.StringVar(&o.theme, "theme", "", content.Msg("cli.flag.theme"))
	cli.Metavars(fs, map[string]string{"speed": "N|instant", "theme": "dark|light|auto"})
	_ = cmd.RegisterFlagCompletionFunc("speed", cobra.FixedCompletions([]cobra.Completion{"1", "10", "instant"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("theme", cobra.FixedCompletions([]cobra.Completion{"dark", "light", "auto"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Run plays the trace and returns the exit code.
func (o *replayOptions) Run(ctx context.Context) int {
	stdout, stderr := o.streams.Out, o.streams.ErrOut
	speedArg, noTUI, maxGap, theme := &o.speed, &o.noTUI, &o.maxGap, &o.theme
	speed, err := trace.ParseSpeed(*speedArg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}
	name := o.name
	if name == trace.ReferenceName && !*noTUI {
		if code, ok := o.pickLab(ctx, *theme, o.streams); !ok {
			return code
		}
	}
	rs, err := o.openReplay(name, trace.ReplayOptions{Speed: speed, MaxGap: *maxGap})
	if err != nil {
		return exitFor(err, stderr)
	}
	for _, w := range rs.trace.Warnings {
		fmt.Fprintln(stderr, w)
	}
	if *noTUI {
		passed, played := textout.Replay(ctx, rs.run, rs.trace, rs.lab, stdout)
		if passed || !played {
			return cli.ExitOK
		}
		return cli.ExitFail
	}
	return rs.runTUI(ctx, *theme, stderr)
}

// openReplay reads a trace and wires it to a fresh engine for its lab,
// with an in-memory witness: a replay never writes the learner's state.
func (o *replayOptions) openReplay(name string, opts trace.ReplayOptions) (*replaySession, error) {
	tr, kit, err := o.openTrace(name)
	if err != nil {
		return nil, err
	}
	return &replaySession{trace: tr, kit: kit, lab: kit.Text, run: replayRun(kit, tr, opts)}, nil
}

// runTUI shows the replay in the TUI, marked as a replay, with the
// status changes precomputed so "jump to the next change" stops at each.
// The learner's TUI config (theme, keys) applies; their progress does not
// move.
func (rs *replaySession) runTUI(ctx context.Context, theme string, stderr io.Writer) int {
	_, changes, err := labrun.Exact(ctx, rs.lab, rs.kit.Steps, rs.trace)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}
	rs.run.Trace().SetMarks(labrun.Marks(changes))
	cfg, warnings := config.Load(config.DefaultPath())
	if theme != "" {
		cfg.Theme = theme
	}
	opts := tui.WithConfig(tui.Options{
		Lab:    rs.lab,
		Root:   rs.trace.Header.Root,
		Banner: content.Msg("trace.banner_static", "name", trace.DisplayName(rs.trace.Name)),
		Replay: rs.run.Trace(),
	}, cfg, warnings)
	opts.Updates = rs.run.Start(ctx).Updates()
	defer rs.run.Stop()
	if err := tui.Run(ctx, opts); err != nil {
		fmt.Fprintln(stderr, content.Msg("cli.tui_failed", "err", err))
		return cli.ExitFail
	}
	return cli.ExitOK
}

// The TUI binds its replay keys to the replay source itself.
var _ tui.ReplayControl = (*trace.Replay)(nil)
