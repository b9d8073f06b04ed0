// Package labrun is one run of a lab: the sources that observe it (the
// learner's files, the scripts a step runs, the lab cluster, or a
// recorded trace), the engine that judges what they saw, and the stream
// of reports with each step's status changes, computed once. A run also
// keeps the learner's progress (facts witnessed, first passes), records
// a trace when asked, and hands every report to its taps (the class
// publisher). `check`, `check --watch`, `replay`, the TUI and `lab
// verify` consume runs; none of them folds reports or compares step
// statuses itself.
package labrun

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/cluster"
	"github.com/labhub/labmate/observe/files"
	"github.com/labhub/labmate/state"
	"github.com/labhub/labmate/trace"
)

// Options configure a live run.
type Options struct {
	Lab   *content.Lab
	Steps []checks.Step
	// Root is the absolute lab root the sources read. Shown is the root
	// reports and a recorded trace name (Root when empty): a proof's
	// recording names the lab's default root, the path the step texts
	// show, while its files live in a temporary directory.
	Root  string
	Shown string
	// Poll reads the lab's files on a timer instead of file events.
	Poll bool
	// Cluster is the lab cluster as the command line chose it; Scope is
	// what the run watches there (labkit.Lab.Scope; empty: no cluster
	// source). Lenient takes a kubeconfig that cannot be used as a
	// warning, the file steps working on (the TUI), not as an error
	// (scripts).
	Cluster kube.Target
	Scope   cluster.Scope
	Lenient bool
	// Progress, if set, keeps what the run witnessed and the first time
	// each step passed; Witness is the memory to start from, Passed the
	// steps that passed in earlier runs (not first passes now).
	Progress *state.Store
	Witness  checks.Witness
	Passed   []int
	// Remembered, if set, is handed a copy of the run's memory of the
	// past each time it changed (after Progress keeps it), on the
	// engine's goroutine: it must not block. lab verify keeps the memory
	// a near-miss's baseline had, to start the next trial from it.
	Remembered func(checks.Witness)
	// Notices are Korean messages the caller found while setting up (a
	// damaged state file, ...); Warnings returns them with the run's own.
	Notices []string
	// Sources are observed besides the lab's own (a test's).
	Sources []observe.Source
}

// Run is one run of a lab. Start it once; Stop ends it.
type Run struct {
	lab       *content.Lab
	shown     string
	engine    *engine.Engine
	sources   []observe.Source
	files     *files.Source
	replay    *trace.Replay
	progress  *state.Store
	passed    Passed
	taps      []func(Update)
	observers []func(observe.Observation)
	warnings  []string

	rec *trace.Recorder

	mu      sync.Mutex
	started bool
	stop    func()
}

// New wires a live run: the file source on the steps' files, the script
// prober when a step runs a script, and the cluster source the lab's
// scope asks for. An error is a kubeconfig that cannot be used (unless
// Lenient), worded in Korean.
func New(o Options) (*Run, error) {
	shown := o.Shown
	if shown == "" {
		shown = o.Root
	}
	r := &Run{lab: o.Lab, shown: shown, progress: o.Progress, passed: Passed{}, warnings: append([]string(nil), o.Notices...)}
	for _, n := range o.Passed {
		r.passed[n] = true
	}
	// The lab's start files, before the sources read the root.
	if made, err := LayOut(o.Lab, o.Root); err != nil {
		r.warnings = append(r.warnings, content.Msg("cli.start_failed", "root", shown, "err", err))
	} else if len(made) > 0 {
		r.warnings = append(r.warnings, content.Msg("cli.start_made", "root", shown, "files", strings.Join(made, ", ")))
	}
	cfg := engine.Config{Lab: o.Lab, Steps: o.Steps, Root: shown, Witness: o.Witness}
	if o.Progress != nil || o.Remembered != nil {
		store, seen := o.Progress, o.Remembered
		cfg.SaveWitness = func(w checks.Witness) error {
			var err error
			if store != nil {
				err = store.Update(func(f *state.File) { f.Witness = w })
			}
			if seen != nil {
				seen(w)
			}
			return err
		}
	}
	r.engine = engine.New(cfg)
	if err := r.addSources(o); err != nil {
		return nil, err
	}
	r.sources = append(r.sources, o.Sources...)
	return r, nil
}

// Record writes every observation of the run to a new trace file at
// path, its header naming labmate's version; Stop closes it. Call it
// before Start.
func (r *Run) Record(path, labmate string) error {
	rec, err := trace.Create(path, trace.Header{Lab: r.lab.ID, Root: r.shown, Labmate: labmate})
	if err != nil {
		return &RecordError{Path: path, Err: err}
	}
	r.rec = rec
	r.Observe(rec.Record)
	return nil
}

// Observe adds a function that sees every observation the engine
// applies, in order (the recorder; lab verify keeping what it saw to
// judge near-misses on). It runs on the engine's goroutine and must not
// block. Call it before Start.
func (r *Run) Observe(fn func(observe.Observation)) {
	r.observers = append(r.observers, fn)
	obs := r.observers
	r.engine.SetTap(func(o observe.Observation) {
		for _, f := range obs {
			f(o)
		}
	})
}

// Tap adds a function that sees every report the engine publishes, in
// order, before the reader does, with the changes since the report
// before (the class publisher, a proof noting its messages). It runs on
// the run's goroutine and must not block; a panic in it is dropped.
// Call it before Start.
func (r *Run) Tap(fn func(Update)) { r.taps = append(r.taps, fn) }

// Replay wires a run over a recorded trace: nothing of it touches the
// learner's files, state or cluster (its memory of the past is kept in
// memory only).
func Replay(lab *content.Lab, steps []checks.Step, t *trace.Trace, o trace.ReplayOptions) *Run {
	rp := trace.ReplaySource(t, o)
	return &Run{
		lab:     lab,
		shown:   t.Header.Root,
		engine:  engine.New(engine.Config{Lab: lab, Steps: steps, Root: t.Header.Root}),
		sources: []observe.Source{rp},
		replay:  rp,
		passed:  Passed{},
	}
}

// RecordError is a trace that could not be created.
type RecordError struct {
	Path string
	Err  error
}

func (e *RecordError) Error() string {
	return content.Msg("cli.record_open", "path", e.Path, "err", e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// Warnings are Korean messages to show but not fail on: the caller's
// notices, then the run's own (files polled, a cluster that cannot be
// reached as configured).
func (r *Run) Warnings() []string { return append([]string(nil), r.warnings...) }

// Notice adds a Korean notice for the learner: said among the problems
// of the run's first answer (Stream.First) when added before Start, and
// in Warnings either way.
func (r *Run) Notice(msg string) { r.warnings = append(r.warnings, msg) }

// Rescan asks the file source to read every file again now (the TUI's
// "check again" key); nil when the run has no file source.
func (r *Run) Rescan() func() {
	if r.files == nil {
		return nil
	}
	return r.files.Rescan
}

// Trace is the replay a run over a trace plays (nil for a live run): the
// TUI binds its pause, speed and jump keys to it.
func (r *Run) Trace() *trace.Replay { return r.replay }

// Start runs the engine over the sources and returns the stream of its
// updates. A run starts once; a second Start panics (it is a bug).
func (r *Run) Start(ctx context.Context) *Stream {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		panic("labrun: a run started twice")
	}
	r.started = true
	ctx, cancel := context.WithCancel(ctx)
	reports, stopEngine := r.engine.Start(ctx, r.sources)
	st := &Stream{ch: make(chan Update, 1), notices: r.Warnings()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.forward(ctx, reports, &pump{out: st.ch})
	}()
	r.stop = sync.OnceFunc(func() { cancel(); stopEngine(); <-done })
	return st
}

// forward runs the taps on every report, keeps the learner's progress
// and hands the report on.
func (r *Run) forward(ctx context.Context, reports <-chan engine.Report, p *pump) {
	var (
		saveErr string
		tapped  *engine.Report
	)
	if r.passed == nil {
		r.passed = Passed{}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case rep := <-reports:
			// A failed save is a problem until a save succeeds.
			switch saved, err := r.recordPasses(rep); {
			case err != nil:
				saveErr = content.Msg("ops.watch.progress_failed", "err", err)
			case saved:
				saveErr = ""
			}
			if saveErr != "" {
				rep.Problems = append(rep.Problems, saveErr)
			}
			first := r.passed.First(&rep)
			u := Next(tapped, rep)
			u.FirstPassed = first
			for _, tap := range r.taps {
				safeTap(tap, u)
			}
			tapped = &u.Report
			p.send(ctx, rep, first)
		}
	}
}

// safeTap keeps a panicking tap from stopping the reports.
func safeTap(tap func(Update), u Update) {
	defer func() { _ = recover() }()
	tap(u)
}

// recordPasses keeps the first time each step was seen passing, once
// every source delivered its initial state, so `labmate report` has a
// timeline whichever command the learner used. saved is whether the
// state now holds them (a save was tried and did not fail).
func (r *Run) recordPasses(rep engine.Report) (saved bool, err error) {
	if r.progress == nil {
		return false, nil
	}
	var evs []state.Event
	for _, n := range Passes(&rep) {
		evs = append(evs, state.Event{Kind: state.StepPassed, Step: n, At: rep.Time})
	}
	if len(evs) == 0 {
		return false, nil
	}
	if err := r.progress.Record(evs...); err != nil {
		return false, err
	}
	return true, nil
}

// Stop ends the run, waits for its goroutines, and closes the trace it
// recorded, returning the first error writing it. It may be called more
// than once (only the first call reports the trace's error) and before
// Start.
func (r *Run) Stop() error {
	r.halt()
	r.mu.Lock()
	rec := r.rec
	r.rec = nil
	r.mu.Unlock()
	if rec == nil {
		return nil
	}
	werr := rec.Err()
	if cerr := rec.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// halt stops the engine and the run's goroutines and waits for them.
func (r *Run) halt() {
	r.mu.Lock()
	stop := r.stop
	r.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Once starts the run, waits until every source delivered its initial
// state (or timeout passes) and returns that report (Stream.First):
// `labmate check`. The run is halted when Once returns; Stop still
// closes a trace it recorded.
func (r *Run) Once(ctx context.Context, timeout time.Duration) engine.Report {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	st := r.Start(ctx)
	defer r.halt()
	rep, _ := st.First(ctx, timeout)
	return rep
}
