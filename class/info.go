package class

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
)

// The class object is what `class init` knows of the class that the
// records do not say: the labs it was made for and the names on the
// instructor's roster. It is one ConfigMap, InfoObject, written by the
// instructor alone: a learner's Role names only their own records and
// the lab object, so learners can neither read the roster nor change
// it. Its name has no dot, so it is never read as a record.

const (
	// InfoObject is the name of the class object.
	InfoObject = "labmate-class"
	// InfoKey is its data key, holding Info as JSON.
	InfoKey = "class.json"
	// LabelInfo marks the class object ("true").
	LabelInfo = "labmate.dev/class-info"
	// infoSchema is the version of Info labmate writes.
	infoSchema = 1
)

// Info is the class object's content.
type Info struct {
	Schema int `json:"schema"`
	// Labs are the labs the class was made for (init's --lab), in order.
	Labs []string `json:"labs"`
	// Names maps a learner's slot to the name on the instructor's
	// roster (a display name such as 김지민); slots given by count or by
	// an ID alone have none.
	Names map[string]string `json:"names,omitempty"`
}

// MarshalInfo is the class object's data value.
func MarshalInfo(i Info) (string, error) {
	i.Schema = infoSchema
	b, err := json.Marshal(i)
	return string(b), err
}

// ReadInfo is what a class object says, as far as it is believed: the
// instructor wrote it, but anyone with write access to the namespace
// could have, so names that break a record's bounds are dropped (the
// slot stands in). ok is false for an object that is not one.
func ReadInfo(o *corev1.ConfigMap) (Info, bool) {
	if o == nil || o.Name != InfoObject {
		return Info{}, false
	}
	var i Info
	raw := o.Data[InfoKey]
	if len(raw) > MaxRecordBytes*16 || json.Unmarshal([]byte(raw), &i) != nil || i.Schema < 1 {
		return Info{}, false
	}
	for slot, name := range i.Names {
		if !ValidLearner(slot) || !ValidName(name) {
			delete(i.Names, slot)
		}
	}
	i.Labs = slices.DeleteFunc(i.Labs, func(l string) bool { return !validLabID(l) })
	return i, true
}

// ValidName reports whether s can be shown as a learner's name: one
// line of printable text, at most MaxNameRunes characters.
func ValidName(s string) bool {
	return s != "" && printable(s) && utf8.RuneCountInString(s) <= MaxNameRunes
}

// infoOf is the class object among objs.
func infoOf(objs []*corev1.ConfigMap) (Info, bool) {
	for _, o := range objs {
		if o.Name == InfoObject {
			return ReadInfo(o)
		}
	}
	return Info{}, false
}
