// Package report turns one evaluation of a lab and the learner's progress
// into the skeleton of an incident report: per step, when it passed, how
// many hints were used, which values labmate actually read and what the
// checks decided from them. The lab's second seed calls this the rollout
// stall report: "which field was read and what was decided" is what an
// incident report is built on. Markdown for people, JSON for tools.
package report

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/state"
	"github.com/labhub/labmate/trace"
)

// Report is the learner's run, ready to print.
type Report struct {
	Lab       string             `json:"lab"`
	Title     string             `json:"title"`
	Root      string             `json:"root"`
	Written   time.Time          `json:"written"`
	StartedAt time.Time          `json:"started_at,omitzero"`
	Passed    int                `json:"passed"`
	Total     int                `json:"total"`
	Cluster   observe.ClusterObs `json:"cluster"`
	Steps     []Step             `json:"steps"`
	Problems  []string           `json:"problems,omitempty"`
}

// Step is one step's part of the report.
type Step struct {
	Number   int             `json:"number"`
	ID       string          `json:"id"`
	Title    string          `json:"title"`
	Status   checks.Status   `json:"status"`
	PassedAt time.Time       `json:"passed_at,omitzero"`
	Hints    int             `json:"hints_seen"`
	HintsMax int             `json:"hints_total"`
	Solution bool            `json:"solution_seen"`
	Observed []checks.Fact   `json:"observed"`
	Checks   []checks.Result `json:"checks"`
}

// Build joins an evaluation with the learner's progress. written is the
// report's own time (the caller's clock, so goldens are stable).
func Build(lab *content.Lab, rep engine.Report, p state.Progress, written time.Time) Report {
	r := Report{
		Lab: rep.Lab, Title: rep.Title, Root: rep.Root, Written: written,
		StartedAt: p.StartedAt, Cluster: rep.Cluster, Problems: rep.Problems,
	}
	hints := map[int]int{}
	if lab != nil {
		for _, s := range lab.Steps {
			hints[s.Number] = len(s.Hints)
		}
	}
	for _, sr := range rep.Steps {
		st := Step{
			Number: sr.Number, ID: sr.ID, Title: sr.Title, Status: sr.Status,
			PassedAt: p.PassedAt[sr.Number], Hints: p.HintsSeen[sr.Number], HintsMax: hints[sr.Number],
			Solution: p.SolutionSeen[sr.Number], Observed: sr.Observed, Checks: sr.Checks,
		}
		if st.Observed == nil {
			st.Observed = []checks.Fact{}
		}
		if st.Status == checks.Passed {
			r.Passed++
		}
		r.Steps = append(r.Steps, st)
	}
	r.Total = len(r.Steps)
	return r
}

// WriteJSON writes the report as one indented JSON object.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// timeFormat is minutes-precise: a report is read by people, and seconds
// only make goldens and diffs noisy.
const timeFormat = "2006-01-02 15:04 MST"

// Markdown renders the report in Korean. Times are shown in loc.
func (r Report) Markdown(loc *time.Location) string {
	if loc == nil {
		loc = time.Local
	}
	ts := func(t time.Time) string { return t.In(loc).Format(timeFormat) }
	m := func(key string, kv ...any) string { return content.Msg("ops.report."+key, kv...) }
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }

	line("# %s", m("heading", "title", r.Title))
	line("")
	line("%s", m("lede"))
	line("")
	line("- %s: %s", m("meta_root"), code(r.Root))
	line("- %s: %s", m("meta_written"), ts(r.Written))
	if !r.StartedAt.IsZero() {
		line("- %s: %s", m("meta_started"), ts(r.StartedAt))
	}
	line("- %s: %s", m("meta_progress"), m("meta_progress_value", "total", r.Total, "passed", r.Passed))
	if r.Cluster.State == "" || r.Cluster.State == observe.ClusterOff {
		line("- %s: %s", m("meta_cluster"), m("meta_cluster_off"))
	} else {
		line("- %s: %s", m("meta_cluster"), m("meta_cluster_value", "state", m("cluster_state."+string(r.Cluster.State)),
			"context", dash(r.Cluster.Context), "server", dash(r.Cluster.Server), "version", dash(r.Cluster.Version)))
	}

	line("")
	line("## %s", m("summary"))
	line("")
	line("| %s | %s | %s | %s | %s | %s |", m("col_step"), m("col_title"), m("col_status"), m("col_passed"), m("col_hints"), m("col_solution"))
	line("|---|---|---|---|---|---|")
	for _, s := range r.Steps {
		passed := "-"
		if !s.PassedAt.IsZero() {
			passed = ts(s.PassedAt)
		}
		sol := m("solution_no")
		if s.Solution {
			sol = m("solution_yes")
		}
		line("| %d | %s | %s | %s | %s | %s |", s.Number, cell(s.Title), content.Msg("status."+string(s.Status)), passed,
			m("hints_value", "seen", s.Hints, "total", s.HintsMax), sol)
	}

	line("")
	line("## %s", m("timeline"))
	line("")
	passed := make([]Step, 0, len(r.Steps))
	for _, s := range r.Steps {
		if !s.PassedAt.IsZero() {
			passed = append(passed, s)
		}
	}
	sort.SliceStable(passed, func(i, j int) bool { return passed[i].PassedAt.Before(passed[j].PassedAt) })
	if len(passed) == 0 {
		line("%s", m("timeline_empty"))
	}
	for _, s := range passed {
		line("- %s — %s", ts(s.PassedAt), m("timeline_item", "step", s.Number, "title", s.Title))
	}

	line("")
	line("## %s", m("steps"))
	for _, s := range r.Steps {
		line("")
		line("### %d. %s", s.Number, s.Title)
		line("")
		line("- %s", m("status_line", "status", content.Msg("status."+string(s.Status))))
		if s.PassedAt.IsZero() {
			line("- %s", m("passed_unknown"))
		} else {
			line("- %s", m("passed_line", "time", ts(s.PassedAt)))
		}
		sol := m("solution_no")
		if s.Solution {
			sol = m("solution_yes")
		}
		line("- %s", m("hints_line", "total", s.HintsMax, "seen", s.Hints, "solution", sol))
		line("")
		line("**%s**", m("observed"))
		line("")
		if len(s.Observed) == 0 {
			line("%s", m("observed_none"))
		}
		for _, f := range s.Observed {
			b.WriteString(fact(f))
		}
		line("")
		line("**%s**", m("decisions"))
		line("")
		for _, c := range s.Checks {
			b.WriteString(decision(c))
		}
	}

	line("")
	line("## %s", m("remaining"))
	line("")
	left := 0
	for _, s := range r.Steps {
		if s.Status == checks.Passed {
			continue
		}
		left++
		msg := ""
		for _, c := range s.Checks {
			if c.Status != checks.Passed {
				msg = firstLine(c.Message)
				break
			}
		}
		line("- %s", m("remaining_item", "step", s.Number, "title", s.Title,
			"status", content.Msg("status."+string(s.Status)), "msg", msg))
	}
	if left == 0 {
		line("%s", m("remaining_none"))
	}
	if len(r.Problems) > 0 {
		line("")
		line("## %s", m("problems"))
		line("")
		for _, p := range r.Problems {
			line("- %s", oneLine(p))
		}
	}
	line("")
	line("## %s", m("notes"))
	line("")
	line("%s", m("notes_body"))
	return b.String()
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

// FromTrace builds the report of a recorded session (a trace.Recorder
// file or the built-in reference run): the trace is replayed through a
// fresh engine, each step's first pass is when the trace turned it green,
// and the report is written as of the trace's last record. A trace holds
// observations only, so no hints or solutions are counted.
func FromTrace(ctx context.Context, lab *content.Lab, steps []checks.Step, tr *trace.Trace) (Report, error) {
	rep, changes, err := labrun.Exact(ctx, lab, steps, tr)
	if err != nil {
		return Report{}, err
	}
	var p state.Progress
	started := tr.Header.Started
	p.Apply(state.Event{Kind: state.Visited, Step: 0, At: started})
	for _, c := range changes {
		if c.To == checks.Passed {
			p.Apply(state.Event{Kind: state.StepPassed, Step: c.Step, At: started.Add(c.At)})
		}
	}
	return Build(lab, rep, p, started.Add(tr.Duration())), nil
}
