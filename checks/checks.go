// Package checks decides, from a snapshot of observations, whether each
// step of a lab is done. It does no I/O and knows nothing of the TUI: every
// function here is a pure function of its Input, so the same snapshot always
// gives the same results (live, replayed, or in a test).
package checks

import (
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

// Status is the state of a check or a step.
type Status string

const (
	Passed  Status = "passed"  // done
	Failed  Status = "failed"  // the learner must act
	Waiting Status = "waiting" // the cluster is converging, caches unsynced, or an earlier step is unfinished
	Unknown Status = "unknown" // the cluster is unreachable: stale data is never shown as passed
	Error   Status = "error"   // the check itself could not run
)

// Result is one check's verdict. Message is Korean and complete on its own
// (for a failure it names what was expected and what was observed);
// Expected, Observed and Where repeat those parts for the TUI and tools.
type Result struct {
	ID       string `json:"id"`
	Status   Status `json:"status"`
	Message  string `json:"message"`
	Expected string `json:"expected,omitempty"`
	Observed string `json:"observed,omitempty"`
	Where    string `json:"where,omitempty"`
}

// Fact is one line of a step's "observed" view: what labmate actually
// parsed, ran or saw, as opposed to what the learner wrote.
type Fact struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// StepEval is what a step's evaluator returns.
type StepEval struct {
	Checks   []Result
	Observed []Fact
}

// Input is everything a step's evaluator may look at.
type Input struct {
	Lab     *content.Lab // the lab's text: its messages first, then the shared ones
	Snap    *observe.Snapshot
	Root    string   // absolute lab root, only for messages
	Witness *Witness // facts of the past; read-only here
}

// Lookup is a lab's message lookup (Input.Msg, content.Lab.Msg): the
// lab's own wording of a key, else the shared text. Every text a
// primitive words goes through the one its caller hands it, so a lab may
// reword any shared text (AUTHORING.md).
type Lookup func(key string, kv ...any) string

// Msg is the lab's message for key (see content.Lab.Msg), with {{ROOT}}
// the lab root in use: primitives word through it so a lab can put a
// shared text in its own terms.
func (in Input) Msg(key string, kv ...any) string { return in.Lab.MsgIn(in.Root, key, kv...) }

// Step is the executable side of a lab step. The Korean text of the step
// lives in package content under the same ID.
type Step struct {
	Number int
	ID     string
	// Files are the lab-relative paths the step reads; the file source
	// watches exactly these.
	Files []string
	// Kinds are the cluster kinds the step reads, when known (a
	// declarative step's): a step whose kind the cluster does not serve
	// is named for the learner.
	Kinds []string
	// Probe, when set, asks the prober to run a learner's script.
	Probe *observe.ProbeSpec
	// Eval decides the step.
	Eval func(in Input) StepEval
	// Remember, when set, records facts of the past this step will need
	// later (the pod was Unschedulable, ...). It returns true when it
	// changed w. Keys must start with the step's ID and a slash
	// ("runtimeclass-pending/unschedulable") so `labmate reset --step N`
	// can forget one step's facts. inOrder says every earlier step of the
	// lab had passed at this moment (the learner's progress as labmate
	// saw it): a fact seen before its prerequisites is no evidence for
	// this step (declarative witnesses keep that order unless any_time).
	Remember func(snap *observe.Snapshot, w *Witness, inOrder bool) bool
}

// Aggregate folds check results into a step status: passed only when every
// check passed; otherwise the most actionable state wins.
func Aggregate(rs []Result) Status {
	if len(rs) == 0 {
		return Unknown
	}
	rank := map[Status]int{Failed: 5, Error: 4, Unknown: 3, Waiting: 2, Passed: 1}
	worst := Passed
	for _, r := range rs {
		if rank[r.Status] > rank[worst] {
			worst = r.Status
		}
	}
	return worst
}

// FirstFailing is the first of a step's results that did not pass (in
// the step's order: the one to fix first), nil when every one passed.
func FirstFailing(rs []Result) *Result {
	for i := range rs {
		if rs[i].Status != Passed {
			return &rs[i]
		}
	}
	return nil
}

// FirstFailed is the first of a step's results that failed or could not
// run, nil when none did: a verdict against what was observed, where a
// result that waits (or cannot see the cluster) gives none.
func FirstFailed(rs []Result) *Result {
	for i := range rs {
		if rs[i].Status == Failed || rs[i].Status == Error {
			return &rs[i]
		}
	}
	return nil
}

// Code is the Go half of a lab whose steps need checks no declarative
// primitive covers: its steps, matched to the lab's steps by ID. Package
// labs lists every lab's Code.
type Code struct {
	Lab   string
	Steps func() []Step
}
