// Package classreport writes the report of a class after the workshop:
// one self-contained HTML file (inline CSS, charts as inline SVG that it
// draws itself, no script, nothing fetched) with the funnel, each step's
// times to pass, the checks failing most, regressions, hints and a table
// of the learners. It reads a class.Class, live (class.List) or from a
// saved export (class.FromExport); the numbers are classstats'.
package classreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/classstats"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/termtext"
)

//go:embed report.html.tmpl
var pageText string

var page = template.Must(template.New("report").Funcs(template.FuncMap{"msg": content.Msg}).Parse(pageText))

// Input is what a report is made of.
type Input struct {
	Class class.Class
	// Lab is the lab reported ("" for the class's lab, or the lab most
	// records are of).
	Lab string
	// Namespace is the class's namespace, shown in the heading ("" from
	// an export, which does not say).
	Namespace string
	// At is when the records were read (the report's "as of").
	At time.Time
	// Titles are the lab's step titles by number; nil: read from the lab
	// if labmate has it (content.Load).
	Titles map[int]string
}

// data is the template's view of a report.
type data struct {
	Lab, Namespace, At string
	Learners           int
	Class              classstats.Class
	Funnel, Times      template.HTML
	Hints, Regressions template.HTML
	Steps              []stepRow
	Rows               []learnerRow
}

type stepRow struct {
	Label       string
	Median      string
	Slowest     string
	Timed       int
	Attempts    int
	Failing     []classstats.CheckCount
	Regressions int
	// The room: hands raised on the step, the median time to their
	// acknowledgement, learners who caught the step up, the named
	// mistakes of the learners on it.
	Hands    int
	AckTimed int
	AckWait  string
	CaughtUp int
	Mistakes []classstats.CheckCount
}

type learnerRow struct {
	Name, Learner, Current, Time, Flag string
	Cells                              []cell
	Hints, Attempts                    int
	Solutions                          int
	Regression                         string
}

type cell struct{ Glyph, Class, Title string }

// Write writes the report of in to w.
func Write(w io.Writer, in Input) error {
	c := termtext.Deep(in.Class) // records are written by others
	lab := classstats.MainLab(c.Records, in.Lab, c.Lab.ID)
	titles := in.Titles
	if titles == nil {
		titles = labTitles(lab)
	}
	recs := classstats.OfLab(c.Records, lab)
	if in.At.IsZero() { // a saved export: as of its newest record
		for _, r := range recs {
			if r.Updated.After(in.At) {
				in.At = r.Updated
			}
		}
	}
	s := classstats.Summarize(recs, len(titles))
	d := data{Lab: lab, Namespace: in.Namespace, At: "-", Learners: len(recs), Class: s}
	if !in.At.IsZero() {
		d.At = in.At.Format("2006-01-02 15:04 MST")
	}
	labels := make([]string, len(s.Steps))
	var on, passed, hinted, solutions, regressed []int
	for i, st := range s.Steps {
		labels[i] = content.Msg("class.report.step_label", "n", st.Number, "title", titles[st.Number])
		on, passed = append(on, st.On), append(passed, st.Passed)
		hinted, solutions = append(hinted, st.Hinted), append(solutions, st.Solutions)
		regressed = append(regressed, st.Regressions)
		row := stepRow{Label: labels[i], Median: "-", Slowest: "-", Timed: len(st.Times), Attempts: classstats.MedianInt(st.Attempts),
			Failing: st.Failing[:min(3, len(st.Failing))], Regressions: st.Regressions,
			Hands: st.Hands, AckTimed: len(st.AckTimes), AckWait: "-", CaughtUp: st.CaughtUp, Mistakes: st.Mistakes[:min(3, len(st.Mistakes))]}
		if len(st.AckTimes) > 0 {
			row.AckWait = content.Duration(classstats.Quantile(st.AckTimes, 0.5).Round(time.Second))
		}
		if len(st.Times) > 0 {
			row.Median, row.Slowest = content.Duration(st.Median().Round(time.Second)), content.Duration(st.Slowest().Round(time.Second))
		}
		d.Steps = append(d.Steps, row)
	}
	counted := s.Learners - s.Flagged - s.Absent
	d.Funnel = groupedBars("funnel", content.Msg("class.report.funnel"), labels, counted, []series{
		{Class: "passed", Legend: content.Msg("class.report.legend.passed"), Values: passed},
		{Class: "on", Legend: content.Msg("class.report.legend.on"), Values: on},
	})
	d.Times = strip("times", content.Msg("class.report.times"), labels, s.Steps)
	d.Hints = groupedBars("hints", content.Msg("class.report.hints"), labels, counted, []series{
		{Class: "hinted", Legend: content.Msg("class.report.legend.hinted"), Values: hinted},
		{Class: "solution", Legend: content.Msg("class.report.legend.solution"), Values: solutions},
	})
	d.Regressions = groupedBars("regressions", content.Msg("class.report.regressions"), labels, counted, []series{
		{Class: "regressed", Legend: content.Msg("class.report.legend.regressed"), Values: regressed},
	})
	for _, r := range recs {
		d.Rows = append(d.Rows, learner(r, len(s.Steps), in.At))
	}
	var b strings.Builder
	if err := page.Execute(&b, d); err != nil {
		return fmt.Errorf("report template: %w", err)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// learner is one row of the learners' table.
func learner(r class.Record, steps int, at time.Time) learnerRow {
	row := learnerRow{Name: r.Shown(), Learner: r.Learner}
	if r.Flag != "" {
		row.Flag = content.Msg("class.board.mark." + string(r.Flag))
	}
	for n := 1; n <= steps; n++ {
		st := checks.Unknown
		if s := r.Step(n); s != nil {
			st = s.Status
			row.Hints += s.Hints
			row.Attempts += s.Attempts
			if s.Solution {
				row.Solutions++
			}
		}
		row.Cells = append(row.Cells, cell{Glyph: st.Glyph(), Class: string(st), Title: content.Msg("class.report.cell", "n", n, "status", content.Msg("status."+string(st)))})
	}
	switch {
	case r.Flag != "":
	case len(r.Steps) == 0:
		row.Current = content.Msg("class.board.no_record")
	case r.Current == 0:
		row.Current = content.Msg("class.board.done")
	default:
		row.Current = content.Msg("class.board.step", "n", r.Current)
		if !r.CurrentSince.IsZero() && at.After(r.CurrentSince) {
			row.Time = content.Duration(at.Sub(r.CurrentSince).Round(time.Minute))
		}
	}
	if g := r.Regression; g != nil {
		row.Regression = content.Msg("class.board.step", "n", g.Step)
	}
	return row
}

// labTitles are the step titles of lab when labmate has it.
func labTitles(lab string) map[int]string {
	t := map[int]string{}
	if l, err := content.Load(lab); err == nil {
		for _, s := range l.Steps {
			t[s.Number] = s.Title
		}
	}
	return t
}
