package class

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
)

// What a record is believed about comes from where it is, not from what it
// says: RBAC lets learner L patch exactly the objects named
// ObjectName(L, lab) (init's Role, resourceNames), so an object's name
// proves whose record it is and for which lab. Its content proves only
// what that learner's own labmate (or the learner, editing it by hand)
// wrote there. The board and the export therefore take the learner and the
// lab from the name, and flag a record whose content disagrees with it or
// breaks a bound; a flagged record shows no step as passed.

// Flag says why a record's content is not believed.
type Flag string

const (
	// Forged: the content names another learner or another lab than the
	// object it is in (a learner wrote someone else's record into their
	// own object).
	Forged Flag = "forged"
	// Malformed: the content does not parse, is of a schema this labmate does not read, breaks a
	// bound (size, count, range, characters), or the object is for a lab
	// this labmate does not have.
	Malformed Flag = "malformed"
)

// Bounds on a record. A record labmate writes stays far inside them; the
// board and the export refuse (flag Malformed) one that does not.
const (
	// MaxRecordBytes bounds record.json.
	MaxRecordBytes = 64 << 10
	// MaxSteps bounds the steps of a record and every step number in it.
	MaxSteps = 64
	// MaxFailing bounds a step's failing checks.
	MaxFailing = 64
	// MaxHints bounds a step's hint level.
	MaxHints = 99
	// MaxAttempts bounds a step's attempts.
	MaxAttempts = 9999
	// MaxNameRunes bounds the name a learner chose (--class-name).
	MaxNameRunes = 40
	// maxTextBytes bounds labmate's version and a check ID.
	maxTextBytes = 128
	// maxRunBytes bounds a run's name.
	maxRunBytes = 32
)

// SplitObjectName is the learner and the lab of a record object's name
// (ObjectName): learner IDs hold no dot, so the first dot ends it. ok is
// false for a name no record has.
func SplitObjectName(name string) (learner, lab string, ok bool) {
	learner, lab, ok = strings.Cut(name, ".")
	return learner, lab, ok && ValidLearner(learner) && lab != ""
}

// isRecord reports whether o is a record object, and for which lab: its
// name is <learner>.<lab>, and it carries the record label or the lab is
// installed. Not the label alone: the learner may patch their object's
// labels, and would drop out of the export by removing it.
func isRecord(o *corev1.ConfigMap, known func(string) bool) (lab string, ok bool) {
	_, lab, ok = SplitObjectName(o.Name)
	return lab, ok && (o.Labels[LabelRecord] == "true" || known(lab))
}

// installedLab reports whether labmate has the lab (content.IDs); a
// variable so that tests can name labs of their own.
var installedLab = func(lab string) bool { return slices.Contains(content.IDs(), lab) }

// knownLabs are the labs whose records are read: labmate's own, and the
// lab the class carries (its lab object, which only the instructor can
// write: learners may only read it).
func knownLabs(classLab string) func(string) bool {
	return func(lab string) bool { return lab != "" && lab == classLab || installedLab(lab) }
}

// classLabOf is the ID of the lab the class carries ("" when none), from
// the lab object among objs.
func classLabOf(objs []*corev1.ConfigMap) LabArchive {
	for _, o := range objs {
		if o.Name == LabObject {
			return LabMeta(o)
		}
	}
	return LabArchive{}
}

// readObject is the record an object holds, as far as it is believed: ok
// is false for an object that is not a record (its name is not
// <learner>.<lab>). A record that cannot be believed comes back with its
// learner and lab from the name, its name the learner's slot, no steps,
// and Flag set.
func readObject(o *corev1.ConfigMap, known func(string) bool) (r Record, ok bool) {
	learner, lab, ok := SplitObjectName(o.Name)
	if !ok {
		return Record{}, false
	}
	flagged := func(f Flag) (Record, bool) {
		return Record{Schema: Schema, Learner: learner, Name: learner, Lab: lab, Steps: []StepRecord{}, Flag: f}, true
	}
	raw := o.Data[DataKey]
	if !known(lab) || len(raw) > MaxRecordBytes {
		return flagged(Malformed)
	}
	r, err := Unmarshal([]byte(raw))
	switch {
	case err != nil:
		return flagged(Malformed)
	case r.Learner != learner || r.Lab != lab:
		return flagged(Forged)
	case r.bounded() != nil:
		return flagged(Malformed)
	}
	return r, true
}

// bounded checks every field of a decoded record against the bounds.
func (r Record) bounded() error {
	if !printable(r.Name) || utf8.RuneCountInString(r.Name) > MaxNameRunes {
		return errors.New("name")
	}
	if !printable(r.Labmate) || len(r.Labmate) > maxTextBytes {
		return errors.New("labmate")
	}
	if !printable(r.LabVersion) || len(r.LabVersion) > maxVersionBytes {
		return errors.New("lab version")
	}
	if !printable(r.Run) || len(r.Run) > maxRunBytes {
		return errors.New("run")
	}
	if len(r.Steps) > MaxSteps || r.Current < 0 || r.Current > MaxSteps ||
		r.Page != nil && (*r.Page < 0 || *r.Page > MaxSteps) {
		return errors.New("steps")
	}
	seen := map[int]bool{}
	for _, s := range r.Steps {
		if s.Number < 1 || s.Number > MaxSteps || seen[s.Number] || !knownStatus(s.Status) ||
			s.Hints < 0 || s.Hints > MaxHints || len(s.Failing) > MaxFailing ||
			s.Attempts < 0 || s.Attempts > MaxAttempts {
			return fmt.Errorf("step %d", s.Number)
		}
		seen[s.Number] = true
		if !printable(s.Mistake) || utf8.RuneCountInString(s.Mistake) > MaxLabelRunes ||
			s.Hands < 0 || s.Hands > MaxHands || len(s.AckSeconds) > MaxHands || slices.ContainsFunc(s.AckSeconds, func(n int) bool { return n < 0 }) {
			return fmt.Errorf("step %d mistake", s.Number)
		}
		for _, c := range s.Failing {
			if c.ID == "" || len(c.ID) > maxTextBytes || !printable(c.ID) || !knownStatus(c.Status) {
				return fmt.Errorf("step %d check", s.Number)
			}
		}
	}
	if g := r.Regression; g != nil && (g.Step < 1 || g.Step > MaxSteps || !knownStatus(g.From) || !knownStatus(g.To)) {
		return errors.New("regression")
	}
	if r.Hand != nil {
		return r.Hand.bounded()
	}
	return nil
}

func knownStatus(s checks.Status) bool {
	switch s {
	case checks.Passed, checks.Failed, checks.Waiting, checks.Unknown, checks.Error:
		return true
	}
	return false
}

// printable: nothing that would move the instructor's cursor, change
// colours or reorder text on the board (control, format and bidi
// characters).
func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) })
}

// displayName is the name a learner chose, made to fit the bounds: only
// printable characters, at most MaxNameRunes of them.
func displayName(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, strings.ToValidUTF8(s, ""))
	if r := []rune(s); len(r) > MaxNameRunes {
		s = string(r[:MaxNameRunes])
	}
	return s
}
