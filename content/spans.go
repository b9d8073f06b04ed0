package content

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// Span is where lab.toml declares a step or a check: the lines from its
// [[...]] header to the last line before the next header that is not one
// of its own sub-tables, and the position of its id key (of the header
// when it has none). Lines and columns are 1-based; a zero Span is
// unknown (a check written as an inline table, say).
type Span struct {
	Line, Col   int
	First, Last int
}

// labSpans are where lab.toml declares its steps and checks: steps[i][0]
// is step i, steps[i][1+j] its check j; keys[i][j] says where check j of
// step i sets each of its keys, by their path within the check ("path",
// "rules.expr": the first place for a key set in several rules;
// "rules.1.expr": the second rule's).
type labSpans struct {
	steps [][]Span
	keys  [][]map[string]Span
}

// place sets where lab.toml declares each step and check (Step.At,
// Check.At, Check.Keys).
func (l *Lab) place(ls labSpans) {
	for i := range l.Steps {
		if i >= len(ls.steps) {
			return
		}
		s := &l.Steps[i]
		s.At = ls.steps[i][0]
		for j := range s.Checks {
			if j+1 < len(ls.steps[i]) {
				s.Checks[j].At = ls.steps[i][j+1]
			}
			if j < len(ls.keys[i]) {
				s.Checks[j].Keys = ls.keys[i][j]
			}
		}
	}
}

// StepSpan is where lab.toml declares Steps[i].
func (l *Lab) StepSpan(i int) Span {
	if l == nil || i < 0 || i >= len(l.Steps) {
		return Span{}
	}
	return l.Steps[i].At
}

// CheckSpan is where lab.toml declares Steps[i].Checks[j].
func (l *Lab) CheckSpan(i, j int) Span {
	if l == nil || i < 0 || i >= len(l.Steps) || j < 0 || j >= len(l.Steps[i].Checks) {
		return Span{}
	}
	return l.Steps[i].Checks[j].At
}

// CheckKeySpan is where Steps[i].Checks[j] sets key, a path within the
// check ("path", "rules.expr", "rules.0.fail", "why.KEY"): Line and Col
// of the key, zero when unknown (the check or the key written inline).
func (l *Lab) CheckKeySpan(i, j int, key string) Span {
	if l == nil || i < 0 || i >= len(l.Steps) || j < 0 || j >= len(l.Steps[i].Checks) {
		return Span{}
	}
	return l.Steps[i].Checks[j].Keys[key]
}

// stepSpans finds the [[steps]] and [[steps.checks]] tables of a valid
// lab.toml with the TOML parser, so a problem in a check is placed at
// that check even when another step has a check of the same ID.
func stepSpans(raw []byte) (ls labSpans) {
	defer func() {
		// Positions only make messages better; never let the parser's
		// unstable API take a lab down.
		if recover() != nil {
			ls = labSpans{}
		}
	}()
	pos := offsetSpans(raw)
	var sp spanner
	var p unstable.Parser
	p.Reset(raw)
	for p.NextExpression() {
		e := p.Expression()
		var key []string
		var at []Span // where each part of the key is
		for it := e.Key(); it.Next(); {
			at = append(at, pos(it.Node().Raw.Offset))
			key = append(key, string(it.Node().Data))
		}
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			sp.header(e.Kind == unstable.ArrayTable, key, at)
		case unstable.KeyValue:
			sp.keyValue(key, at)
		}
	}
	sp.closeTo(0, bytes.Count(raw, []byte("\n"))+1)
	return sp.ls
}

// spanner follows lab.toml's expressions in order for stepSpans.
type spanner struct {
	ls    labSpans
	open  []*Span  // the step and the check whose tables are being read
	table []string // the current table
	// elem is the current element of an array of the check's own
	// ([[steps.checks.rules]]: "rules", "1"), subs how many of each
	// array the open check has.
	elem []string
	subs map[string]int
}

// closeTo ends the open spans past the first n at line.
func (sp *spanner) closeTo(n, line int) {
	for len(sp.open) > n {
		sp.open[len(sp.open)-1].Last = line
		sp.open = sp.open[:len(sp.open)-1]
	}
}

// header is a [table] or [[array table]] header.
func (sp *spanner) header(array bool, key []string, at []Span) {
	sp.table = key
	line := at[0].Line
	spans := &sp.ls.steps
	switch {
	case array && slices.Equal(key, []string{"steps"}):
		sp.closeTo(0, line-1)
		*spans = append(*spans, []Span{{Line: line, Col: at[0].Col, First: line}})
		sp.ls.keys = append(sp.ls.keys, nil)
		sp.open = append(sp.open, &(*spans)[len(*spans)-1][0])
	case array && slices.Equal(key, []string{"steps", "checks"}) && len(*spans) > 0:
		sp.closeTo(1, line-1)
		last := len(*spans) - 1
		(*spans)[last] = append((*spans)[last], Span{Line: line, Col: at[0].Col, First: line})
		sp.ls.keys[last] = append(sp.ls.keys[last], map[string]Span{})
		sp.subs, sp.elem = map[string]int{}, nil
		// Appending may move the step's spans: point at them anew.
		sp.open = []*Span{&(*spans)[last][0], &(*spans)[last][len((*spans)[last])-1]}
	case len(key) > 2 && slices.Equal(key[:2], []string{"steps", "checks"}):
		// rules, values, why: still the check's
		sp.keyAt(key[2:], at[2])
		sp.elem = nil
		if array && sp.subs != nil {
			name := strings.Join(key[2:], ".")
			sp.elem = append(slices.Clone(key[2:]), strconv.Itoa(sp.subs[name]))
			sp.subs[name]++
			sp.keyAt(sp.elem, at[2])
		}
	case len(key) > 1 && key[0] == "steps":
		sp.closeTo(1, line-1)
	default:
		sp.closeTo(0, line-1)
	}
}

// keyValue is a key = value line of the current table.
func (sp *spanner) keyValue(key []string, at []Span) {
	inStep := len(sp.open) == 1 && slices.Equal(sp.table, []string{"steps"})
	inCheck := len(sp.open) == 2 && slices.Equal(sp.table, []string{"steps", "checks"})
	if len(key) == 1 && key[0] == "id" && (inStep || inCheck) {
		sp.open[len(sp.open)-1].Line, sp.open[len(sp.open)-1].Col = at[0].Line, at[0].Col
	}
	if len(sp.table) >= 2 && slices.Equal(sp.table[:2], []string{"steps", "checks"}) {
		sp.keyAt(append(slices.Clone(sp.table[2:]), key...), at[0])
		if sp.elem != nil {
			sp.keyAt(append(slices.Clone(sp.elem), key...), at[0])
		}
	}
}

// keyAt records where the open check first sets a key (its path in the
// check).
func (sp *spanner) keyAt(rel []string, at Span) {
	if len(sp.open) != 2 || len(rel) == 0 {
		return
	}
	keys := sp.ls.keys[len(sp.ls.keys)-1]
	m := keys[len(keys)-1]
	if k := strings.Join(rel, "."); m[k] == (Span{}) {
		m[k] = at
	}
}
