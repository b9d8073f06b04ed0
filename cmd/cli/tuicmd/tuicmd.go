// Package tuicmd is `labmate` with no command: the interactive companion
// (the TUI) on the learner's lab, with a picker first when nothing says
// which lab.
package tuicmd

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/config"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/quietstderr"
	"github.com/labhub/labmate/state"
	"github.com/labhub/labmate/tui"
	"github.com/labhub/labmate/tui/plain"
	"github.com/labhub/labmate/tui/terminal"
)

// Options are the root command's own flags.
type Options struct {
	Theme  string
	Record string
	// Plain runs plain mode (tui/plain) instead of the full-screen view;
	// $LABMATE_PLAIN does too.
	Plain bool
	Class cli.ClassFlags

	streams  cli.Streams
	prompter cli.Prompter
	// f is the factory of the lab the TUI opens (the class's, else the
	// flags'); the picker may choose another in Run.
	f cli.Factory
}

// NewCmd is the root command, `labmate`: it opens the TUI.
func NewCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &Options{streams: streams, prompter: f.Prompter()}
	cmd := cli.Command("labmate", cli.FlagsUse(), cli.NoArgs, f, o)
	fs := cmd.Flags()
	fs.StringVar(&o.Theme, "theme", "", content.Msg("cli.flag.theme"))
	fs.StringVar(&o.Record, "record", "", content.Msg("cli.flag.record"))
	fs.BoolVar(&o.Plain, "plain", plainFromEnv(os.Getenv("LABMATE_PLAIN")), content.Msg("cli.flag.plain"))
	o.Class.AddFlags(fs)
	cli.Metavars(fs, map[string]string{"theme": "dark|light|auto", "record": "FILE"})
	_ = cmd.RegisterFlagCompletionFunc("theme", cobra.FixedCompletions([]cobra.Completion{"dark", "light", "auto"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.MarkFlagFilename("record")
	return cmd
}

// Complete finds the lab: the class's (--class, no lab named), else the
// flags'. When nothing says which of several labs, the learner picks one
// in Run.
func (o *Options) Complete(f cli.Factory, cmd *cobra.Command, _ []string) error {
	g, err := f.ForClass(cmd.Context(), o.Class.File)
	if err != nil {
		return err
	}
	o.f = g
	if _, err := g.Lab(); err != nil {
		if _, choose := catalog.IsChoose(err); !choose {
			return err
		}
	}
	return nil
}

// Run lets the learner pick the lab when nothing chose one, then opens
// the TUI on it.
func (o *Options) Run(ctx context.Context) (err error) {
	f, err := cli.PickLab(ctx, o.f, o.prompter, o.Theme)
	if err != nil {
		return err
	}
	if _, err := f.Lab(); err != nil {
		return cli.Env(err)
	}
	s, err := f.Session(true)
	if err != nil {
		return cli.Env(err)
	}
	f.RememberLab()
	if err := s.Record(o.Record); err != nil {
		return cli.Env(err)
	}
	defer func() {
		if stop := s.Stop(o.Record); stop != nil {
			err = errors.Join(err, cli.Warn(stop))
		}
	}()

	opts := o.options(s)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	nWarn := len(s.Warnings)
	pub := s.Join(ctx, o.Class, true)
	opts.Notices = append(opts.Notices, s.Warnings[nWarn:]...)
	if pub != nil {
		opts = opts.Publishing(pub)
	}
	opts.ClassLab = f.ClassLabNotes(ctx, o.Class.File)
	opts.PlanCatchUp = catchUp(f, s.State, pub)
	opts.Updates = s.Run.Start(ctx).Updates()
	if o.Plain {
		err = plain.Run(ctx, opts, o.plainConfig())
	} else {
		tc := terminal.NewContext(o.streams.In, o.streams.Out, opts.Theme, slog.Default())
		// stderr goes to the log meanwhile (or stderr.log in the state
		// dir): what writes there behind the TUI's back never draws over
		// the screen.
		err = quietstderr.Run(f.LogFile(), f.StateDir, func() error { return tui.Run(ctx, tc, opts) })
	}
	if err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("cli.tui_failed", "err", err))
	}
	return nil
}

// options are the TUI's options for the session: the lab, where the
// learner was, progress saved to the state store, the config file.
func (o *Options) options(s *cli.Session) tui.Options {
	opts := tui.Options{
		Lab:        s.Lab,
		Root:       s.Root,
		Place:      s.Place,
		Rescan:     s.Run.Rescan(),
		Theme:      o.Theme,
		Notices:    s.Warnings,
		StartPage:  s.File.Progress.CurrentStep,
		Progress:   hintProgress(s.File.Progress),
		Started:    s.File.Progress.StartedAt,
		PassedAt:   s.File.Progress.PassedAt,
		CaughtUpAt: s.File.Progress.CaughtUpAt,
	}
	if s.Store != nil {
		store := s.Store
		opts.OnProgress = func(step, hints int, solution bool) error { return store.RecordHints(step, hints, solution) }
		opts.OnPage = func(page int) error { return store.Record(state.Event{Kind: state.Visited, Step: page}) }
	}
	labs, _ := o.f.Flags()
	cfg, warnings := config.Load(config.Path(labs.Config))
	if o.Theme != "" {
		cfg.Theme = o.Theme
	}
	return tui.WithConfig(opts, cfg, warnings)
}

// plainFromEnv reads $LABMATE_PLAIN: set to anything but "", "0",
// "false", "no" or "off" it asks for plain mode.
func plainFromEnv(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// plainConfig is plain mode on the command's streams: lines as wide as
// the terminal (80 when it is none), colour only when CLICOLOR_FORCE
// asks for it, the editor beside labmate's pane inside tmux.
func (o *Options) plainConfig() plain.Config {
	cfg := plain.Config{In: o.streams.In, Out: o.streams.Out, Width: 80,
		Color: plainFromEnv(os.Getenv("CLICOLOR_FORCE")),
		Tmux:  os.Getenv("TMUX") != "", Pane: os.Getenv("TMUX_PANE")}
	if f, ok := o.streams.Out.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			cfg.Width = w
		}
	}
	return cfg
}

// catchUp is the TUI's catch-up key's plan: the one `labmate catch-up`
// makes (cli.PlanCatchUp). The TUI asks for one at a time, and nothing
// else uses the factory while it runs. In a class, each step caught up
// is published as such (pub nil: none), as a session's start publishes
// the earlier ones: the board, the export and the report show it caught
// up, not passed.
func catchUp(f cli.Factory, st *cli.State, pub *learner.Publisher) func(context.Context, int) (tui.CatchUpPlan, error) {
	var caughtUp func(int)
	if pub != nil {
		caughtUp = func(n int) { pub.Publish(learner.Update{CaughtUp: n}) }
	}
	return func(ctx context.Context, to int) (tui.CatchUpPlan, error) {
		p, err := cli.PlanCatchUp(ctx, f, st, to, caughtUp)
		if err != nil {
			return nil, err // not a nil *Plan in an interface
		}
		return p, nil
	}
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
