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
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/internal/termtext"
	"github.com/labhub/labmate/labrun"
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
	// The caller's stop waits for the run's goroutines: they must be gone
	// before it closes the log or reuses the setup.
	st := s.run.Start(ctx)
	rep, _ := st.First(ctx, o.ReadyTimeout)
	if ctx.Err() != nil {
		return cli.ExitOK
	}
	if err := o.write(stdout, o.filter(rep), nil, true); err != nil {
		fmt.Fprintln(stderr, content.Msg("ops.watch.write_failed", "err", err))
		return cli.ExitUsage
	}
	for {
		select {
		case <-ctx.Done():
			return cli.ExitOK
		case u := <-st.Updates():
			st.Take(u)
			changed := o.changes(u)
			if len(changed) == 0 {
				continue
			}
			if err := o.write(stdout, o.filter(u.Report), changed, false); err != nil {
				fmt.Fprintln(stderr, content.Msg("ops.watch.write_failed", "err", err))
				return cli.ExitUsage
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

// changes are the update's changes of the steps watched.
func (o watchOptions) changes(u labrun.Update) []stepChange {
	var out []stepChange
	for _, c := range u.Changes {
		if o.Step == 0 || c.Step == o.Step {
			out = append(out, stepChange{Number: c.Step, From: c.From, To: c.To})
		}
	}
	return out
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
	// Text for a terminal: JSON above keeps the raw strings, escaped.
	rep = termtext.Deep(rep)
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
	c := sr.FirstFailing()
	if c == nil {
		return ""
	}
	msg, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
	if r := []rune(msg); len(r) > 80 {
		msg = string(r[:77]) + "..."
	}
	return msg
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
