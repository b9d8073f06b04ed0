package content

import "strings"

// Mistake names the mistake a learner makes when check of step n fails
// with message: the label of the wrong answer of verify.toml that refuses
// the same check with a message containing every piece that answer says
// its message has (what `lab verify` proves that mistake shows). check is
// the check's ID in the step or a result's ID ("<step-id>.<check>"). It
// is "" when no labelled wrong answer matches, or when matches of
// different labels would make the name a guess.
func (l *Lab) Mistake(n int, check, message string) string {
	if l == nil || l.Verify == nil || n < 1 || n > len(l.Steps) {
		return ""
	}
	id := l.Steps[n-1].ID
	check = strings.TrimPrefix(check, id+".")
	label := ""
	for _, vs := range l.Verify.Steps {
		if vs.ID != id {
			continue
		}
		for _, w := range vs.Wrong {
			if w.Label == "" || w.Check != check || len(w.Message) == 0 || !containsAll(message, w.Message) {
				continue
			}
			if label != "" && label != w.Label {
				return ""
			}
			label = w.Label
		}
	}
	return label
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
