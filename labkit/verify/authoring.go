package verify

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
)

// verifyProblems are verify.toml's authoring errors, each at its line: a
// step ID the lab has not (the step's cases would never run), a step
// proved twice, an equivalent's explain that names no message of the lab, a wrong answer's check its step does not declare (it
// could never be refused by it), a status there is not, an earlier step
// it breaks that is not earlier. A Go step's check IDs are its code's:
// only a run shows them.
func verifyProblems(text *content.Lab) []*content.Problem {
	if text.Verify == nil {
		return nil
	}
	file := path.Join(text.Where, "verify.toml")
	var out []*content.Problem
	at := func(key, name string, kv ...any) {
		sp := text.VerifyAt(key)
		out = append(out, &content.Problem{File: file, Line: sp.Line, Col: sp.Col, Msg: msg(name, kv...)})
	}
	var ids []string
	for _, s := range text.Steps {
		ids = append(ids, s.ID)
	}
	seen := map[string]bool{}
	named := map[string]mistake{} // label: the first mistake named so
	for i, vs := range text.Verify.Steps {
		base := fmt.Sprintf("steps.%d.", i)
		si := slices.IndexFunc(text.Steps, func(s content.Step) bool { return s.ID == vs.ID })
		switch {
		case si < 0:
			at(base+"id", "verify.authoring.no_step", "id", vs.ID, "ids", strings.Join(ids, ", "))
			continue
		case seen[vs.ID]:
			at(base+"id", "verify.authoring.dup_step", "id", vs.ID)
		}
		seen[vs.ID] = true
		st := text.Steps[si]
		for j, w := range vs.Wrong {
			wb := fmt.Sprintf("%swrong.%d.", base, j)
			if w.Check != "" && len(st.Checks) > 0 && !slices.ContainsFunc(st.Checks, func(c content.Check) bool { return c.ID == w.Check }) {
				var have []string
				for _, c := range st.Checks {
					have = append(have, c.ID)
				}
				at(wb+"check", "verify.authoring.no_check", "case", w.Case, "check", w.Check, "n", st.Number, "checks", strings.Join(have, ", "))
			}
			if w.Status != "" && !slices.Contains(statuses, checks.Status(w.Status)) {
				at(wb+"status", "verify.authoring.bad_status", "case", w.Case, "status", w.Status, "statuses", joinStatuses())
			}
			for _, b := range w.Breaks {
				if b < 1 || b >= st.Number {
					at(wb+"breaks", "verify.authoring.bad_breaks", "case", w.Case, "step", b, "n", st.Number)
				}
			}
			if w.Label != "" {
				labelProblems(w, wb, vs.ID, named, at)
			}
		}
		// The TUI's compare view shows explain's text to a learner.
		for j, e := range vs.Equivalent {
			if e.Explain != "" && !text.HasMsg(e.Explain) {
				at(fmt.Sprintf("%sequivalent.%d.explain", base, j), "verify.authoring.no_explain", "key", e.Explain)
			}
		}
	}
	return out
}

// maxLabel is how wide a mistake's label may be, in terminal cells (a
// Hangul syllable takes two): a line of the board at 60 columns holds it
// with a count of learners and a step.
const maxLabel = 36

// mistake is one named mistake: the step and the check that refuses it.
// Wrong answers of one check under different labels are told apart by
// their messages, which the proof holds each case to (cases.go).
type mistake struct {
	step, check, where string
}

// labelProblems holds a wrong answer's label to what makes it a name: a
// check to recognise it by and pieces of its message (Lab.Mistake), short
// enough for the board, and one mistake per label: wrong answers of two
// steps or two checks under one label would count different troubles of
// a room as one.
func labelProblems(w content.Wrong, key, step string, named map[string]mistake, at func(key, name string, kv ...any)) {
	switch {
	case w.Check == "" || len(w.Message) == 0:
		at(key+"label", "verify.authoring.label_unrecognised", "case", w.Case, "label", w.Label)
		return
	case runewidth.StringWidth(w.Label) > maxLabel:
		at(key+"label", "verify.authoring.label_long", "case", w.Case, "label", w.Label, "max", maxLabel)
	}
	m := mistake{step: step, check: w.Check, where: step + "/" + w.Case}
	if had, ok := named[w.Label]; ok && (had.step != m.step || had.check != m.check) {
		at(key+"label", "verify.authoring.label_shared", "case", w.Case, "label", w.Label, "other", had.where)
		return
	}
	named[w.Label] = m
}

// statuses are the statuses a wrong answer may be shown with.
var statuses = []checks.Status{checks.Failed, checks.Waiting, checks.Unknown, checks.Error}

func joinStatuses() string {
	s := make([]string, len(statuses))
	for i, st := range statuses {
		s[i] = string(st)
	}
	return strings.Join(s, ", ")
}

// messageRow holds every text of the lab to its form, not only those a
// case showed: a text a declarative check shows had its placeholders held
// to what that check fills there when the lab compiled; every text, and
// so one no declarative check shows (a Go lab's), writes its particles
// after placeholders as pairs. Each problem names its key and where the
// text is.
func messageRow(kit *labkit.Lab) Row {
	keys := kit.Text.OwnKeys()
	var bad []string
	shown := 0
	for _, k := range keys {
		if kit.ShowsText(k) {
			shown++
		}
		tpl, _ := kit.Text.MsgTemplate(k)
		for _, p := range content.FormProblems(tpl) {
			bad = append(bad, msg("verify.seen.message_form", "key", k, "where", kit.Text.MsgWhere(k), "problem", p))
		}
	}
	row := Row{Case: msg("verify.case.messages"), Expected: msg("verify.expect.messages"), OK: len(bad) == 0,
		Seen: msg("verify.seen.messages", "n", len(keys), "shown", shown, "form", len(keys)-shown)}
	switch shown {
	case len(keys):
		row.Seen = msg("verify.seen.messages_all", "n", len(keys))
	case 0:
		row.Seen = msg("verify.seen.messages_form", "n", len(keys))
	}
	if len(bad) > 0 {
		row.Seen = strings.Join(bad, "; ")
	}
	return row
}
