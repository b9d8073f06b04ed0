package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/state"
)

// watchOptions configure `labmate check --watch`.
type watchOptions struct {
	JSON bool
	// Step limits output and change detection to one step (0: all).
	Step int
	// ReadyTimeout is how long the first print waits for every source's
	// initial state (like `check --timeout`); after it the first print
	// goes out with what is known and a note saying so.
	ReadyTimeout time.Duration
	// Now stamps lines (time.Now when nil).
	Now func() time.Time
	// OnReport, if set, sees every report (the class publisher; it must
	// not block).
	OnReport func(engine.Report)
}

// watchRecord is one --json line.
type watchRecord struct {
	At      time.Time    `json:"at"`
	Changed []stepChange `json:"changed,omitempty"`
	engine.Report
}

// stepChange is one step whose status differs from the previous print.
type stepChange struct {
	Number int           `json:"number"`
	From   checks.Status `json:"from"`
	To     checks.Status `json:"to"`
}

// run is `labmate check --watch [--json]`: the full results once every
// source has delivered its first state, then again on every change of a
// step's status (not on every evaluation), one timestamped line per
// print: a JSON object with --json (the `check --json` shape plus "at"
// and "changed"), a compact row of statuses otherwise. It returns 0 when
// ctx ends (SIGINT, SIGTERM).
func (o watchOptions) run(ctx context.Context, s *setup, stdout, stderr io.Writer) int {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = 20 * time.Second
	}
	// stop waits for the engine goroutine: it must be gone before the
	// caller closes the log or reuses the setup.
	reports, stop := s.engine.Start(ctx, s.sources)
	defer stop()

	notReady := time.NewTimer(o.ReadyTimeout)
	defer notReady.Stop()
	var (
		pending *engine.Report // newest report before the first print
		printed map[int]checks.Status
	)
	emit := func(rep engine.Report, first bool) bool {
		rep = o.filter(rep)
		var changed []stepChange
		if !first {
			changed = statusChanges(printed, rep)
			if len(changed) == 0 {
				return true
			}
		}
		printed = statuses(rep)
		recordPasses(s, rep, o.Now(), stderr)
		if err := o.write(stdout, rep, changed, first); err != nil {
			fmt.Fprintln(stderr, content.Msg("ops.watch.write_failed", "err", err))
			return false
		}
		return true
	}
	for {
		select {
		case <-ctx.Done():
			return exitOK
		case rep := <-reports:
			if o.OnReport != nil {
				o.OnReport(rep)
			}
			switch {
			case printed != nil:
				if !emit(rep, false) {
					return exitUsage
				}
			case rep.Ready:
				rep.Problems = append(append([]string(nil), s.warnings...), rep.Problems...)
				if !emit(rep, true) {
					return exitUsage
				}
			default:
				pending = &rep
			}
		case <-notReady.C:
			if printed == nil && pending != nil {
				rep := *pending
				rep.Problems = append(append([]string(nil), s.warnings...), rep.Problems...)
				rep.Problems = append(rep.Problems, content.Msg("engine.not_ready", "timeout", o.ReadyTimeout))
				if !emit(rep, true) {
					return exitUsage
				}
			}
		}
	}
}

func (o watchOptions) filter(rep engine.Report) engine.Report {
	if o.Step > 0 {
		if sr := rep.Step(o.Step); sr != nil {
			rep.Steps = []engine.StepResult{*sr}
		}
	}
	return rep
}

func statuses(rep engine.Report) map[int]checks.Status {
	m := make(map[int]checks.Status, len(rep.Steps))
	for _, st := range rep.Steps {
		m[st.Number] = st.Status
	}
	return m
}

func statusChanges(before map[int]checks.Status, rep engine.Report) []stepChange {
	var out []stepChange
	for _, st := range rep.Steps {
		if from := before[st.Number]; from != st.Status {
			out = append(out, stepChange{Number: st.Number, From: from, To: st.Status})
		}
	}
	return out
}

// recordPasses keeps the first time each step was seen passing, as the
// TUI does, so a learner who only uses the command line has a timeline
// in `labmate report` too.
func recordPasses(s *setup, rep engine.Report, now time.Time, stderr io.Writer) {
	if s.store == nil {
		return
	}
	var evs []state.Event
	for _, st := range rep.Steps {
		if st.Status == checks.Passed {
			evs = append(evs, state.Event{Kind: state.StepPassed, Step: st.Number, At: now})
		}
	}
	if len(evs) == 0 {
		return
	}
	if err := s.store.Record(evs...); err != nil {
		fmt.Fprintln(stderr, content.Msg("ops.watch.progress_failed", "err", err))
	}
}

func (o watchOptions) write(w io.Writer, rep engine.Report, changed []stepChange, first bool) error {
	at := o.Now()
	if o.JSON {
		raw, err := json.Marshal(watchRecord{At: at, Changed: changed, Report: rep})
		if err != nil {
			return err
		}
		_, err = w.Write(append(raw, '\n'))
		return err
	}
	var b strings.Builder
	stamp := at.Format("2006-01-02 15:04:05")
	if first {
		fmt.Fprintf(&b, "%s  %s\n", stamp, content.Msg("ops.watch.start", "title", rep.Title, "root", rep.Root))
		for _, p := range rep.Problems {
			fmt.Fprintf(&b, "%s  %s\n", stamp, oneLine(content.Msg("ops.watch.problem", "msg", p)))
		}
	}
	b.WriteString(stamp + " ")
	for _, st := range rep.Steps {
		word := content.Msg("status." + string(st.Status))
		fmt.Fprintf(&b, " %d %s%s", st.Number, word, strings.Repeat(" ", max(0, 6-runewidth.StringWidth(word))))
	}
	var notes []string
	for _, c := range changed {
		note := content.Msg("ops.watch.change", "step", c.Number,
			"from", content.Msg("status."+string(c.From)), "to", content.Msg("status."+string(c.To)))
		if sr := rep.Step(c.Number); sr != nil && c.To != checks.Passed {
			if msg := firstProblem(sr); msg != "" {
				note += ": " + msg
			}
		}
		notes = append(notes, note)
	}
	line := strings.TrimRight(b.String(), " ")
	if len(notes) > 0 {
		line += "  | " + strings.Join(notes, "; ")
	}
	_, err := io.WriteString(w, line+"\n")
	return err
}

// firstProblem is the first line of the first check that did not pass,
// clipped so a row stays one line.
func firstProblem(sr *engine.StepResult) string {
	for _, c := range sr.Checks {
		if c.Status != checks.Passed {
			msg, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
			if r := []rune(msg); len(r) > 80 {
				msg = string(r[:77]) + "..."
			}
			return msg
		}
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
