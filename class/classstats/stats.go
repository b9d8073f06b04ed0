// Package classstats answers an instructor's questions about a class from
// its records: where the learners are (the funnel), who has waited
// longest on one step and on which check (HelpFirst), and per step how
// long passing took, what fails there, how many hints were opened and how
// many regressed. Pure functions of records and a clock: the live board
// and the report after the workshop read the same numbers.
package classstats

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
)

// Step is one step of the lab across the class.
type Step struct {
	Number int
	// On is how many learners are on the step now (their first step not
	// passed); Passed how many have it passed now.
	On     int
	Passed int
	// Times are the learners' times from reaching the step to first
	// passing it, shortest first; only those known (class.StepRecord.
	// TimeToPass).
	Times []time.Duration
	// Failing are the checks failed now for the learners on the step,
	// most learners first: only checks whose verdict is failed, never
	// one that waits for an earlier one or for the cluster.
	Failing []CheckCount
	// Attempts are the attempts of the learners who passed the step,
	// fewest first.
	Attempts []int
	// Hinted is how many learners opened at least one hint of the step,
	// Hints how many hints they opened in all, Solutions how many opened
	// the worked solution.
	Hinted, Hints, Solutions int
	// Regressions is how many learners' newest regression is this step.
	Regressions int
	// CaughtUp is how many learners have the step caught up (catch-up
	// brought it to the reference), counted among Passed.
	CaughtUp int
	// Mistakes are the named mistakes (the lab's labels) of the learners
	// on the step now, most learners first.
	Mistakes []CheckCount
	// Hands is how many hands were raised on the step; AckTimes the
	// times from a hand up to the instructor's acknowledgement, shortest
	// first.
	Hands    int
	AckTimes []time.Duration
}

// Median is the median time to pass (0 when none is known).
func (s Step) Median() time.Duration { return Quantile(s.Times, 0.5) }

// Slowest is the longest time to pass (0 when none is known).
func (s Step) Slowest() time.Duration {
	if len(s.Times) == 0 {
		return 0
	}
	return s.Times[len(s.Times)-1]
}

// CheckCount is a check (the lab's check ID), or a named mistake (its
// label), and how many learners it fails for.
type CheckCount struct {
	ID string
	N  int
}

// Class is the whole class: the steps and who is counted.
type Class struct {
	Steps []Step
	// Learners is every record; Done those who passed every step;
	// Absent those with no step yet (never connected); Flagged those
	// whose record is not believed (counted nowhere else).
	Learners, Done, Absent, Flagged int
}

// Summarize counts the records of one lab. steps is the lab's number of
// steps when known (the records' own count is used when larger).
func Summarize(recs []class.Record, steps int) Class {
	for _, r := range recs {
		if r.Flag == "" {
			steps = max(steps, len(r.Steps))
		}
	}
	c := Class{Learners: len(recs), Steps: make([]Step, steps)}
	failing := make([]map[string]int, steps)
	mistakes := make([]map[string]int, steps)
	for i := range c.Steps {
		c.Steps[i].Number = i + 1
		failing[i] = map[string]int{}
		mistakes[i] = map[string]int{}
	}
	for _, r := range recs {
		switch {
		case r.Flag != "":
			c.Flagged++
			continue
		case len(r.Steps) == 0:
			c.Absent++
			continue
		case r.Current == 0:
			c.Done++
		}
		if g := r.Regression; g != nil && g.Step >= 1 && g.Step <= steps {
			c.Steps[g.Step-1].Regressions++
		}
		for _, s := range r.Steps {
			if s.Number < 1 || s.Number > steps {
				continue
			}
			st := &c.Steps[s.Number-1]
			if s.Status == checks.Passed {
				st.Passed++
				st.Attempts = append(st.Attempts, s.Attempts)
			}
			if d, ok := s.TimeToPass(); ok {
				st.Times = append(st.Times, d)
			}
			if s.Hints > 0 || s.Solution {
				st.Hinted++
			}
			st.Hints += s.Hints
			if s.Solution {
				st.Solutions++
			}
			st.countStep(s, s.Number == r.Current, mistakes[s.Number-1])
			if s.Number == r.Current {
				st.On++
				for _, f := range failedIDs(s.Failing) {
					failing[s.Number-1][f]++
				}
			}
		}
	}
	for i := range c.Steps {
		slices.Sort(c.Steps[i].Times)
		slices.Sort(c.Steps[i].Attempts)
		c.Steps[i].Failing = ranked(failing[i])
		c.Steps[i].Mistakes = ranked(mistakes[i])
		slices.Sort(c.Steps[i].AckTimes)
	}
	return c
}

// failedIDs are the IDs of a step's checks that failed, each once (a
// record is bounded, not guaranteed to list a check once). A record
// lists every check that did not pass; one that waits (an earlier check
// of the step failed, the cluster is not synced) never ran, and counting
// it would hide the check that did fail.
func failedIDs(fs []class.FailingCheck) []string {
	var ids []string
	for _, f := range fs {
		if f.Status == checks.Failed && !slices.Contains(ids, f.ID) {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// ranked orders counts most first, then by ID.
func ranked(m map[string]int) []CheckCount {
	out := make([]CheckCount, 0, len(m))
	for id, n := range m {
		out = append(out, CheckCount{ID: id, N: n})
	}
	slices.SortFunc(out, func(a, b CheckCount) int {
		if a.N != b.N {
			return b.N - a.N
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// Quantile is the q-quantile (0..1) of sorted durations, interpolated
// between the two nearest ranks (as R's default and NumPy's "linear"):
// the median of an even count is the mean of the middle two. 0 for none.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	q = math.Max(0, math.Min(1, q))
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	frac := pos - float64(lo)
	return sorted[lo] + time.Duration(math.Round(frac*float64(sorted[hi]-sorted[lo])))
}

// MedianInt is the median of sorted ints (the mean of the middle two,
// rounded half up); 0 for none.
func MedianInt(sorted []int) int {
	n := len(sorted)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2] + 1) / 2
}

// Waiting is a learner the instructor should go to: on Step for For,
// Check (the first of the step's failed checks, the lab's order; "" when
// none failed, only waits) failing with More others failed, at hint rung Hints (Solution: opened the solution).
type Waiting struct {
	Learner, Name, Lab string
	Step               int
	For                time.Duration
	Check              string
	More               int
	Hints              int
	Solution           bool
}

// HelpFirst is the n learners who have been on one step longest (all when
// n <= 0), longest first; learners done, absent or flagged are not
// waiting.
func HelpFirst(recs []class.Record, now time.Time, n int) []Waiting {
	var out []Waiting
	for _, r := range recs {
		if r.Flag != "" || r.Current == 0 || r.CurrentSince.IsZero() {
			continue
		}
		w := Waiting{Learner: r.Learner, Name: r.Shown(), Lab: r.Lab, Step: r.Current, For: max(0, now.Sub(r.CurrentSince))}
		if s := r.Step(r.Current); s != nil {
			if ids := failedIDs(s.Failing); len(ids) > 0 {
				w.Check, w.More = ids[0], len(ids)-1
			}
			w.Hints, w.Solution = s.Hints, s.Solution
		}
		out = append(out, w)
	}
	slices.SortStableFunc(out, func(a, b Waiting) int {
		if a.For != b.For {
			return cmp.Compare(b.For, a.For)
		}
		if a.Name != b.Name {
			return cmp.Compare(a.Name, b.Name)
		}
		return cmp.Compare(a.Learner, b.Learner)
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// MainLab is the lab a class's numbers are about: prefer, when set (the
// instructor's --lab, the class's own lab), else the lab most records
// are of (the first by ID on a tie).
func MainLab(recs []class.Record, prefer ...string) string {
	for _, p := range prefer {
		if p != "" {
			return p
		}
	}
	n, best := map[string]int{}, ""
	for _, r := range recs {
		n[r.Lab]++
		if c := n[r.Lab]; c > n[best] || c == n[best] && r.Lab < best {
			best = r.Lab
		}
	}
	return best
}

// OfLab are the records of lab.
func OfLab(recs []class.Record, lab string) []class.Record {
	var out []class.Record
	for _, r := range recs {
		if r.Lab == lab {
			out = append(out, r)
		}
	}
	return out
}
