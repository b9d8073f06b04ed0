package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/state"
	"github.com/labhub/labmate/trace"
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
	streams ioStreams
}

// newTUICmd is the root command, `labmate`: it opens the TUI.
func newTUICmd(c *common, streams ioStreams) *cobra.Command {
	o := &tuiOptions{common: c, streams: streams}
	cmd := newCommand("labmate", flagsUse(), noArgs, func(cmd *cobra.Command, _ []string) int { return o.Run(cmd.Context()) })
	fs := cmd.Flags()
	fs.StringVar(&o.theme, "theme", "", content.Msg("cli.flag.theme"))
	fs.StringVar(&o.record, "record", "", content.Msg("cli.flag.record"))
	fs.StringVar(&o.config, "config", "", content.Msg("cli.flag.config"))
	o.class.bind(fs)
	metavars(fs, map[string]string{"theme": "dark|light|auto", "record": "FILE", "config": "FILE"})
	_ = cmd.RegisterFlagCompletionFunc("theme", cobra.FixedCompletions([]cobra.Completion{"dark", "light", "auto"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.MarkFlagFilename("record")
	_ = cmd.MarkFlagFilename("config", "toml")
	return cmd
}

// Run opens the TUI and returns the exit code.
func (o *tuiOptions) Run(ctx context.Context) int {
	stderr := o.streams.ErrOut
	c := o.common
	themeFlag, record, configPath := &o.theme, &o.record, &o.config
	c.lenient = true
	if code, ok := c.pickLab(ctx, o.theme, o.streams); !ok {
		return code
	}
	s, err := c.build()
	if err != nil {
		return exitFor(err, stderr)
	}
	defer s.closeLog()
	c.rememberLab(s.kit)
	if *record != "" {
		stopRec, err := s.startRecording(*record)
		if err != nil {
			fmt.Fprintln(stderr, content.Msg("cli.record_open", "path", *record, "err", err))
			return exitUsage
		}
		defer func() {
			if err := stopRec(); err != nil {
				fmt.Fprintln(stderr, content.Msg("cli.record_failed", "path", *record, "err", err))
			}
		}()
	}

	opts := tui.Options{
		Lab:       s.lab,
		Root:      s.root,
		Rescan:    s.files.Rescan,
		Theme:     *themeFlag,
		Notices:   s.warnings,
		StartPage: s.state.Progress.CurrentStep,
		Progress:  hintProgress(s.state.Progress),
	}
	if s.store != nil {
		store := s.store
		opts.OnProgress = func(step, hints int, solution bool) { _ = store.RecordHints(step, hints, solution) }
		opts.OnPage = func(page int) { _ = store.Record(state.Event{Kind: state.Visited, Step: page}) }
	}
	cfgPath := *configPath
	if cfgPath == "" {
		cfgPath = config.DefaultPath()
	}
	cfg, warnings := config.Load(cfgPath)
	if *themeFlag != "" {
		cfg.Theme = *themeFlag
	}
	opts = tui.WithConfig(opts, cfg, warnings)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	nWarn := len(s.warnings)
	pub := s.startClass(ctx, o.class, true)
	opts.Notices = append(opts.Notices, s.warnings[nWarn:]...)
	var taps []func(engine.Report)
	if pub != nil {
		taps = append(taps, func(rep engine.Report) { pub.Publish(class.Update{Report: &rep}) })
		opts.Class = pub.Statuses()
		onProgress, onPage := opts.OnProgress, opts.OnPage
		opts.OnProgress = func(step, hints int, solution bool) {
			pub.Publish(class.Update{Hints: &class.Hints{Step: step, Seen: hints, Solution: solution}})
			if onProgress != nil {
				onProgress(step, hints, solution)
			}
		}
		opts.OnPage = func(page int) {
			pub.Publish(class.Update{Page: &page})
			if onPage != nil {
				onPage(page)
			}
		}
	}
	reports, stop := s.publish(ctx, taps...)
	defer stop()
	opts.Reports = reports
	restoreStderr := s.quietStderr()
	if restoreStderr != nil {
		defer restoreStderr()
	}
	err = tui.Run(ctx, opts)
	if restoreStderr != nil {
		// The error (a panic's value and stack, say) is for the terminal,
		// not for the log.
		restoreStderr()
	}
	if err != nil {
		fmt.Fprintln(stderr, content.Msg("cli.tui_failed", "err", err))
		return exitFail
	}
	return exitOK
}

// publish starts the engine and hands its reports to the TUI, recording
// the first time each step passed on the way, and handing each report to
// the taps (the class publisher; a tap must not block). stop ends the
// engine and waits for it.
func (s *setup) publish(ctx context.Context, taps ...func(engine.Report)) (<-chan engine.Report, func()) {
	raw, stop := s.engine.Start(ctx, s.sources)
	if s.store == nil && len(taps) == 0 {
		return raw, stop
	}
	out := make(chan engine.Report, 1)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case rep := <-raw:
				for _, tap := range taps {
					tap(rep)
				}
				if rep.Ready {
					s.recordPassesQuietly(rep)
				}
				engine.SendLatest(ctx, out, rep)
			}
		}
	}()
	return out, stop
}

// recordPassesQuietly records first passes without writing to the
// terminal (the TUI owns it); a failure or even a panic there costs the
// progress record, never the flow of reports to the screen.
func (s *setup) recordPassesQuietly(rep engine.Report) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("recording progress panicked", "panic", r)
		}
	}()
	recordPasses(s, rep, time.Now(), io.Discard)
}

// quietStderr sends whatever writes to stderr behind the TUI's back to the
// --log file, or else to stderr.log in labmate's state dir, and returns the
// function that gives the terminal its stderr back (nil if nothing
// changed; calling it again does nothing).
func (s *setup) quietStderr() func() {
	f := s.logFile
	if f == nil {
		dir, err := state.Dir()
		if err != nil || os.MkdirAll(dir, 0o700) != nil {
			return nil
		}
		if f, err = os.Create(filepath.Join(dir, "stderr.log")); err != nil {
			return nil
		}
	}
	restore, err := quietStderr(f)
	if err != nil {
		return nil
	}
	return sync.OnceFunc(func() {
		restore()
		if f != s.logFile {
			f.Close()
		}
	})
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

// startRecording writes every observation the engine applies to a trace.
// The returned stop closes it and reports the first write error, if any.
func (s *setup) startRecording(path string) (func() error, error) {
	rec, err := trace.Create(path, trace.Header{Lab: s.lab.ID, Root: s.root, Labmate: version})
	if err != nil {
		return nil, err
	}
	s.engine.SetTap(rec.Record)
	return func() error {
		werr := rec.Err()
		if cerr := rec.Close(); werr == nil {
			werr = cerr
		}
		return werr
	}, nil
}
