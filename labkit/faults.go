package labkit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/labhub/labmate/content"
)

// fault is an authoring error as compiling finds it: where (the problem
// it becomes, its Msg not yet written) and what is wrong, as data (a
// content.Message, whose values may be messages too). Compiling only
// finds faults; Compile words them all, once, as it hands them out
// (Lab.Problems, or the error that keeps the lab from loading), so
// finding an error and saying it stay apart, as apimachinery's
// field.Error is a value until its Error.
type fault struct {
	*content.Problem
	// what says it; nil when Problem.Msg does already (content's own
	// problems, found as the lab was read).
	what fmt.Stringer
	// shown is what a check or a step the fault keeps from being built
	// shows each time it is evaluated, written with Msg.
	shown string
}

// faultAt is a fault of file at at, said by key and its values.
func faultAt(file string, at content.Span, key string, kv ...any) *fault {
	return &fault{Problem: &content.Problem{File: file, Line: at.Line, Col: at.Col}, what: say(key, kv...)}
}

// say is the shared message key with its values, as data.
func say(key string, kv ...any) content.Message { return content.Message{Key: key, KV: kv} }

// word writes the fault's Msg and what it shows, and returns its problem.
func (f *fault) word() *content.Problem {
	if f.what != nil {
		f.Msg = f.what.String()
	}
	f.shown = content.Msg("labkit.authoring", "err", f.Error())
	return f.Problem
}

// worded are the problems of faults, in words.
func worded(faults []*fault) []*content.Problem {
	var out []*content.Problem
	for _, f := range faults {
		out = append(out, f.word())
	}
	return out
}

// told is a check's authoring errors as its problem says them: those of
// its fields first, sorted by their words, then the others in the order
// found.
type told struct{ fields, others []checkErr }

func (t told) String() string {
	var fields, others []string
	for _, e := range t.fields {
		fields = append(fields, e.msg.String())
	}
	slices.Sort(fields)
	for _, e := range t.others {
		others = append(others, e.msg.String())
	}
	return strings.Join(append(fields, others...), " ")
}
