package textout

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/termtext"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/trace"
)

// Replay is `replay --no-tui`: it plays run (a replay of tr, a recording
// of lab) and prints one line per step status change, stamped with the
// recorded time, then the final results as Table does. played is false
// when ctx ended first; passed, whether every step passed at the end.
func Replay(ctx context.Context, run *labrun.Run, tr *trace.Trace, lab *content.Lab, w io.Writer) (passed, played bool) {
	p := run.Trace().Progress()
	fmt.Fprintln(w, content.Msg("trace.cli.start", "name", termtext.Clean(trace.DisplayName(tr.Name)), "lab", termtext.Clean(lab.Title),
		"records", p.Total, "length", trace.Clock(p.Length), "speed", trace.SpeedLabel(p.Speed)))
	st := run.Start(ctx)
	defer run.Stop()
	printed := false
	last, played := run.Played(ctx, st, func(u labrun.Update) {
		if !u.Ready {
			return
		}
		at := trace.Clock(u.Time.Sub(tr.Header.Started))
		if !printed {
			printed = true
			replayStart(w, at, u.Report)
		} else {
			replaySteps(w, at, u)
		}
	})
	if !played {
		return false, false
	}
	fmt.Fprintln(w)
	Table(w, &last)
	return last.AllPassed(), true
}

// replayStart is the line of every step's status once the replay's
// sources are ready.
func replayStart(w io.Writer, at string, rep engine.Report) {
	var parts []string
	for _, st := range rep.Steps {
		parts = append(parts, fmt.Sprintf("%d %s", st.Number, status(st.Status)))
	}
	fmt.Fprintln(w, content.Msg("trace.cli.ready", "at", at, "steps", strings.Join(parts, content.Msg("trace.cli.ready_sep"))))
}

// replaySteps is a line per step the update changed.
func replaySteps(w io.Writer, at string, u labrun.Update) {
	for _, c := range u.Changes {
		title := ""
		if sr := u.Step(c.Step); sr != nil {
			title = termtext.Clean(sr.Title) // the lab's, or the trace's
		}
		fmt.Fprintln(w, content.Msg("trace.cli.change", "at", at, "step", c.Step, "title", title, "from", status(c.From), "to", status(c.To)))
	}
}
