// Package textout prints what a run of a lab streams, for people and for
// scripts: `check`'s table and JSON (Report, Table), `check --watch`'s
// lines (Watch) and `replay --no-tui`'s (Replay). It decides nothing: the
// verdicts and status changes are labrun's; the exit codes the caller's.
// Text for a terminal passes termtext; JSON keeps the raw strings,
// escaped.
package textout

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/termtext"
)

// Report writes a report (one step of it when step > 0) as JSON or a
// table and says whether every step written passed.
func Report(w io.Writer, rep engine.Report, step int, asJSON bool) (passed bool, err error) {
	if step > 0 {
		rep.Steps = []engine.StepResult{*rep.Step(step)}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return false, err
		}
	} else {
		Table(w, &rep)
	}
	return rep.AllPassed(), nil
}

// Table prints a compact, colourless summary for people and shells
// (check, replay --no-tui). It is text for a terminal, so the report
// passes termtext first; JSON keeps the raw strings, escaped.
func Table(w io.Writer, raw *engine.Report) {
	clean := termtext.Deep(*raw)
	rep := &clean
	fmt.Fprintf(w, "%s\n%s\n\n", rep.Title, content.Msg("cli.root_line", "root", rep.Root))
	for _, st := range rep.Steps {
		fmt.Fprintf(w, "%d. [%s] %s\n", st.Number, status(st.Status), st.Title)
		for _, c := range st.Checks {
			if c.Status == checks.Passed {
				continue
			}
			fmt.Fprintf(w, "   - [%s] %s\n", status(c.Status), indent(c.Message, "     "))
		}
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "\n! %s\n", p)
	}
}

// status is a status's Korean word.
func status(s checks.Status) string { return content.Msg("status." + string(s)) }

func indent(s, pad string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}
