package trace

import (
	"bytes"
	"errors"

	"github.com/labhub/labmate/content"
)

// Reference reads the built-in reference run of an installed lab: the
// trace its lab.toml names as reference_run, written by `labmate lab
// verify --record` from a real sandbox run.
func Reference(lab string) (*Trace, error) {
	l, err := content.Load(lab)
	if err != nil {
		return nil, err
	}
	return ReferenceOf(l)
}

// ReferenceOf reads a lab's reference run.
func ReferenceOf(l *content.Lab) (*Trace, error) {
	if !HasReferenceOf(l) {
		return nil, errors.New(content.Msg("trace.no_reference", "lab", l.ID))
	}
	raw, err := l.ReadFile(l.ReferenceRun)
	if err != nil {
		return nil, errors.New(content.Msg("trace.no_reference", "lab", l.ID))
	}
	return Read(ReferenceName, bytes.NewReader(raw))
}

// HasReferenceOf reports whether a lab names a reference run and has it.
func HasReferenceOf(l *content.Lab) bool {
	if l == nil || l.ReferenceRun == "" {
		return false
	}
	_, err := l.ReadFile(l.ReferenceRun)
	return err == nil
}
