// Package engine joins sources of observations to a lab's checks: it folds
// observations into a store, remembers facts of the past, evaluates every
// step and hands out reports. It is the only place that knows both sides;
// the TUI and the check command only consume Reports.
package engine

import (
	"context"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/latest"
	"github.com/labhub/labmate/observe"
)

// Report is the result of one evaluation. Its JSON form is the stable
// `labmate check --json` shape.
type Report struct {
	Lab   string       `json:"lab"`
	Title string       `json:"title"`
	Root  string       `json:"root"`
	Steps []StepResult `json:"steps"`
	// Cluster is the connection state the cluster checks saw.
	Cluster observe.ClusterObs `json:"cluster"`
	// Problems are Korean messages about sources that failed (the file
	// watcher could not start, ...). The rest keeps working.
	Problems []string `json:"problems,omitempty"`
	// Ready is true once every source delivered its initial state.
	Ready bool      `json:"ready"`
	Time  time.Time `json:"time"`
	// Seq increases with every report an engine hands out.
	Seq uint64 `json:"-"`
}

// StepResult is one step's verdict.
type StepResult struct {
	Number   int             `json:"number"`
	ID       string          `json:"id"`
	Title    string          `json:"title"`
	Status   checks.Status   `json:"status"`
	Checks   []checks.Result `json:"checks"`
	Observed []checks.Fact   `json:"observed,omitempty"`
}

// Step returns the result for step n (1-based), or nil.
func (r *Report) Step(n int) *StepResult {
	for i := range r.Steps {
		if r.Steps[i].Number == n {
			return &r.Steps[i]
		}
	}
	return nil
}

// AllPassed reports whether every step in the report passed.
func (r *Report) AllPassed() bool {
	return len(r.Steps) > 0 && r.Passed() == len(r.Steps)
}

// Current is the learner's step: the first step not passed, 0 when every
// step passed.
func (r *Report) Current() int {
	for _, s := range r.Steps {
		if s.Status != checks.Passed {
			return s.Number
		}
	}
	return 0
}

// Passed counts the report's passed steps.
func (r *Report) Passed() int {
	n := 0
	for _, s := range r.Steps {
		if s.Status == checks.Passed {
			n++
		}
	}
	return n
}

// FirstFailing is the first of the step's checks that did not pass
// (checks.FirstFailing), nil when every check passed.
func (s *StepResult) FirstFailing() *checks.Result { return checks.FirstFailing(s.Checks) }

// FirstFailed is the first of the step's checks whose verdict is
// against the answer, failed or an error (checks.FirstFailed): what a
// check that waits or cannot see the cluster does not give.
func (s *StepResult) FirstFailed() *checks.Result { return checks.FirstFailed(s.Checks) }

// PassedChecks counts the step's passed checks.
func (s *StepResult) PassedChecks() int {
	n := 0
	for _, c := range s.Checks {
		if c.Status == checks.Passed {
			n++
		}
	}
	return n
}

// Config builds an Engine.
type Config struct {
	Lab   *content.Lab
	Steps []checks.Step
	Root  string // absolute lab root
	// Witness is the persisted memory to start from.
	Witness checks.Witness
	// SaveWitness, if set, is called (from the engine goroutine) whenever
	// the memory changed.
	SaveWitness func(checks.Witness) error
	// Tap, if set, sees every observation the engine applies, in order
	// (the recorder).
	Tap func(observe.Observation)
	// Settle is how long a file must be quiet before a result it made
	// worse is shown (default 40ms; negative: show every result at once).
	// MaxHold caps that wait while a file keeps changing (default 250ms).
	Settle  time.Duration
	MaxHold time.Duration
}

// Engine evaluates a lab. Apply and Evaluate must be called from one
// goroutine (Start does that).
type Engine struct {
	cfg      Config
	store    *observe.Store
	witness  checks.Witness
	sources  []string
	problems []string
	seq      uint64
}

// New returns an engine for the lab.
func New(cfg Config) *Engine {
	w := cfg.Witness
	if w.Facts == nil {
		w.Facts = map[string]checks.WitnessFact{}
	}
	return &Engine{cfg: cfg, store: observe.NewStore(), witness: w}
}

// Files returns the lab-relative paths the steps read, sorted, for the file
// source to watch.
func (e *Engine) Files() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range e.cfg.Steps {
		for _, f := range s.Files {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Probes returns the scripts the steps ask to run.
func (e *Engine) Probes() []observe.ProbeSpec {
	var out []observe.ProbeSpec
	for _, s := range e.cfg.Steps {
		if s.Probe != nil {
			out = append(out, *s.Probe)
		}
	}
	return out
}

// Fork returns an engine that starts where this one stands (what it
// observed, what it remembers) and goes its own way: it persists nothing
// and taps nothing. It is for trying an observation without making it
// (lab verify judging a near-miss). Not for a running engine.
func (e *Engine) Fork() *Engine {
	cfg := e.cfg
	cfg.SaveWitness, cfg.Tap = nil, nil
	f := &Engine{cfg: cfg, store: e.store.Clone(), witness: e.Witness(), seq: e.seq}
	f.sources = append(f.sources, e.sources...)
	f.problems = append(f.problems, e.problems...)
	return f
}

// Witness returns a copy of the current memory.
func (e *Engine) Witness() checks.Witness {
	w := checks.Witness{Facts: make(map[string]checks.WitnessFact, len(e.witness.Facts))}
	for k, v := range e.witness.Facts {
		w.Facts[k] = v
	}
	return w
}

// SetTap sets the function that sees every applied observation (the
// recorder). Call it before Start.
func (e *Engine) SetTap(tap func(observe.Observation)) { e.cfg.Tap = tap }

// Apply folds one observation in and updates the memory of the past.
func (e *Engine) Apply(o observe.Observation) {
	if e.cfg.Tap != nil {
		e.cfg.Tap(o)
	}
	e.store.Apply(o)
}

// safeRemember lets a step record facts of the past from the snapshot;
// inOrder says every earlier step of the lab passed at this moment. A
// panicking Remember does not take labmate down: the step's memory is
// simply not updated and the learner is told.
func (e *Engine) safeRemember(s checks.Step, snap *observe.Snapshot, inOrder bool) (changed bool) {
	defer func() {
		if r := recover(); r != nil {
			e.problem(content.Msg("engine.check_panic", "err", fmt.Sprint(r)))
			changed = false
		}
	}()
	return s.Remember(snap, &e.witness, inOrder)
}

// saveWitness persists the memory of the past after it changed.
func (e *Engine) saveWitness() {
	if e.cfg.SaveWitness == nil {
		return
	}
	if err := e.cfg.SaveWitness(e.Witness()); err != nil {
		e.problem(content.Msg("engine.witness_save", "err", err))
	}
}

func (e *Engine) problem(msg string) {
	for _, p := range e.problems {
		if p == msg {
			return
		}
	}
	e.problems = append(e.problems, msg)
}

// Evaluate runs every step's checks against the current snapshot, in
// the lab's order: each step first remembers what it saw (knowing
// whether every earlier step passed at this moment), then is judged.
func (e *Engine) Evaluate() Report {
	snap := e.store.Snapshot()
	byID := map[string]checks.Step{}
	for _, s := range e.cfg.Steps {
		byID[s.ID] = s
	}
	inOrder, remembered := true, false
	var steps []StepResult
	for _, ls := range e.cfg.Lab.Steps {
		sr := StepResult{Number: ls.Number, ID: ls.ID, Title: ls.Title}
		s, ok := byID[ls.ID]
		if ok && s.Remember != nil && e.safeRemember(s, snap, inOrder) {
			remembered = true
		}
		if ok && s.Eval != nil {
			ev := safeEval(s, checks.Input{Lab: e.cfg.Lab, Snap: snap, Root: e.cfg.Root, Witness: &e.witness})
			sr.Checks, sr.Observed = ev.Checks, ev.Observed
		} else {
			sr.Checks = []checks.Result{{ID: ls.ID, Status: checks.Unknown, Message: content.Msg("engine.no_checks")}}
		}
		sr.Status = checks.Aggregate(sr.Checks)
		inOrder = inOrder && sr.Status == checks.Passed
		steps = append(steps, sr)
	}
	if remembered {
		e.saveWitness()
	}
	e.seq++
	return Report{
		Lab:      e.cfg.Lab.ID,
		Title:    e.cfg.Lab.Title,
		Root:     e.cfg.Root,
		Cluster:  snap.Cluster,
		Problems: append(append([]string(nil), e.problems...), e.missing(snap)...),
		Ready:    e.ready(snap),
		Time:     snap.Time,
		Steps:    steps,
		Seq:      e.seq,
	}
}

// missing words each resource the lab watches that the cluster does not
// serve, with the steps that read its kind.
func (e *Engine) missing(snap *observe.Snapshot) []string {
	var out []string
	for _, m := range snap.Cluster.Missing {
		var steps []int
		for _, s := range e.cfg.Steps {
			if slices.Contains(s.Kinds, m.Kind) {
				steps = append(steps, s.Number)
			}
		}
		key := "engine.kind_missing"
		if len(steps) == 0 {
			key = "engine.kind_missing_unused"
		}
		out = append(out, content.Msg(key, "resource", m.Resource, "kind", m.Kind, "steps", content.StepRange(steps)))
	}
	return out
}

// safeEval turns a panicking check into an error result instead of taking
// labmate down.
func safeEval(s checks.Step, in checks.Input) (ev checks.StepEval) {
	defer func() {
		if r := recover(); r != nil {
			ev = checks.StepEval{Checks: []checks.Result{{
				ID:      s.ID + ".internal",
				Status:  checks.Error,
				Message: content.Msg("engine.check_panic", "err", fmt.Sprint(r)),
			}}}
		}
	}()
	return s.Eval(in)
}

func (e *Engine) ready(snap *observe.Snapshot) bool {
	for _, name := range e.sources {
		if !snap.Synced[name] {
			return false
		}
	}
	return true
}

// Reactor is a source that also reacts to file observations (the script
// prober runs a script when its content changes).
type Reactor interface {
	observe.Source
	Offer(f observe.FileObs)
}

// Start runs the engine over sources in a goroutine it owns and returns
// its reports: one after every burst of observations that changed what a
// learner sees, only the newest kept when the reader is slow. stop ends
// the engine (as does ctx) and returns once its goroutine is gone, so a
// caller may close what the sources and the tap write to. It is the one
// way to run an engine, and package labrun the one caller.
func (e *Engine) Start(ctx context.Context, sources []observe.Source) (reports <-chan Report, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	out := make(chan Report, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.run(ctx, sources, out, realClock{})
	}()
	var once sync.Once
	return out, func() { once.Do(func() { cancel(); <-done }) }
}

// clock is time for the engine loop; tests drive a fake one.
type clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) (c <-chan time.Time, stop func())
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) After(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// run applies what the sources observe and publishes through the settle
// gate (settle.go) until ctx is done.
func (e *Engine) run(ctx context.Context, sources []observe.Source, out chan Report, clk clock) {
	in := make(chan observe.Observation, 256)
	errs := make(chan sourceErr, len(sources))
	var reactors []Reactor
	e.sources = e.sources[:0]
	for _, src := range sources {
		e.sources = append(e.sources, src.Name())
		if r, ok := src.(Reactor); ok {
			reactors = append(reactors, r)
		}
		go runSource(ctx, src, in, errs)
	}

	gate := newSettleGate(e.cfg.Settle, e.cfg.MaxHold, e.stepFiles())
	var (
		wakeC    <-chan time.Time
		stopWake = func() {}
	)
	publish := func() {
		defer e.recoverInto("publish")
		rep, wake := gate.view(e.Evaluate(), clk.Now())
		if gate.published == nil || !sameResults(gate.published, &rep) {
			gate.shown(rep)
			latest.Send(ctx, out, rep)
		}
		// Armed after the send, so whoever sees the timer armed also sees
		// what this evaluation published.
		stopWake()
		wakeC, stopWake = nil, func() {}
		if !wake.IsZero() {
			wakeC, stopWake = clk.After(wake.Sub(clk.Now()))
		}
	}
	defer func() { stopWake() }()
	publish()
	for {
		select {
		case <-ctx.Done():
			return
		case se := <-errs:
			e.problem(content.Msg("engine.source_failed", "source", se.name, "err", se.err))
			// A failed source never syncs; do not keep callers waiting on it.
			e.Apply(observe.Observation{Time: time.Now(), Synced: &observe.SyncedObs{Source: se.name}})
			publish()
		case <-wakeC:
			// The held files have been quiet for the settle window: show
			// what they now say. The file source re-read them when they
			// went quiet; a change it found arrived as an observation.
			publish()
		case o := <-in:
			e.apply(o, reactors, gate, clk)
			// Coalesce whatever else is already queued into one evaluation.
		drain:
			for {
				select {
				case o := <-in:
					e.apply(o, reactors, gate, clk)
				default:
					break drain
				}
			}
			publish()
		}
	}
}

// stepFiles maps each lab step number to the files its checks read.
func (e *Engine) stepFiles() map[int][]string {
	byID := map[string][]string{}
	for _, s := range e.cfg.Steps {
		byID[s.ID] = s.Files
	}
	out := map[int][]string{}
	for _, ls := range e.cfg.Lab.Steps {
		out[ls.Number] = byID[ls.ID]
	}
	return out
}

func (e *Engine) apply(o observe.Observation, reactors []Reactor, gate *settleGate, clk clock) {
	defer e.recoverInto("apply")
	e.Apply(o)
	if o.File != nil {
		gate.fileChanged(o.File.Path, clk.Now())
		for _, r := range reactors {
			r.Offer(*o.File)
		}
	}
}

// recoverInto turns a panic in the engine loop into a problem shown to
// the learner, so the loop (and with it the TUI's updates) keeps running.
func (e *Engine) recoverInto(where string) {
	if r := recover(); r != nil {
		e.problem(content.Msg("engine.loop_panic", "where", where, "err", fmt.Sprint(r)))
	}
}

type sourceErr struct {
	name string
	err  error
}

func runSource(ctx context.Context, src observe.Source, out chan<- observe.Observation, errs chan<- sourceErr) {
	defer func() {
		if r := recover(); r != nil {
			errs <- sourceErr{src.Name(), fmt.Errorf("panic: %v\n%s", r, debug.Stack())}
		}
	}()
	if err := src.Run(ctx, out); err != nil && ctx.Err() == nil {
		errs <- sourceErr{src.Name(), err}
	}
}

// sameResults reports whether two reports would look the same to a
// learner (ignoring sequence numbers and times).
func sameResults(a, b *Report) bool {
	return a.Ready == b.Ready && reflect.DeepEqual(a.Cluster, b.Cluster) &&
		reflect.DeepEqual(a.Steps, b.Steps) && reflect.DeepEqual(a.Problems, b.Problems)
}
