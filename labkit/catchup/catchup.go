// Package catchup brings a learner's lab to "steps 1..N-1 done the
// reference way" (`labmate catch-up --to N`): the one place labmate writes
// to the learner's files and cluster, on the learner's explicit command.
//
// New evaluates the learner's lab as it is (their own live run) and plans,
// changing nothing: a step whose answer already passes is left alone;
// every other step before N gets its reference solution, the same action
// `labmate lab verify` replays (labkit/action). Plan.Write says what will
// be written, kept and run; Plan.Do does it: first the learner's versions
// of every file the plan replaces are copied into a dated backup folder
// beside them (never overwritten, never deleted), then step by step the
// reference is written and its commands run, each step waited for until
// it passes. Commands reach only the sandbox labmate made for this lab
// (sandbox.Identify); on any other cluster New refuses and nothing
// changes. Progress records the steps as caught up, never as passed.
package catchup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/action"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/state"
)

// Options is what a catch-up works on.
type Options struct {
	Kit *labkit.Lab
	// Root is the learner's absolute lab root.
	Root string
	// Run is the learner's live run over Root, not started: catch-up
	// starts it, judges by its reports and stops it on Close.
	Run *labrun.Run
	// Cluster is the lab cluster as the command line chose it: its
	// connection, or why there is none.
	Cluster kube.Target
	// Progress records the steps caught up (nil records nothing).
	Progress *state.Store
	// To is the step to catch up to: steps 1..To-1 are brought to the
	// reference.
	To int
	// BinDir holds the sandbox's kubectl ("" the sandbox's default).
	BinDir string
	// Timeout bounds the first answer and each step's wait to pass
	// after its action (default the lab's verify timeout_seconds, or
	// 60 s).
	Timeout time.Duration
	// Now is the clock that dates the backup folder and the records.
	Now func() time.Time
	// CaughtUp, if set, hears each step caught up once it passes (a
	// class's publisher tells the board: the learner's record was seeded
	// with the earlier catch-ups when the session started).
	CaughtUp func(step int)
}

// Step is what the plan does with one step before To.
type Step struct {
	Number int
	Title  string
	// Keep: the learner's answer passes now; the step is left alone.
	Keep bool
	// Status is the step's status when the plan was made.
	Status checks.Status
	// Write and Remove are the lab-relative paths the reference writes
	// or removes; Script says it runs the reference's commands (on the
	// sandbox when the step reads the cluster or the lab has one).
	Write, Remove []string
	Script        bool
	// Backup are the learner's files of Write and Remove (and, when the
	// step runs commands, of the files it reads: they may write them)
	// that exist now, copied into the backup folder before anything
	// changes.
	Backup []string
}

// Plan is a catch-up worked out and not yet done.
type Plan struct {
	To    int
	Steps []Step
	// Backup is the dated folder the learner's files go to (under the
	// root); made only by Do, and only when there is something to keep.
	Backup string
	// Sandbox is the context of the sandbox the commands run on ("" when
	// the plan touches no cluster).
	Sandbox string

	o       Options
	text    *content.Lab
	st      *labrun.Stream
	tmp     string
	doer    action.Doer
	solves  map[int]content.Action
	timeout time.Duration
	// caught are the steps Do brought to the reference, when each was
	// marked caught up.
	caught map[int]time.Time
}

// Refusal is a catch-up that cannot be done, said in Korean; nothing was
// changed.
type Refusal struct{ Msg string }

func (r *Refusal) Error() string { return r.Msg }

func refuse(key string, kv ...any) error { return &Refusal{content.Msg(key, kv...)} }

// New evaluates the learner's lab and plans the catch-up to o.To. It
// changes nothing of the learner's. Close the plan when done with it.
func New(ctx context.Context, o Options) (p *Plan, err error) {
	text := o.Kit.Text
	n := len(o.Kit.Steps)
	if o.To < 2 || o.To > n {
		return nil, refuse("catchup.bad_to", "to", o.To, "max", n)
	}
	solves := map[int]content.Action{}
	for _, vs := range text.Verify.Steps {
		for _, st := range text.Steps {
			if st.ID == vs.ID {
				solves[st.Number] = vs.Solve
			}
		}
	}
	for i := 1; i < o.To; i++ {
		if _, ok := solves[i]; !ok {
			return nil, refuse("catchup.no_reference", "step", i, "title", text.Steps[i-1].Title)
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = time.Duration(text.Verify.TimeoutSeconds) * time.Second
	}
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	p = &Plan{To: o.To, o: o, text: text, solves: solves, timeout: timeout}
	defer func() {
		if err != nil {
			p.Close()
			p = nil
		}
	}()

	p.st = o.Run.Start(ctx)
	rep, ok := p.st.First(ctx, timeout)
	if !ok {
		return p, refuse("catchup.not_ready", "timeout", timeout)
	}
	needCluster, err := p.plan(rep)
	if err != nil {
		return p, err
	}
	if p.tmp, err = os.MkdirTemp("", "labmate-catch-up-"); err != nil {
		return p, refuse("catchup.tmp", "err", err)
	}
	answers := filepath.Join(p.tmp, "answers")
	if err := action.Extract(text.FS, text.Answers, answers); err != nil {
		return p, refuse("verify.answers", "dir", text.Answers, "err", err)
	}
	binDir := o.BinDir
	if binDir == "" {
		binDir = sandbox.Options{}.ResolvedBinDir()
	}
	p.doer = action.Doer{Root: o.Root, Answers: answers, Kubeconfig: filepath.Join(p.tmp, "kubeconfig"), BinDir: binDir, Timeout: 3 * timeout}
	if needCluster {
		if err := p.claim(ctx); err != nil {
			return p, err
		}
	} else if err := os.WriteFile(p.doer.Kubeconfig, []byte(action.NoClusterKubeconfig), 0o600); err != nil {
		return p, refuse("catchup.tmp", "err", err)
	}
	if p.keeps() > 0 {
		p.Backup = filepath.Join(o.Root, "labmate-backup-"+o.Now().Format("20060102-150405"))
	}
	return p, nil
}

// plan decides each step before To from the learner's report: a step
// that passes is kept; another gets its reference written and run, and
// the learner's files it may change are backed up. needCluster: some
// step's reference runs commands or reads the cluster.
func (p *Plan) plan(rep engine.Report) (needCluster bool, err error) {
	for i := 1; i < p.o.To; i++ {
		s := Step{Number: i, Title: p.text.Steps[i-1].Title, Status: checks.Unknown}
		if sr := rep.Step(i); sr != nil {
			s.Status = sr.Status
		}
		if s.Keep = s.Status == checks.Passed; !s.Keep {
			a := p.solves[i]
			s.Remove = cleanAll(a.Remove)
			for _, path := range action.Paths(a) {
				if !slices.Contains(s.Remove, path) {
					s.Write = append(s.Write, path)
				}
			}
			s.Script = strings.TrimSpace(a.Run) != ""
			needCluster = needCluster || s.Script || p.o.Kit.ReadsCluster(i)
			keep := action.Paths(a)
			if s.Script {
				// Its commands may write any file the step reads.
				keep = append(keep, cleanAll(p.o.Kit.Steps[i-1].Files)...)
			}
			var err error
			if s.Backup, err = existing(p.o.Root, keep); err != nil {
				return false, err
			}
		}
		p.Steps = append(p.Steps, s)
	}
	return needCluster, nil
}

// claim accepts the lab cluster only when it is a labmate sandbox made
// for this lab (or for none), and writes the kubeconfig of its one
// context the reference's kubectl uses.
func (p *Plan) claim(ctx context.Context) error {
	conn := p.o.Cluster.Conn
	if conn == nil {
		return refuse("catchup.no_sandbox", "err", p.o.Cluster.Why(), "lab", p.text.ID)
	}
	have, err := sandbox.Identify(ctx, conn)
	switch {
	case errors.Is(err, sandbox.ErrNotSandbox):
		return refuse("catchup.not_sandbox", "server", conn.Host(), "context", conn.Origin().Context, "lab", p.text.ID)
	case err != nil:
		return refuse("catchup.unreachable", "server", conn.Host(), "context", conn.Origin().Context, "err", kube.Explain(err))
	case have != "" && have != p.text.ID:
		return refuse("catchup.other_lab", "context", conn.Origin().Context, "have", have, "lab", p.text.ID)
	}
	if err := conn.WriteKubeconfig(p.doer.Kubeconfig); err != nil {
		return refuse("catchup.no_sandbox", "err", kube.Explain(err), "lab", p.text.ID)
	}
	p.Sandbox = conn.Origin().Context
	return nil
}

// keeps is how many of the learner's files the plan backs up (a file
// two steps touch is kept once).
func (p *Plan) keeps() int {
	kept := map[string]bool{}
	for _, s := range p.Steps {
		if !s.Keep {
			for _, f := range s.Backup {
				kept[f] = true
			}
		}
	}
	return len(kept)
}

// Empty says there is nothing to do: every step before To passes.
func (p *Plan) Empty() bool {
	for _, s := range p.Steps {
		if !s.Keep {
			return false
		}
	}
	return true
}

// Write says the plan in Korean (Lines, a line each).
func (p *Plan) Write(w io.Writer) {
	for _, l := range p.Lines() {
		fmt.Fprintln(w, l)
	}
}

// Lines are the plan in Korean, a line each: per step, left alone or
// what is written, removed, kept and run, and where the backup goes. A
// line's leading spaces nest it under the line before: `labmate
// catch-up` prints them, the TUI's catch-up key wraps each to its pane.
func (p *Plan) Lines() []string {
	out := []string{content.Msg("catchup.plan.head", "to", p.To, "root", p.o.Root)}
	for _, s := range p.Steps {
		if s.Keep {
			out = append(out, content.Msg("catchup.plan.keep", "step", s.Number, "title", s.Title))
			continue
		}
		out = append(out, content.Msg("catchup.plan.step", "step", s.Number, "title", s.Title, "status", content.Msg("status."+string(s.Status))))
		for _, f := range s.Write {
			out = append(out, content.Msg("catchup.plan.write", "path", f))
		}
		for _, f := range s.Remove {
			out = append(out, content.Msg("catchup.plan.remove", "path", f))
		}
		if s.Script {
			out = append(out, content.Msg("catchup.plan.script", "context", p.Sandbox))
		}
	}
	if p.Backup != "" {
		out = append(out, content.Msg("catchup.plan.backup", "n", p.keeps(), "dir", p.Backup))
	}
	return append(out, content.Msg("catchup.plan.progress"))
}

// Result says in Korean how the catch-up ended once Do returned nil:
// nothing to do, or caught up (and where the learner's files are).
func (p *Plan) Result() string {
	switch {
	case p.Empty():
		return content.Msg("catchup.nothing", "to", p.To)
	case p.Backup != "":
		return content.Msg("catchup.done", "to", p.To, "dir", p.Backup)
	}
	return content.Msg("catchup.done_no_backup", "to", p.To)
}

// Do carries the plan out: the backup first, then each step not kept, in
// order, its reference written and its commands run, until it passes.
// It stops at the first step that does not pass in time (Korean error);
// what it wrote stays, and the backup with it.
func (p *Plan) Do(ctx context.Context, progress io.Writer) error {
	if p.Empty() {
		return nil
	}
	planned, err := p.backUp()
	if err != nil {
		return err
	}
	d := p.doer
	d.Touch = func(rel string) error {
		if !planned[rel] {
			return errors.New(content.Msg("catchup.unplanned", "path", rel))
		}
		return nil
	}
	for _, s := range p.Steps {
		if s.Keep {
			continue
		}
		fmt.Fprintln(progress, content.Msg("catchup.progress.step", "step", s.Number, "title", s.Title))
		// Marked before the reference can pass: the learner's own run
		// must not record it as their pass in between.
		at := p.o.Now()
		marked, err := p.mark(s.Number, at)
		if err != nil {
			return err
		}
		if err := p.step(ctx, d, s); err != nil {
			if marked {
				p.unmark(s.Number)
			}
			return err
		}
		if p.caught == nil {
			p.caught = map[int]time.Time{}
		}
		p.caught[s.Number] = at
		if p.o.CaughtUp != nil {
			p.o.CaughtUp(s.Number)
		}
		fmt.Fprintln(progress, content.Msg("catchup.progress.done", "step", s.Number))
	}
	return nil
}

// CaughtUp are the steps Do brought to the reference so far (all of
// them once it returned nil, those before the step it stopped at
// otherwise), each with the time it was recorded caught up: a caller
// that shows the learner's run tells them from the learner's passes.
func (p *Plan) CaughtUp() map[int]time.Time { return maps.Clone(p.caught) }

// step does one step's reference and waits until it passes.
func (p *Plan) step(ctx context.Context, d action.Doer, s Step) error {
	out, err := d.Do(ctx, p.solves[s.Number])
	if err != nil {
		return refuse("catchup.action_failed", "step", s.Number, "err", err, "out", action.Tail(out))
	}
	rep, ok := p.st.Until(ctx, p.timeout, 300*time.Millisecond, func(r engine.Report) bool {
		st := r.Step(s.Number)
		return st != nil && st.Status == checks.Passed
	})
	if !ok {
		why := ""
		if st := rep.Step(s.Number); st != nil {
			if f := st.FirstFailing(); f != nil {
				why = f.Message
			}
		}
		return refuse("catchup.not_passed", "step", s.Number, "timeout", p.timeout, "why", why)
	}
	return nil
}

// mark records step n as caught up; marked is whether this call did.
func (p *Plan) mark(n int, at time.Time) (marked bool, err error) {
	if p.o.Progress == nil {
		return false, nil
	}
	f, err := p.o.Progress.Load()
	if err != nil {
		return false, refuse("catchup.progress_failed", "err", err)
	}
	if f.Progress.IsCaughtUp(n) {
		return false, nil
	}
	if err := p.o.Progress.Record(state.Event{Kind: state.CaughtUp, Step: n, At: at}); err != nil {
		return false, refuse("catchup.progress_failed", "err", err)
	}
	return true, nil
}

// unmark forgets a catch-up mark this catch-up made for a step that did
// not pass.
func (p *Plan) unmark(n int) {
	_ = p.o.Progress.Update(func(f *state.File) { delete(f.Progress.CaughtUpAt, n) })
}

// Close stops the learner's run and removes the catch-up's scratch files
// (never the backup).
func (p *Plan) Close() {
	if p == nil {
		return
	}
	if p.o.Run != nil {
		_ = p.o.Run.Stop()
	}
	if p.tmp != "" {
		_ = os.RemoveAll(p.tmp)
	}
}

func cleanAll(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if c := action.Clean(p); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
