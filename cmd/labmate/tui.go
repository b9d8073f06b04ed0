package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/internal/quietstderr"
	"github.com/labhub/labmate/state"
	"github.com/labhub/labmate/tui"
	"github.com/labhub/labmate/tui/config"
)

// tuiOptions are the root command's own flags: the interactive
// companion on the learner's lab.
type tuiOptions struct {
	*common
	theme   string
	record  string
	config  string
	class   classFlags
	streams cli.Streams
}

// newTUICmd is the root command, `labmate`: it opens the TUI.
func newTUICmd(c *common, streams cli.Streams) *cobra.Command {
	o := &tuiOptions{common: c, streams: streams}
	cmd := cli.NewCommand("labmate", cli.FlagsUse(), cli.NoArgs, func(cmd *cobra.Command, _ []string) int { return o.Run(cmd.Context()) })
	fs := cmd.Flags()
	fs.StringVar(&o.theme, "theme", "", content.Msg("cli.flag.theme"))
	fs.StringVar(&o.record, "record", "", content.Msg("cli.flag.record"))
	fs.StringVar(&o.config, "config", "", content.Msg("cli.flag.config"))
	o.class.bind(fs)
	cli.Metavars(fs, map[string]string{"theme": "dark|light|auto", "record": "FILE", "config": "FILE"})
	_ = cmd.RegisterFlagCompletionFunc("theme", cobra.FixedCompletions([]cobra.Completion{"dark", "light", "auto"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.MarkFlagFilename("record")
	_ = cmd.MarkFlagFilename("config", "toml")
	return cmd
}

// Run opens the TUI and returns the exit code.
func (o *tuiOptions) Run(ctx context.Context) int {
	stderr := o.streams.ErrOut
	c := o.common
	c.lenient = true
	if err := c.useClassLab(ctx, o.class); err != nil {
		return exitFor(err, stderr)
	}
	if code, ok := c.pickLab(ctx, o.theme, o.streams); !ok {
		return code
	}
	s, err := c.build()
	if err != nil {
		return exitFor(err, stderr)
	}
	defer s.closeLog()
	c.rememberLab()
	if code, ok := s.record(o.record, stderr); !ok {
		return code
	}
	defer s.stop(o.record, stderr)

	opts := o.options(s)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	nWarn := len(s.warnings)
	pub := s.startClass(ctx, o.class, true)
	opts.Notices = append(opts.Notices, s.warnings[nWarn:]...)
	if pub != nil {
		opts = opts.Publishing(pub)
	}
	opts.ClassLab = c.classLabNotes(ctx, o.class)
	opts.Updates = s.run.Start(ctx).Updates()
	if err := s.runTUI(ctx, opts); err != nil {
		fmt.Fprintln(stderr, content.Msg("cli.tui_failed", "err", err))
		return cli.ExitFail
	}
	return cli.ExitOK
}

// options are the TUI's options for the run s: the lab, where the
// learner was, progress saved to the state store, the config file.
func (o *tuiOptions) options(s *setup) tui.Options {
	opts := tui.Options{
		Lab:       s.lab,
		Root:      s.root,
		Rescan:    s.run.Rescan(),
		Theme:     o.theme,
		Notices:   s.warnings,
		StartPage: s.state.Progress.CurrentStep,
		Progress:  hintProgress(s.state.Progress),
	}
	if s.store != nil {
		store := s.store
		opts.OnProgress = func(step, hints int, solution bool) error { return store.RecordHints(step, hints, solution) }
		opts.OnPage = func(page int) error { return store.Record(state.Event{Kind: state.Visited, Step: page}) }
	}
	cfgPath := o.config
	if cfgPath == "" {
		cfgPath = config.DefaultPath()
	}
	cfg, warnings := config.Load(cfgPath)
	if o.theme != "" {
		cfg.Theme = o.theme
	}
	return tui.WithConfig(opts, cfg, warnings)
}

// runTUI runs the TUI with stderr sent away from the terminal meanwhile.
func (s *setup) runTUI(ctx context.Context, opts tui.Options) error {
	return quietstderr.Run(s.logFile, state.Dir, func() error { return tui.Run(ctx, opts) })
}

func hintProgress(p state.Progress) map[int]tui.HintProgress {
	out := map[int]tui.HintProgress{}
	for step, n := range p.HintsSeen {
		hp := out[step]
		hp.Seen = n
		out[step] = hp
	}
	for step, seen := range p.SolutionSeen {
		hp := out[step]
		hp.Solution = seen
		out[step] = hp
	}
	return out
}

// record starts recording the run to path ("" records nothing); on
// failure it says so and returns the exit code.
func (s *setup) record(path string, stderr io.Writer) (int, bool) {
	if path == "" {
		return 0, true
	}
	if err := s.run.Record(path, version); err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage, false
	}
	return 0, true
}

// stop ends the run and says when the trace it recorded to path could
// not be written whole.
func (s *setup) stop(path string, stderr io.Writer) {
	if err := s.run.Stop(); err != nil {
		fmt.Fprintln(stderr, content.Msg("cli.record_failed", "path", path, "err", err))
	}
}
