// Package tuicmd is `labmate` with no command: the interactive companion
// (the TUI) on the learner's lab, with a picker first when nothing says
// which lab.
package tuicmd

import (
	"context"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/config"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/quietstderr"
	"github.com/labhub/labmate/state"
	"github.com/labhub/labmate/tui"
	"github.com/labhub/labmate/tui/plain"
)

// Options are the root command's own flags.
type Options struct {
	Theme  string
	Record string
	// Plain runs plain mode (tui/plain) instead of the full-screen view;
	// $LABMATE_PLAIN does too.
	Plain bool
	Class cli.ClassFlags

	streams cli.Streams
	ctx     context.Context
	f       *cli.Factory
	// quit is the exit code when the learner left the picker (or it
	// could not run): nothing else runs.
	quit *int
}

// NewCmd is the root command, `labmate`: it opens the TUI.
func NewCmd(f *cli.Factory, streams cli.Streams) *cobra.Command {
	o := &Options{streams: streams}
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
// flags', else the one the learner picks on a terminal.
func (o *Options) Complete(f *cli.Factory, cmd *cobra.Command, _ []string) error {
	o.ctx = cmd.Context()
	g, err := f.ForClass(o.ctx, o.Class.File)
	if err != nil {
		return err
	}
	g, code, ok := g.PickLab(o.ctx, o.Theme, o.streams)
	if !ok {
		o.quit = &code
		return nil
	}
	o.f = g
	_, err = g.Lab()
	return err
}

// Validate has nothing to refuse: every flag stands alone.
func (o *Options) Validate() error { return nil }

// Run opens the TUI and returns the exit code.
func (o *Options) Run() int {
	if o.quit != nil {
		return *o.quit
	}
	stderr := o.streams.ErrOut
	s, err := o.f.Session(true)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}
	o.f.RememberLab()
	if err := s.Record(o.Record); err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}
	defer func() {
		if err := s.Stop(o.Record); err != nil {
			fmt.Fprintln(stderr, err)
		}
	}()

	opts := o.options(s)
	ctx, cancel := context.WithCancel(o.ctx)
	defer cancel()
	nWarn := len(s.Warnings)
	pub := s.Join(ctx, o.Class, true)
	opts.Notices = append(opts.Notices, s.Warnings[nWarn:]...)
	if pub != nil {
		opts = opts.Publishing(pub)
	}
	opts.ClassLab = o.f.ClassLabNotes(ctx, o.Class.File)
	opts.Updates = s.Run.Start(ctx).Updates()
	if o.Plain {
		err = plain.Run(ctx, opts, o.plainConfig())
	} else {
		// stderr goes to the log meanwhile: what writes there behind the
		// TUI's back never draws over the screen.
		err = quietstderr.Run(o.f.LogFile(), state.Dir, func() error { return tui.Run(ctx, opts) })
	}
	if err != nil {
		fmt.Fprintln(stderr, content.Msg("cli.tui_failed", "err", err))
		return cli.ExitFail
	}
	return cli.ExitOK
}

// options are the TUI's options for the session: the lab, where the
// learner was, progress saved to the state store, the config file.
func (o *Options) options(s *cli.Session) tui.Options {
	opts := tui.Options{
		Lab:       s.Lab,
		Root:      s.Root,
		Place:     s.Place,
		Rescan:    s.Run.Rescan(),
		Theme:     o.Theme,
		Notices:   s.Warnings,
		StartPage: s.File.Progress.CurrentStep,
		Progress:  hintProgress(s.File.Progress),
		Started:   s.File.Progress.StartedAt,
		PassedAt:  s.File.Progress.PassedAt,
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
