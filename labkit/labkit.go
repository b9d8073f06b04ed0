// Package labkit turns a lab's data (package content) into the steps the
// engine runs: each step's declarative checks compiled (CEL conditions
// included), or the lab's Go code where a step has no declarative checks
// (package labs). It also answers which labs are installed, and reads a
// lab from a directory for an author.
package labkit

import (
	"fmt"
	"slices"
	"sync"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labs"
	"github.com/labhub/labmate/observe/cluster"
)

// Lab is a lab ready to run: its text and its executable steps, in the
// order of its text. Problems are authoring errors found while compiling
// it (a check whose CEL does not compile, a step without checks); the
// checks concerned evaluate to an error result instead of crashing.
type Lab struct {
	Text     *content.Lab
	Steps    []checks.Step
	Problems []*content.Problem
	// Scope is what the lab watches in a cluster ([cluster] of lab.toml,
	// resolved in the table of kinds); CRDs are the custom resources its
	// crds/ define.
	Scope cluster.Scope
	CRDs  []cluster.Resource
	// cluster are the numbers of the steps that read the cluster.
	cluster []int
	// texts are the message keys declarative checks show (ShowsText).
	texts map[string]bool
	// predicates are the lab's named predicates ([predicates]);
	// stepPredicates a declarative step's own, by step number.
	predicates     []*predicate
	stepPredicates map[int][]*predicate
}

// ID is the lab's ID.
func (l *Lab) ID() string { return l.Text.ID }

var (
	cacheMu sync.Mutex
	cache   = map[string]*Lab{}
)

// Open returns an installed lab, compiled once.
func Open(id string) (*Lab, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if l, ok := cache[id]; ok {
		return l, nil
	}
	text, err := content.Load(id)
	if err != nil {
		return nil, err
	}
	l, err := Compile(text, code(id))
	if err != nil {
		return nil, err
	}
	cache[id] = l
	return l, nil
}

// OpenDir reads and compiles a lab from a directory on disk. Only its
// declarative checks run: a directory brings no Go code.
func OpenDir(dir string) (*Lab, error) {
	text, err := content.LoadDir(dir)
	if err != nil {
		return nil, err
	}
	return Compile(text, nil)
}

// Installed lists the installed labs that load, sorted by ID.
func Installed() []*Lab {
	var out []*Lab
	for _, id := range content.IDs() {
		if l, err := Open(id); err == nil {
			out = append(out, l)
		}
	}
	return out
}

func code(id string) *checks.Code {
	i := slices.IndexFunc(labs.Code, func(c checks.Code) bool { return c.Lab == id })
	if i < 0 {
		return nil
	}
	return &labs.Code[i]
}

// Compile builds a lab's steps from its text and, when it has any, its
// Go code. The error is a key of a check no check type reads, which
// keeps the lab from loading as any key lab.toml does not know does.
func Compile(text *content.Lab, code *checks.Code) (*Lab, error) {
	l := &Lab{Text: text, texts: map[string]bool{}, stepPredicates: map[int][]*predicate{}}
	var faults, more []*fault
	l.Scope, l.CRDs, faults = scopeOf(text)
	custom, more := readCustomKinds(text)
	faults = append(faults, more...)
	// Refused by lab install, pack and verify; shown escaped when run.
	for _, p := range text.Controls {
		faults = append(faults, &fault{Problem: p})
	}
	labPreds, more := predicatesOf(text, text.Predicates, "predicates", nil)
	l.predicates = labPreds
	faults = append(faults, more...)
	faults = append(faults, checkPredicates(text, labPreds)...)
	goSteps := map[string]checks.Step{}
	if code != nil && code.Steps != nil {
		for _, s := range code.Steps() {
			goSteps[s.ID] = s
		}
	}
	for si, ts := range text.Steps {
		gs, hasGo := goSteps[ts.ID]
		live := ts.Cluster
		switch {
		case len(ts.Checks) > 0 && hasGo:
			f := stepFault(text, ts, say("labkit.both", "step", ts.Number))
			faults = append(faults, f)
			l.Steps = append(l.Steps, brokenStep(ts, f))
		case len(ts.Checks) > 0:
			stepPreds, more := predicatesOf(text, ts.Predicates, fmt.Sprintf("steps.%d.predicates", si), labPreds)
			l.stepPredicates[ts.Number] = stepPreds
			faults = append(faults, more...)
			faults = append(faults, checkPredicates(text, stepPreds)...)
			cs := compileStep(text, l.Scope, custom, append(slices.Clone(labPreds), stepPreds...), si, ts)
			if cs.fatal != nil {
				return nil, cs.fatal.word()
			}
			faults = append(faults, cs.probs...)
			l.Steps = append(l.Steps, cs.step)
			for _, k := range cs.texts {
				l.texts[k] = true
			}
			live = live || cs.live
		case hasGo:
			gs.Number = ts.Number
			l.Steps = append(l.Steps, gs)
		default:
			f := stepFault(text, ts, say("labkit.no_checks", "step", ts.Number))
			faults = append(faults, f)
			l.Steps = append(l.Steps, brokenStep(ts, f))
		}
		if live {
			l.cluster = append(l.cluster, ts.Number)
		}
	}
	l.Problems = worded(faults)
	return l, nil
}

// ClusterSteps are the numbers of the steps that read live cluster
// objects, in order: a Go step that declares it (`cluster = true`), a
// declarative step one of whose checks is of a type that does.
func (l *Lab) ClusterSteps() []int { return slices.Clone(l.cluster) }

// ShowsText says whether a declarative check shows the message key, so
// its text was held to the placeholders that check fills there (a text
// that failed is among Problems). A text no such check shows (a Go
// step's) can be checked for its form only.
func (l *Lab) ShowsText(key string) bool { return l.texts[key] }

// ReadsCluster says whether step n reads live cluster objects.
func (l *Lab) ReadsCluster(n int) bool { return slices.Contains(l.cluster, n) }

// stepFault is what keeps step ts from being built.
func stepFault(text *content.Lab, ts content.Step, what content.Message) *fault {
	return faultAt(text.Where+"/lab.toml", content.Span{}, "labkit.step_problem", "step", ts.Number, "id", ts.ID, "problem", what)
}

// brokenStep stands in for a step that could not be built: it says why
// (f, worded by then), as an error result, every time it is evaluated.
func brokenStep(ts content.Step, f *fault) checks.Step {
	return checks.Step{Number: ts.Number, ID: ts.ID, Eval: func(checks.Input) checks.StepEval {
		return checks.StepEval{Checks: []checks.Result{{ID: ts.ID + ".authoring", Status: checks.Error, Message: f.shown}}}
	}}
}
