package class

import (
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
)

// Hand is a learner's raised hand: a request for help that carries where
// the learner is, so the instructor walks over knowing it. It is up from
// the learner's key until the step passes or the learner lowers it.
//
// Unlike a record's steps, a hand carries its failing checks' messages:
// raising it is the learner's own act of showing them, as they would
// point at their screen. The messages are bounded and hold printable
// text only (Clip); nothing else of the learner's files travels.
type Hand struct {
	// Step is the learner's step when the hand went up.
	Step int `json:"step"`
	// Raised is when the hand went up: with the learner, the hand's
	// identity (an acknowledgement names it).
	Raised time.Time `json:"raised"`
	// Note is the learner's own short note (optional, Clip'd).
	Note string `json:"note,omitempty"`
	// Hints is the step's hint rung when the hand went up; Solution
	// whether the worked solution was open.
	Hints    int  `json:"hints"`
	Solution bool `json:"solution,omitempty"`
	// Checks are the step's failing checks with their messages, newest.
	Checks []HandCheck `json:"checks,omitempty"`
	// Acked is when the learner's labmate saw the instructor's
	// acknowledgement of this hand (zero: not yet).
	Acked time.Time `json:"acked,omitzero"`
}

// Raise is the hand a learner raises on step at at (its identity: at
// to the second, as a record keeps times), their note clipped, with the
// step's hint rung and whether its solution was open; the failing
// checks are the caller's to add.
func Raise(step int, at time.Time, note string, hints int, solution bool) *Hand {
	return &Hand{Step: step, Raised: at.UTC().Truncate(time.Second), Note: Clip(note, MaxNoteRunes), Hints: hints, Solution: solution}
}

// HandCheck is a failing check as a raised hand shows it.
type HandCheck struct {
	ID      string `json:"id"`
	Message string `json:"message,omitempty"`
}

// Bounds of a hand (see trust.go for a record's).
const (
	// MaxNoteRunes bounds a hand's note.
	MaxNoteRunes = 120
	// MaxHandChecks bounds a hand's checks, MaxMessageRunes a message.
	MaxHandChecks   = 8
	MaxMessageRunes = 300
	// MaxLabelRunes bounds a named mistake's label.
	MaxLabelRunes = 80
	// MaxHands bounds the hands a step record counts and the times to
	// acknowledgement it keeps.
	MaxHands = 99
)

// Clip makes untrusted text fit a field of a record: valid UTF-8, every
// control, format or bidi character a space, spaces folded, at most n
// runes.
func Clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, strings.ToValidUTF8(s, ""))
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n])
	}
	return s
}

// bounded checks a hand read from a record against its bounds.
func (h *Hand) bounded() error {
	if h.Step < 1 || h.Step > MaxSteps || h.Hints < 0 || h.Hints > MaxHints || len(h.Checks) > MaxHandChecks ||
		!printable(h.Note) || utf8.RuneCountInString(h.Note) > MaxNoteRunes {
		return errors.New("hand")
	}
	for _, c := range h.Checks {
		if c.ID == "" || len(c.ID) > maxTextBytes || !printable(c.ID) ||
			!printable(c.Message) || utf8.RuneCountInString(c.Message) > MaxMessageRunes {
			return errors.New("hand check")
		}
	}
	return nil
}

// The acknowledgement of a raised hand lives in an object of its own per
// learner, AckObject: the instructor writes it (the learner's Role may
// get, list and watch it by name, never patch it), and no other learner
// can read it (their Roles name only their own). One key per lab holds
// the newest acknowledgement of that lab's hand.
const (
	// LabelAck marks an acknowledgement object ("true").
	LabelAck = "labmate.dev/class-ack"
	// AckFieldManager owns what the board writes.
	AckFieldManager = "labmate-class-board"
)

// AckObject is the name of learner's acknowledgement object. Its dots
// and prefix keep it apart from every record (<learner>.<lab>, whose
// learner part is a DNS label: "labmate-ack" is no learner init makes
// when ValidLearner refuses it in AckObject's callers).
func AckObject(learner string) string { return "labmate-ack." + learner }

// Ack says the instructor saw a learner's raised hand.
type Ack struct {
	Step int `json:"step"`
	// Raised names the hand acknowledged (Hand.Raised).
	Raised time.Time `json:"raised"`
	// At is when the instructor acknowledged it.
	At time.Time `json:"at"`
}

// Acknowledges reports whether a acknowledges the hand h.
func (a Ack) Acknowledges(h *Hand) bool {
	return h != nil && a.Step == h.Step && a.Raised.Equal(h.Raised)
}

// MarshalAck is an acknowledgement's value under its lab's key.
func MarshalAck(a Ack) (string, error) {
	b, err := json.Marshal(a)
	return string(b), err
}

// ReadAck is the acknowledgement of lab's hand in an acknowledgement
// object (ok false when there is none or it does not parse).
func ReadAck(o *corev1.ConfigMap, lab string) (Ack, bool) {
	if o == nil {
		return Ack{}, false
	}
	raw, ok := o.Data[lab]
	if !ok || len(raw) > maxTextBytes*4 {
		return Ack{}, false
	}
	var a Ack
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		return Ack{}, false
	}
	return a, true
}
