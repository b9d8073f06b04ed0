// Package class lets a workshop's instructor watch a class live through a
// Kubernetes API server, never a server of labmate's own. Each learner's
// labmate publishes one small Record per lab into the class namespace (a
// ConfigMap written with server-side apply under the field manager
// "labmate-class"); the instructor's board watches those objects with an
// informer. Init sets a class up: namespace, records, one Role per learner
// that may patch only that learner's records, and a kubeconfig per learner.
//
// The package knows no bubbletea: the TUI and `check --watch` feed a
// Publisher, the board reads a Watch.
package class

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/labhub/labmate/checks"
)

// Names and labels shared by init, the publisher and the board.
const (
	// FieldManager is the server-side apply field manager of every
	// learner-side write.
	FieldManager = "labmate-class"
	// InitFieldManager owns what `class init` writes.
	InitFieldManager = "labmate-class-init"

	// LabelRecord marks a record ConfigMap ("true").
	LabelRecord = "labmate.dev/class-record"
	// LabelLearner and LabelLab name the record's learner and lab.
	LabelLearner = "labmate.dev/learner"
	LabelLab     = "labmate.dev/lab"
	// LabelClass marks the namespace and the RBAC objects init made.
	LabelClass = "labmate.dev/class"

	// DataKey is the ConfigMap key holding the record's JSON.
	DataKey = "record.json"

	// Schema is the version of the record format labmate writes. 2 added
	// per step Arrived, FirstPassed and Attempts; 3 a raised hand and per
	// step CaughtUp and Mistake. A record of an older schema (MinSchema
	// and on) is still read, its new fields zero.
	Schema = 3
	// MinSchema is the oldest record format still read.
	MinSchema = 1
)

// Record is what one learner publishes about one lab, and exactly what
// `labmate class preview` prints: step statuses, times, hint levels,
// labmate's version and a name the learner chose. It never holds file
// contents, cluster objects, paths or check messages (check messages quote
// the learner's files, see FailingCheck), except the messages of a hand
// the learner raised (Hand).
type Record struct {
	Schema int `json:"schema"`
	// Learner is the learner's slot in the class (set by init; also the
	// record object's name prefix).
	Learner string `json:"learner"`
	// Name is the name the learner chose to be shown as (--class-name).
	Name string `json:"name"`
	Lab  string `json:"lab"`
	// LabVersion is the version of the lab the learner runs (lab.toml's
	// version; empty for a lab without one).
	LabVersion string `json:"labVersion,omitempty"`
	Labmate    string `json:"labmate"`
	// Updated is when labmate last saw something a teacher cares about
	// change.
	Updated time.Time `json:"updated"`
	// Current is the first step not passed (0 when every step passed),
	// and CurrentSince when the learner arrived there.
	Current      int       `json:"current"`
	CurrentSince time.Time `json:"currentSince"`
	// Page is the page the learner has open in the TUI (0: introduction);
	// nil from `check --watch`, which has no pages.
	Page  *int         `json:"page,omitempty"`
	Steps []StepRecord `json:"steps"`
	// Regression is the newest step that went from passed to failed.
	Regression *Regression `json:"regression,omitempty"`
	// Run names the labmate run that wrote the record (random, new each
	// start): two runs that take turns writing one learner's record are
	// two labmates on one class file (Collector marks them Shared).
	Run string `json:"run,omitempty"`
	// Hand is the learner's raised hand (nil: none up).
	Hand *Hand `json:"hand,omitempty"`

	// Set by the board's and the export's reading of a record object,
	// never sent:
	// Flag says why its content is not believed (trust.go).
	Flag Flag `json:"-"`
	// Listed is the learner's name on the instructor's roster (the class
	// object), "" when the roster has none.
	Listed string `json:"-"`
	// Shared is true when two labmate runs took turns writing the record
	// lately: two people (or two labmates) on one class file.
	Shared bool `json:"-"`
}

// Shown is the name the instructor sees: the roster's, else the one the
// learner chose (the slot when they chose none).
func (r Record) Shown() string {
	if r.Listed != "" {
		return r.Listed
	}
	return r.Name
}

// Absent reports whether the learner's labmate never published: the
// record init made still has no step (a flagged record is not absent:
// something was written).
func (r Record) Absent() bool { return r.Flag == "" && len(r.Steps) == 0 }

// StepRecord is one step as the learner sees it.
type StepRecord struct {
	Number int           `json:"number"`
	Status checks.Status `json:"status"`
	// Since is when the step got its current status.
	Since time.Time `json:"since"`
	// Hints is how many hints the learner opened; Solution whether they
	// opened the worked solution.
	Hints    int  `json:"hints"`
	Solution bool `json:"solution,omitempty"`
	// Failing are the checks that did not pass, by ID.
	Failing []FailingCheck `json:"failing,omitempty"`

	// Arrived is when the learner first reached the step: it became the
	// first step not passed, or it passed before that. Zero when it was
	// already passed at the first evaluation this labmate saw (when it
	// was reached is not known), and in schema 1 records.
	Arrived time.Time `json:"arrived,omitzero"`
	// FirstPassed is when the step first passed (zero: not yet, or
	// before this labmate's first evaluation when Arrived is zero too).
	FirstPassed time.Time `json:"firstPassed,omitzero"`
	// Attempts counts the changes of the step's set of failing checks
	// while it was the learner's current step: each fix or new mistake
	// the checks can tell apart, the one that makes it pass included.
	Attempts int `json:"attempts,omitempty"`

	// CaughtUp: the step passes because `labmate catch-up` brought it to
	// the lab's reference, not by the learner's own answer.
	CaughtUp bool `json:"caughtUp,omitempty"`
	// Mistake is the lab's label of the named mistake the step's failing
	// checks show (content.Lab.Mistake; "" when none is named).
	Mistake string `json:"mistake,omitempty"`
	// Hands is how many times the learner raised a hand on the step;
	// AckSeconds, for each acknowledged one, the seconds from the hand
	// up to the learner's labmate seeing the acknowledgement.
	Hands      int   `json:"hands,omitempty"`
	AckSeconds []int `json:"ackSeconds,omitempty"`
}

// TimeToPass is how long the learner took from reaching the step to
// first passing it; ok is false while that is not known.
func (s StepRecord) TimeToPass() (d time.Duration, ok bool) {
	if s.Arrived.IsZero() || s.FirstPassed.IsZero() || s.FirstPassed.Before(s.Arrived) {
		return 0, false
	}
	return s.FirstPassed.Sub(s.Arrived), true
}

// FailingCheck names a check that did not pass. Only the check's ID
// travels, never its message: messages quote what the learner wrote (a
// TOML line, a value, the tail of a script's output) and absolute paths,
// and nothing of the learner's files may leave their machine.
type FailingCheck struct {
	ID     string        `json:"id"`
	Status checks.Status `json:"status"`
}

// Regression is a step that went back from passed.
type Regression struct {
	Step int           `json:"step"`
	From checks.Status `json:"from"`
	To   checks.Status `json:"to"`
	At   time.Time     `json:"at"`
}

// Identity is who publishes: the slot init gave the learner, the name
// they chose, the lab and labmate's version.
type Identity struct {
	Learner string
	Name    string
	Lab     string
	// LabVersion is the version of the lab run (the class's lab, or an
	// installed one); empty when the lab has none.
	LabVersion string
	Labmate    string
	// Run names this run of labmate (Record.Run); "" in a preview.
	Run string
}

// NewRecord is id's record before anything is known of the lab: no
// steps. The name is made to fit the bounds; with none, the slot stands
// in.
func NewRecord(id Identity) Record {
	name := displayName(id.Name)
	if name == "" {
		name = id.Learner
	}
	return Record{Schema: Schema, Learner: id.Learner, Name: name, Lab: id.Lab, LabVersion: id.LabVersion, Labmate: id.Labmate, Run: id.Run, Steps: []StepRecord{}}
}

// Step returns step n, or nil.
func (r Record) Step(n int) *StepRecord {
	for i := range r.Steps {
		if r.Steps[i].Number == n {
			return &r.Steps[i]
		}
	}
	return nil
}

// Passed counts the passed steps.
func (r Record) Passed() int {
	n := 0
	for _, s := range r.Steps {
		if s.Status == checks.Passed {
			n++
		}
	}
	return n
}

// Marshal is the record's wire form: the ConfigMap value and the preview.
func Marshal(r Record) ([]byte, error) {
	return json.MarshalIndent(r, "", "  ")
}

// Unmarshal reads a record's wire form.
func Unmarshal(b []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, err
	}
	if r.Schema < MinSchema || r.Schema > Schema {
		return Record{}, fmt.Errorf("record schema %d, want %d to %d", r.Schema, MinSchema, Schema)
	}
	return r, nil
}

// learnerID is what a learner's slot name may be: a DNS label short enough
// that "<learner>.<lab>" stays a valid object name.
var learnerID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$`) })

// ValidLearner reports whether id can name a learner.
func ValidLearner(id string) bool { return learnerID().MatchString(id) }

// ObjectName is the name of a learner's record object for a lab.
func ObjectName(learner, lab string) string { return learner + "." + lab }
