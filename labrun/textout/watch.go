package textout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/termtext"
	"github.com/labhub/labmate/labrun"
)

// Watch configures `labmate check --watch`.
type Watch struct {
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

// Record is one --json line.
type Record struct {
	At      time.Time `json:"at"`
	Changed []Change  `json:"changed,omitempty"`
	engine.Report
}

// Change is one step whose status differs from the previous print.
type Change struct {
	Number int           `json:"number"`
	From   checks.Status `json:"from"`
	To     checks.Status `json:"to"`
}

// Run is `labmate check --watch [--json]`: the full results once every
// source has delivered its first state, then again on every change of a
// step's status (not on every evaluation), one timestamped line per
// print: a JSON object with --json (the `check --json` shape plus "at"
// and "changed"), a compact row of statuses otherwise. It returns nil
// when ctx ends (SIGINT, SIGTERM), and a Korean error when w refuses a
// line. The caller's run.Stop waits for the run's goroutines.
func (o Watch) Run(ctx context.Context, run *labrun.Run, w io.Writer) error {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = 20 * time.Second
	}
	st := run.Start(ctx)
	rep, _ := st.First(ctx, o.ReadyTimeout)
	if ctx.Err() != nil {
		return nil
	}
	if err := o.write(w, o.filter(rep), nil, true); err != nil {
		return errors.New(content.Msg("ops.watch.write_failed", "err", err))
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case u := <-st.Updates():
			st.Take(u)
			changed := o.changes(u)
			if len(changed) == 0 {
				continue
			}
			if err := o.write(w, o.filter(u.Report), changed, false); err != nil {
				return errors.New(content.Msg("ops.watch.write_failed", "err", err))
			}
		}
	}
}

func (o Watch) filter(rep engine.Report) engine.Report {
	if o.Step > 0 {
		if sr := rep.Step(o.Step); sr != nil {
			rep.Steps = []engine.StepResult{*sr}
		}
	}
	return rep
}

// changes are the update's changes of the steps watched.
func (o Watch) changes(u labrun.Update) []Change {
	var out []Change
	for _, c := range u.Changes {
		if o.Step == 0 || c.Step == o.Step {
			out = append(out, Change{Number: c.Step, From: c.From, To: c.To})
		}
	}
	return out
}

func (o Watch) write(w io.Writer, rep engine.Report, changed []Change, first bool) error {
	at := o.Now()
	if o.JSON {
		raw, err := json.Marshal(Record{At: at, Changed: changed, Report: rep})
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
		word := status(st.Status)
		fmt.Fprintf(&b, " %d %s%s", st.Number, word, strings.Repeat(" ", max(0, 6-runewidth.StringWidth(word))))
	}
	var notes []string
	for _, c := range changed {
		note := content.Msg("ops.watch.change", "step", c.Number, "from", status(c.From), "to", status(c.To))
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
