package verify

import (
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/labhub/labmate/internal/termtext"
)

// mark is a row's sign: held, did not hold, not proven.
func (r Row) mark() string {
	switch {
	case r.Unproven:
		return msg("verify.progress.unproven")
	case r.Skipped:
		return msg("verify.progress.skipped")
	case !r.OK:
		return msg("verify.progress.bad")
	}
	return msg("verify.progress.ok")
}

// WriteTable prints the proof as a table (step, case, expected, seen),
// one row a case, then a Korean summary line.
func (r Result) WriteTable(w io.Writer) {
	r = termtext.Deep(r) // the lab's messages and what its answers made
	cond := runewidth.Condition{EastAsianWidth: false}
	head := []string{"", msg("verify.col.step"), msg("verify.col.case"), msg("verify.col.expected"), msg("verify.col.seen")}
	rows := [][]string{head}
	for _, row := range r.Rows {
		step := msg("verify.col.lab")
		if row.Step > 0 {
			step = fmt.Sprint(row.Step)
		}
		rows = append(rows, []string{row.mark(), step, row.Case, row.Expected, oneLine(row.Seen)})
	}
	widths := make([]int, 4)
	for _, cells := range rows {
		for i := range widths {
			widths[i] = max(widths[i], cond.StringWidth(cells[i]))
		}
	}
	for _, cells := range rows {
		var b strings.Builder
		for i := range widths {
			b.WriteString(cells[i])
			b.WriteString(strings.Repeat(" ", widths[i]-cond.StringWidth(cells[i])+2))
		}
		b.WriteString(cells[4])
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	failed, skipped, unproven := 0, 0, 0
	for _, row := range r.Rows {
		switch {
		case row.Unproven:
			unproven++
		case row.Skipped:
			skipped++
		case !row.OK:
			failed++
		}
	}
	switch {
	case failed > 0:
		fmt.Fprintln(w, msg("verify.summary.failed", "lab", r.Lab, "failed", failed, "n", len(r.Rows)))
	case unproven > 0:
		fmt.Fprintln(w, msg("verify.summary.unproven", "lab", r.Lab, "unproven", unproven, "n", len(r.Rows)))
	case skipped > 0:
		fmt.Fprintln(w, msg("verify.summary.skipped", "lab", r.Lab, "skipped", skipped, "n", len(r.Rows)))
	default:
		fmt.Fprintln(w, msg("verify.summary.ok", "lab", r.Lab, "n", len(r.Rows)))
	}
}
