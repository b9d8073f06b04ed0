package report

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/termtext"
	"github.com/labhub/labmate/observe"
)

// timeFormat is minutes-precise: a report is read by people, and seconds
// only make goldens and diffs noisy.
const timeFormat = "2006-01-02 15:04 MST"

// Markdown renders the report in Korean. Times are shown in loc.
func (r Report) Markdown(loc *time.Location) string {
	if loc == nil {
		loc = time.Local
	}
	// The report is read in a terminal as often as in an editor; JSON
	// (WriteJSON) keeps the raw strings, escaped by encoding/json.
	r = termtext.Deep(r)
	w := &mdWriter{loc: loc}
	r.writeMeta(w)
	r.writeSummary(w)
	r.writeTimeline(w)
	r.writeSteps(w)
	r.writeRemaining(w)
	r.writeProblems(w)
	w.line("")
	w.line("## %s", msg("notes"))
	w.line("")
	w.line("%s", msg("notes_body"))
	return w.b.String()
}

// mdWriter is the report's markdown as it is written, with its times in
// one location.
type mdWriter struct {
	b   strings.Builder
	loc *time.Location
}

func (w *mdWriter) line(format string, a ...any) { fmt.Fprintf(&w.b, format+"\n", a...) }

func (w *mdWriter) ts(t time.Time) string { return t.In(w.loc).Format(timeFormat) }

// msg is the report's text for key (ops.report.*).
func msg(key string, kv ...any) string { return content.Msg("ops.report."+key, kv...) }

// statusWord is a status in Korean.
func statusWord(st checks.Status) string { return content.Msg("status." + string(st)) }

// solutionWord says whether the worked solution was opened.
func solutionWord(seen bool) string {
	if seen {
		return msg("solution_yes")
	}
	return msg("solution_no")
}

// writeMeta writes the title, the lede and the run's facts: root, times,
// progress, cluster.
func (r Report) writeMeta(w *mdWriter) {
	w.line("# %s", msg("heading", "title", r.Title))
	w.line("")
	w.line("%s", msg("lede"))
	w.line("")
	w.line("- %s: %s", msg("meta_root"), code(r.Root))
	w.line("- %s: %s", msg("meta_written"), w.ts(r.Written))
	if !r.StartedAt.IsZero() {
		w.line("- %s: %s", msg("meta_started"), w.ts(r.StartedAt))
	}
	w.line("- %s: %s", msg("meta_progress"), msg("meta_progress_value", "total", r.Total, "passed", r.Passed))
	if r.Cluster.State == "" || r.Cluster.State == observe.ClusterOff {
		w.line("- %s: %s", msg("meta_cluster"), msg("meta_cluster_off"))
	} else {
		w.line("- %s: %s", msg("meta_cluster"), msg("meta_cluster_value", "state", msg("cluster_state."+string(r.Cluster.State)),
			"context", dash(r.Cluster.Context), "server", dash(r.Cluster.Server), "version", dash(r.Cluster.Version)))
	}
}

// writeSummary writes the table of steps: status, when passed, hints.
func (r Report) writeSummary(w *mdWriter) {
	w.line("")
	w.line("## %s", msg("summary"))
	w.line("")
	w.line("| %s | %s | %s | %s | %s | %s |", msg("col_step"), msg("col_title"), msg("col_status"), msg("col_passed"), msg("col_hints"), msg("col_solution"))
	w.line("|---|---|---|---|---|---|")
	for _, s := range r.Steps {
		passed := "-"
		if !s.PassedAt.IsZero() {
			passed = w.ts(s.PassedAt)
		}
		w.line("| %d | %s | %s | %s | %s | %s |", s.Number, cell(s.Title), statusWord(s.Status), passed,
			msg("hints_value", "seen", s.Hints, "total", s.HintsMax), solutionWord(s.Solution))
	}
}

// writeTimeline lists the steps in the order they passed.
func (r Report) writeTimeline(w *mdWriter) {
	w.line("")
	w.line("## %s", msg("timeline"))
	w.line("")
	passed := make([]Step, 0, len(r.Steps))
	for _, s := range r.Steps {
		if !s.PassedAt.IsZero() {
			passed = append(passed, s)
		}
	}
	sort.SliceStable(passed, func(i, j int) bool { return passed[i].PassedAt.Before(passed[j].PassedAt) })
	if len(passed) == 0 {
		w.line("%s", msg("timeline_empty"))
	}
	for _, s := range passed {
		w.line("- %s — %s", w.ts(s.PassedAt), msg("timeline_item", "step", s.Number, "title", s.Title))
	}
}

// writeSteps writes each step: its state, what labmate observed and what
// the checks decided from it.
func (r Report) writeSteps(w *mdWriter) {
	w.line("")
	w.line("## %s", msg("steps"))
	for _, s := range r.Steps {
		w.line("")
		w.line("### %d. %s", s.Number, s.Title)
		w.line("")
		w.line("- %s", msg("status_line", "status", statusWord(s.Status)))
		if s.PassedAt.IsZero() {
			w.line("- %s", msg("passed_unknown"))
		} else {
			w.line("- %s", msg("passed_line", "time", w.ts(s.PassedAt)))
		}
		w.line("- %s", msg("hints_line", "total", s.HintsMax, "seen", s.Hints, "solution", solutionWord(s.Solution)))
		w.line("")
		w.line("**%s**", msg("observed"))
		w.line("")
		if len(s.Observed) == 0 {
			w.line("%s", msg("observed_none"))
		}
		for _, f := range s.Observed {
			w.b.WriteString(fact(f))
		}
		w.line("")
		w.line("**%s**", msg("decisions"))
		w.line("")
		for _, c := range s.Checks {
			w.b.WriteString(decision(c))
		}
	}
}

// writeRemaining lists the steps not passed, each with its first
// failing check's message.
func (r Report) writeRemaining(w *mdWriter) {
	w.line("")
	w.line("## %s", msg("remaining"))
	w.line("")
	left := 0
	for _, s := range r.Steps {
		if s.Status == checks.Passed {
			continue
		}
		left++
		why := ""
		if c := checks.FirstFailing(s.Checks); c != nil {
			why = firstLine(c.Message)
		}
		w.line("- %s", msg("remaining_item", "step", s.Number, "title", s.Title,
			"status", statusWord(s.Status), "msg", why))
	}
	if left == 0 {
		w.line("%s", msg("remaining_none"))
	}
}

// writeProblems lists what went wrong with labmate itself, if anything.
func (r Report) writeProblems(w *mdWriter) {
	if len(r.Problems) == 0 {
		return
	}
	w.line("")
	w.line("## %s", msg("problems"))
	w.line("")
	for _, p := range r.Problems {
		w.line("- %s", oneLine(p))
	}
}

// fact renders one observed value: inline code when it is one line,
// a fenced block when it is several (a table, a scheduler message).
func fact(f checks.Fact) string {
	label := oneLine(f.Label)
	v := strings.TrimRight(f.Value, "\n")
	if !strings.Contains(v, "\n") {
		return fmt.Sprintf("- %s: %s\n", label, code(v))
	}
	return fmt.Sprintf("- %s:\n\n%s\n", label, indentBlock(fence(v), "  "))
}

// decision renders one check's verdict with its message; a multi-line
// message keeps its lines, indented under the item.
func decision(c checks.Result) string {
	msg := strings.TrimRight(c.Message, "\n")
	out := fmt.Sprintf("- [%s] %s\n", content.Msg("status."+string(c.Status)), strings.ReplaceAll(msg, "\n", "\n  "))
	var extra []string
	// A check that saw what it expected needs the value once.
	if c.Expected == c.Observed {
		c.Expected = ""
	}
	if c.Expected != "" && !strings.Contains(msg, c.Expected) {
		extra = append(extra, fmt.Sprintf("  - %s: %s", content.Msg("ops.report.expected"), code(c.Expected)))
	}
	if c.Observed != "" && !strings.Contains(msg, c.Observed) {
		extra = append(extra, fmt.Sprintf("  - %s: %s", content.Msg("ops.report.observed_value"), code(c.Observed)))
	}
	if c.Where != "" {
		extra = append(extra, fmt.Sprintf("  - %s: %s", content.Msg("ops.report.where"), code(c.Where)))
	}
	if len(extra) > 0 {
		out += strings.Join(extra, "\n") + "\n"
	}
	return out
}

// code wraps a one-line value in backticks that its own backticks cannot
// close (CommonMark: a longer run of backticks, padded with spaces).
func code(v string) string {
	if v == "" {
		return "` `"
	}
	ticks := "`"
	for strings.Contains(v, ticks) {
		ticks += "`"
	}
	if strings.HasPrefix(v, "`") || strings.HasSuffix(v, "`") || ticks != "`" {
		return ticks + " " + v + " " + ticks
	}
	return ticks + v + ticks
}

// fence wraps a multi-line value in a code fence longer than any run of
// backticks inside it.
func fence(v string) string {
	f := "```"
	for strings.Contains(v, f) {
		f += "`"
	}
	return f + "text\n" + v + "\n" + f
}

func indentBlock(s, pad string) string {
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

// cell makes text safe inside a markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
