// Package verify is `labmate lab verify`: a lab's author's proof that the
// lab is right, in one run against the real sources and checks. For every
// step: the starting state does not pass; each declared wrong answer (a
// near miss) fails with the message it must produce; the reference
// solution passes; earlier steps stay green while later ones are done and
// later ones do not pass early. And for the lab as a whole: it compiles,
// every message key a check asked for exists, no message leaves a
// placeholder unfilled, every page renders within the pane.
//
// File answers are written into a temporary lab root; cluster actions
// (shell scripts, with kubectl) run against a labmate sandbox only: a
// cluster that sandbox.Identify does not recognise is refused, so labmate
// still never writes to a learner's cluster.
package verify

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/kubeconfig"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/files"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/trace"
	"github.com/labhub/labmate/tui"
)

// Options configure a proof.
type Options struct {
	Lab *labkit.Lab
	// Kubeconfig and Context choose the sandbox the way kubectl would
	// (the sandbox's own kubeconfig when nothing else is found).
	Kubeconfig, Context string
	// NoCluster verifies the file steps only; the cluster steps are
	// reported as not verified.
	NoCluster bool
	// BinDir holds the sandbox's kubectl, first on the scripts' PATH.
	BinDir string
	// Record writes the reference run (solutions only, no wrong
	// answers) to this trace file, kept only if it replays to every step
	// passing in order; Pace is the pause after each step passes.
	Record  string
	Pace    time.Duration
	Labmate string // labmate's version, for the trace header
	// Timeout bounds the wait for each case's verdict (the lab's
	// verify.toml may say; 60 s when neither does).
	Timeout time.Duration
	// Width is the pane width pages must fit (60).
	Width int
	// Progress receives one Korean line per case as it is decided.
	Progress io.Writer
}

// Row is one line of the proof's table.
type Row struct {
	Step     int    // 0 for the lab as a whole
	Case     string // "시작", "참고 풀이", "오답 <case>", ...
	Expected string
	Seen     string
	OK       bool
	Skipped  bool // not verified (a cluster step with --no-cluster)
	Took     time.Duration
}

// Result is a whole proof.
type Result struct {
	Lab  string
	Rows []Row
}

// OK reports whether every case held. A case skipped on request (a
// cluster step with --no-cluster) is reported, not failed.
func (r Result) OK() bool {
	for _, row := range r.Rows {
		if !row.OK && !row.Skipped {
			return false
		}
	}
	return len(r.Rows) > 0
}

// Failed returns the rows that did not hold.
func (r Result) Failed() []Row {
	var out []Row
	for _, row := range r.Rows {
		if !row.OK && !row.Skipped {
			out = append(out, row)
		}
	}
	return out
}

// EnvError is a proof that could not start (no sandbox, not a sandbox,
// a lab without verify data): exit code 2, not 1.
type EnvError struct{ Msg string }

func (e *EnvError) Error() string { return e.Msg }

func msg(key string, kv ...any) string { return content.Msg(key, kv...) }

// Run proves the lab and returns every case with its verdict. An error is
// an *EnvError: the proof could not run at all.
func Run(ctx context.Context, o Options) (Result, error) {
	text := o.Lab.Text
	res := Result{Lab: text.ID}
	if o.Width <= 0 {
		o.Width = 60
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
		if text.Verify != nil && text.Verify.TimeoutSeconds > 0 {
			o.Timeout = time.Duration(text.Verify.TimeoutSeconds) * time.Second
		}
	}
	if text.Verify == nil {
		return res, &EnvError{msg("verify.no_data", "lab", text.ID, "where", text.Where)}
	}
	res.Rows = append(res.Rows, staticRows(o.Lab, o.Width)...)
	if !res.Rows[0].OK { // the compile row
		// A lab that does not compile proves nothing by running: say what
		// to fix first, at once.
		return res, nil
	}

	p := &prover{o: o, text: text, kit: o.Lab}
	// Whatever prepare made (the temp dir with its flattened kubeconfig,
	// a half-written recording) goes, also when it fails.
	defer p.cleanup()
	if err := p.prepare(ctx); err != nil {
		return res, err
	}
	rows, err := p.prove(ctx)
	res.Rows = append(res.Rows, rows...)
	if err != nil {
		return res, err
	}
	_ = p.run.Stop()
	res.Rows = append(res.Rows, p.textRows()...)
	return res, nil
}

// staticRows are the lab-wide checks that need no run: the lab compiles
// (every authoring problem a failing row), and every page renders within
// the pane with no placeholder left.
func staticRows(kit *labkit.Lab, width int) []Row {
	var rows []Row
	for _, p := range kit.Problems {
		rows = append(rows, Row{Case: msg("verify.case.compile"), Expected: msg("verify.expect.compiles"), Seen: p.Error()})
	}
	// The sandbox topology is read only by sandbox up and the proof's
	// reset: a quantity or taint that cannot be read is an authoring
	// error too, found here rather than on a learner's machine.
	_, topoErr := sandbox.NodesOf(kit.Text)
	if topoErr != nil {
		rows = append(rows, Row{Case: msg("verify.case.compile"), Expected: msg("verify.expect.compiles"), Seen: topoErr.Error()})
	}
	if _, err := sandbox.ManifestsOf(kit.Text); err != nil {
		rows = append(rows, Row{Case: msg("verify.case.compile"), Expected: msg("verify.expect.compiles"), Seen: err.Error()})
	}
	if len(kit.Problems) == 0 && topoErr == nil {
		rows = append(rows, Row{Case: msg("verify.case.compile"), Expected: msg("verify.expect.compiles"), Seen: msg("verify.seen.compiles"), OK: true})
	}
	text := kit.Text
	pages := []struct {
		name string
		md   string
	}{{msg("verify.page.intro"), text.Intro}}
	for _, s := range text.Steps {
		pages = append(pages, struct {
			name string
			md   string
		}{msg("verify.page.step", "n", s.Number), s.Body}, struct {
			name string
			md   string
		}{msg("verify.page.solution", "n", s.Number), s.Solution})
		for i, h := range s.Hints {
			pages = append(pages, struct {
				name string
				md   string
			}{msg("verify.page.hint", "n", s.Number, "i", i+1), h})
		}
	}
	var bad []string
	for _, pg := range pages {
		md := content.Expand(pg.md, text.DefaultRoot)
		if m := leftoverPage().FindString(md); m != "" {
			bad = append(bad, msg("verify.seen.page_placeholder", "page", pg.name, "placeholder", m))
		}
		for _, prob := range tui.PageProblems(md, width) {
			bad = append(bad, msg("verify.seen.page_wide", "page", pg.name, "problem", prob))
		}
	}
	row := Row{Case: msg("verify.case.pages"), Expected: msg("verify.expect.pages", "width", width), Seen: msg("verify.seen.pages", "n", len(pages)), OK: len(bad) == 0}
	if len(bad) > 0 {
		row.Seen = strings.Join(bad, "; ")
	}
	return append(rows, row)
}

// leftoverPage is a page placeholder content.Expand did not fill.
var leftoverPage = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{[A-Za-z_]+\}\}`) })

// leftoverMsg is a message placeholder nothing filled.
var leftoverMsg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[a-z_]+\}`) })

// prover is one run of a proof.
type prover struct {
	o    Options
	text *content.Lab
	kit  *labkit.Lab

	root, answers, kubeconfigFile string
	cs                            kubernetes.Interface
	clusterOK                     bool // the proof may touch the sandbox
	tmp                           string

	run     *labrun.Run
	st      *labrun.Stream
	recPath string

	messages map[string]bool // every message seen, for the placeholder check
}

// prepare makes the lab root and the answers on disk, finds the sandbox
// (and refuses anything else), resets it to the lab's topology, and starts
// the engine on the real sources.
func (p *prover) prepare(ctx context.Context) error {
	var err error
	if p.tmp, err = os.MkdirTemp("", "labmate-verify-"); err != nil {
		return &EnvError{msg("verify.tmp", "err", err)}
	}
	p.root, p.answers = filepath.Join(p.tmp, "root"), filepath.Join(p.tmp, "answers")
	if err := extract(p.text.FS, p.text.Answers, p.answers); err != nil {
		return &EnvError{msg("verify.answers", "dir", p.text.Answers, "err", err)}
	}
	if err := os.MkdirAll(p.root, 0o755); err != nil {
		return &EnvError{msg("verify.tmp", "err", err)}
	}
	if p.text.Start != "" {
		if err := extract(p.text.FS, p.text.Start, p.root); err != nil {
			return &EnvError{msg("verify.answers", "dir", p.text.Start, "err", err)}
		}
	}
	needCluster := len(p.kit.ClusterSteps()) > 0
	if needCluster && !p.o.NoCluster {
		if err := p.connect(ctx); err != nil {
			return err
		}
	}
	if !p.clusterOK {
		// File steps may run scripts too: whatever kubectl they call
		// must reach no cluster, not the one the author's shell points at.
		p.kubeconfigFile = filepath.Join(p.tmp, "no-cluster.kubeconfig")
		if err := os.WriteFile(p.kubeconfigFile, []byte(noClusterKubeconfig), 0o600); err != nil {
			return &EnvError{msg("verify.tmp", "err", err)}
		}
	}
	return p.startEngine(ctx)
}

// noClusterKubeconfig names a server under .invalid, a name that never
// resolves (RFC 2606).
const noClusterKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://no-cluster.labmate-verify.invalid"}}]
contexts: [{name: none, context: {cluster: none}}]
current-context: none
`

// connect loads the kubeconfig with labmate's one loader, refuses a
// cluster that is not a labmate sandbox, and resets the sandbox for the
// lab: its namespaces gone, its nodes as its topology says.
func (p *prover) connect(ctx context.Context) error {
	ko := kubeconfig.Options{Path: p.o.Kubeconfig, Context: p.o.Context, Fallback: sandbox.Kubeconfig(sandbox.Options{})}
	loaded, err := kubeconfig.Load(ko)
	if err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", err)}
	}
	have, err := sandbox.Identify(ctx, loaded.Config)
	if err != nil {
		return &EnvError{msg("verify.not_sandbox", "server", loaded.Config.Host, "context", loaded.Context, "err", err)}
	}
	if have != "" && have != p.text.ID {
		// Its objects are a learner's progress on that lab.
		return &EnvError{msg("verify.other_lab", "context", loaded.Context, "have", have, "lab", p.text.ID)}
	}
	p.kubeconfigFile = filepath.Join(p.tmp, "kubeconfig")
	ko.Context = loaded.Context
	if err := kubeconfig.WriteContext(ko, p.kubeconfigFile); err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", err)}
	}
	p.o.Kubeconfig, p.o.Context = p.kubeconfigFile, ""
	cs, err := kubernetes.NewForConfig(loaded.Config)
	if err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", err)}
	}
	p.cs, p.clusterOK = cs, true
	nodes, err := sandbox.NodesOf(p.text)
	if err != nil {
		return &EnvError{err.Error()}
	}
	manifests, err := sandbox.ManifestsOf(p.text)
	if err != nil {
		return &EnvError{err.Error()}
	}
	fmt.Fprintln(p.o.Progress, msg("verify.progress.reset"))
	if err := sandbox.Reset(ctx, cs, sandbox.Start{Lab: p.text.ID, Namespaces: p.text.Cluster.Namespaces, Nodes: nodes, Manifests: manifests}); err != nil {
		return &EnvError{msg("verify.reset_failed", "err", err)}
	}
	if p.text.Verify.Reset != "" {
		if out, err := p.shell(ctx, p.text.Verify.Reset); err != nil {
			return &EnvError{msg("verify.reset_failed", "err", fmt.Sprintf("%v\n%s", err, out))}
		}
	}
	return nil
}

func (p *prover) startEngine(ctx context.Context) error {
	o := labrun.Options{Lab: p.text, Steps: p.kit.Steps, Scope: p.kit.Scope, Root: p.root, Cluster: labrun.Cluster{Mode: labrun.ClusterNone}}
	switch {
	case p.clusterOK:
		o.Cluster = labrun.Cluster{Mode: labrun.ClusterAuto, Kubeconfig: p.kubeconfigFile}
	case len(p.kit.ClusterSteps()) > 0:
		o.Cluster.Mode = labrun.ClusterOff
	}
	if p.o.Record != "" {
		// The trace names the lab's default root, the path a newcomer
		// sees in the step texts; the files really are under root.
		o.Shown = p.text.DefaultRoot
	}
	run, err := labrun.New(o)
	if err != nil {
		return &EnvError{msg("verify.no_sandbox", "err", err)}
	}
	p.run = run
	if p.o.Record != "" {
		p.recPath = p.o.Record + ".partial"
		if err := run.Record(p.recPath, p.o.Labmate); err != nil {
			return &EnvError{msg("verify.record_failed", "path", p.o.Record, "err", err)}
		}
	}
	p.messages = map[string]bool{}
	run.Tap(p.note)
	p.st = run.Start(ctx)
	return nil
}

func (p *prover) cleanup() {
	if p.run != nil {
		_ = p.run.Stop()
	}
	if p.recPath != "" {
		_ = os.Remove(p.recPath)
	}
	if p.tmp != "" {
		_ = os.RemoveAll(p.tmp)
	}
}

// prove runs every step's cases in order.
func (p *prover) prove(ctx context.Context) ([]Row, error) {
	var rows []Row
	started := time.Now()
	ready, ok := p.until(ctx, p.o.Timeout, func(r engine.Report) bool { return r.Ready })
	if !ok {
		return rows, &EnvError{msg("verify.not_ready", "timeout", p.o.Timeout)}
	}
	// (a) Nothing passes at the start.
	for _, st := range ready.Steps {
		rows = append(rows, p.row(Row{Step: st.Number, Case: msg("verify.case.start"), Expected: msg("verify.expect.not_passed"),
			Seen: statusWord(st.Status), OK: st.Status != checks.Passed, Took: time.Since(started)}))
	}
	byID := map[string]content.VerifyStep{}
	for _, vs := range p.text.Verify.Steps {
		byID[vs.ID] = vs
	}
	for _, st := range p.text.Steps {
		vs, has := byID[st.ID]
		if !has {
			rows = append(rows, p.row(Row{Step: st.Number, Case: msg("verify.case.solve"), Expected: msg("verify.expect.data"), Seen: msg("verify.seen.no_data")}))
			continue
		}
		if p.kit.ReadsCluster(st.Number) && !p.clusterOK {
			rows = append(rows, p.row(Row{Step: st.Number, Case: msg("verify.case.solve"), Expected: msg("verify.expect.passed"),
				Seen: msg("verify.seen.skipped"), Skipped: true}))
			continue
		}
		if p.recPath == "" {
			for _, w := range vs.Wrong {
				if !w.After {
					rows = append(rows, p.wrong(ctx, st.Number, w))
				}
			}
		}
		rows = append(rows, p.solve(ctx, st.Number, vs.Solve, msg("verify.case.solve")))
		if p.recPath != "" {
			select { // the recording's pace between steps
			case <-ctx.Done():
				return rows, nil
			case <-time.After(p.o.Pace):
			}
			continue
		}
		// A wrong turn taken after the step passed (deleting what it made),
		// then undone: the step must turn red, then green again.
		for _, w := range vs.Wrong {
			if w.After {
				rows = append(rows, p.wrong(ctx, st.Number, w))
				rows = append(rows, p.solve(ctx, st.Number, content.Action{}, msg("verify.case.undone", "case", w.Case)))
			}
		}
	}
	if p.recPath != "" {
		rows = append(rows, p.finishRecording(ctx))
	}
	return rows, nil
}

func (p *prover) row(r Row) Row {
	fmt.Fprintln(p.o.Progress, msg("verify.progress.row", "mark", r.mark(), "step", r.Step, "case", r.Case, "seen", oneLine(r.Seen)))
	return r
}

// solve applies a step's reference solution and waits until that step and
// every earlier one pass, then checks that no later one passed early.
func (p *prover) solve(ctx context.Context, n int, a content.Action, name string) Row {
	start := time.Now()
	row := Row{Step: n, Case: name, Expected: msg("verify.expect.passed_in_order", "n", n)}
	if out, err := p.apply(ctx, a); err != nil {
		row.Seen = msg("verify.seen.action_failed", "err", err, "out", tail(out))
		return p.row(row)
	}
	rep, ok := p.until(ctx, p.o.Timeout, func(r engine.Report) bool {
		for i := 1; i <= n; i++ {
			if st := r.Step(i); st == nil || st.Status != checks.Passed {
				return false
			}
		}
		return true
	})
	row.Took = time.Since(start)
	if !ok {
		row.Seen = msg("verify.seen.timeout", "timeout", p.o.Timeout, "report", describe(rep, n))
		return p.row(row)
	}
	var early []string
	for _, st := range rep.Steps {
		if st.Number > n && st.Status == checks.Passed {
			early = append(early, fmt.Sprint(st.Number))
		}
	}
	if len(early) > 0 {
		row.Seen = msg("verify.seen.early", "steps", strings.Join(early, ", "))
		return p.row(row)
	}
	row.Seen, row.OK = msg("verify.seen.passed", "took", row.Took), true
	return p.row(row)
}

// wrong applies a near miss and waits until the step shows it refused,
// with the message the lab promised, while earlier steps stay green.
func (p *prover) wrong(ctx context.Context, n int, w content.Wrong) Row {
	start := time.Now()
	status := checks.Status(w.Status)
	if status == "" {
		status = checks.Failed
	}
	want := statusWord(status)
	if len(w.Message) > 0 {
		want += ": " + strings.Join(w.Message, " · ")
	}
	if w.Check != "" {
		want = w.Check + " " + want
	}
	row := Row{Step: n, Case: msg("verify.case.wrong", "case", w.Case), Expected: want}
	defer func() {
		if w.Undo != "" {
			if out, err := p.shell(ctx, w.Undo); err != nil {
				fmt.Fprintln(p.o.Progress, msg("verify.undo_failed", "case", w.Case, "err", err, "out", tail(out)))
			}
		}
	}()
	if out, err := p.apply(ctx, w.Action); err != nil {
		row.Seen = msg("verify.seen.action_failed", "err", err, "out", tail(out))
		return p.row(row)
	}
	var got checks.Result
	// A file-only step that passes the wrong answer has accepted it; a
	// cluster step may pass for a moment while the cluster converges.
	fileOnly := !p.kit.ReadsCluster(n)
	rep, ok := p.until(ctx, p.o.Timeout, func(r engine.Report) bool {
		st := r.Step(n)
		if st != nil && st.Status == checks.Passed && fileOnly {
			return true
		}
		if st == nil || st.Status == checks.Passed {
			return false
		}
		for _, c := range st.Checks {
			if w.Check != "" && c.ID != st.ID+"."+w.Check {
				continue
			}
			if c.Status != status || !containsAll(c.Message, w.Message) {
				continue
			}
			got = c
			return true
		}
		return false
	})
	row.Took = time.Since(start)
	if st := rep.Step(n); ok && st != nil && st.Status == checks.Passed {
		row.Seen = msg("verify.seen.wrong_passed")
		return p.row(row)
	}
	if !ok {
		row.Seen = msg("verify.seen.not_refused", "report", describe(rep, n))
		if st := rep.Step(n); st != nil && st.Status == checks.Passed {
			row.Seen = msg("verify.seen.wrong_passed")
		}
		return p.row(row)
	}
	var broken []string
	for i := 1; i < n; i++ {
		if st := rep.Step(i); st != nil && st.Status != checks.Passed && !slices.Contains(w.Breaks, i) {
			broken = append(broken, fmt.Sprint(i))
		}
	}
	if len(broken) > 0 {
		row.Seen = msg("verify.seen.broke_earlier", "steps", strings.Join(broken, ", "))
		return p.row(row)
	}
	row.Seen, row.OK = statusWord(got.Status)+": "+oneLine(got.Message), true
	return p.row(row)
}

// until waits, at most timeout, for a report that meets cond once what
// the last action caused has arrived (the stream went quiet for a
// moment), and returns the newest report either way.
func (p *prover) until(ctx context.Context, timeout time.Duration, cond func(engine.Report) bool) (engine.Report, bool) {
	return p.st.Until(ctx, timeout, 300*time.Millisecond, cond)
}

// note keeps every message a report carries, for the placeholder check.
func (p *prover) note(u labrun.Update) {
	rep := u.Report
	for _, st := range rep.Steps {
		for _, c := range st.Checks {
			for _, s := range []string{c.Message, c.Expected, c.Observed, c.Where} {
				p.messages[s] = true
			}
		}
		for _, f := range st.Observed {
			p.messages[f.Label] = true
			p.messages[f.Value] = true
		}
	}
}

// textRows are the lab-wide checks of what the run produced: every
// message key a check asked for exists, no message left a placeholder.
// The run has ended: its tap no longer writes the messages.
func (p *prover) textRows() []Row {
	missing := p.text.MissingKeys()
	keys := Row{Case: msg("verify.case.keys"), Expected: msg("verify.expect.keys"), OK: len(missing) == 0, Seen: msg("verify.seen.keys")}
	if len(missing) > 0 {
		keys.Seen = strings.Join(missing, ", ")
	}
	var left []string
	for m := range p.messages {
		if l := leftoverMsg().FindString(m); l != "" {
			left = append(left, l+" ← "+oneLine(m))
		}
	}
	slices.Sort(left)
	holes := Row{Case: msg("verify.case.placeholders"), Expected: msg("verify.expect.placeholders"), OK: len(left) == 0,
		Seen: msg("verify.seen.placeholders", "n", len(p.messages))}
	if len(left) > 0 {
		holes.Seen = strings.Join(left, "; ")
	}
	return []Row{p.row(keys), p.row(holes)}
}

// finishRecording keeps the trace only if it replays, exactly, to every
// step passing in the lab's order.
func (p *prover) finishRecording(ctx context.Context) Row {
	row := Row{Case: msg("verify.case.record"), Expected: msg("verify.expect.record")}
	if err := p.run.Stop(); err != nil {
		row.Seen = msg("verify.record_failed", "path", p.o.Record, "err", err)
		return p.row(row)
	}
	tr, err := trace.Open(p.recPath)
	if err != nil {
		row.Seen = msg("verify.record_failed", "path", p.o.Record, "err", err)
		return p.row(row)
	}
	rep, changes, err := labrun.Exact(ctx, p.text, p.kit.Steps, tr)
	if err != nil {
		row.Seen = msg("verify.record_failed", "path", p.o.Record, "err", err)
		return p.row(row)
	}
	var want []int
	for _, s := range p.text.Steps {
		want = append(want, s.Number)
	}
	if got := labrun.FirstPassed(changes); !rep.AllPassed() || !slices.Equal(got, want) {
		row.Seen = msg("verify.seen.record_order", "got", fmt.Sprint(got))
		return p.row(row)
	}
	if err := os.Rename(p.recPath, p.o.Record); err != nil {
		row.Seen = msg("verify.record_failed", "path", p.o.Record, "err", err)
		return p.row(row)
	}
	row.Seen, row.OK = msg("verify.seen.recorded", "path", p.o.Record, "records", len(tr.Records), "length", tr.Duration()), true
	return p.row(row)
}

// extract copies a directory of the lab's FS to dir on disk.
func extract(fsys fs.FS, from, dir string) error {
	return fs.WalkDir(fsys, from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, from), "/")
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

func statusWord(s checks.Status) string { return msg("status." + string(s)) }

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// describe words what a step showed, for a case that timed out.
func describe(rep engine.Report, n int) string {
	var parts []string
	for _, st := range rep.Steps {
		if st.Number > n {
			break
		}
		if st.Status == checks.Passed && st.Number != n {
			continue
		}
		var cs []string
		for _, c := range st.Checks {
			if c.Status != checks.Passed {
				cs = append(cs, c.ID+" "+statusWord(c.Status)+": "+oneLine(c.Message))
			}
		}
		parts = append(parts, msg("verify.seen.step", "n", st.Number, "status", statusWord(st.Status), "checks", strings.Join(cs, " / ")))
	}
	if len(parts) == 0 {
		return msg("verify.seen.no_report")
	}
	return strings.Join(parts, "; ")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return s
}

func tail(out string) string {
	out = strings.TrimSpace(out)
	if lines := strings.Split(out, "\n"); len(lines) > 8 {
		out = strings.Join(lines[len(lines)-8:], "\n")
	}
	return out
}

// Watch calls run once, then again after every change to the lab
// directory dir settles (an author's save), until ctx ends: the inner
// loop of writing a lab. The lab's files are watched by the file source
// labmate watches a learner's files with, over the whole tree. Errors
// starting the watch are returned.
func Watch(ctx context.Context, dir string, run func()) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	src := files.New(files.Options{Root: dir, Tree: true})
	obs := make(chan observe.Observation, 64)
	failed := make(chan error, 1)
	go func() { failed <- src.Run(ctx, obs) }()
	synced := false
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-failed:
			return err
		case o := <-obs:
			switch {
			case o.Synced != nil:
				synced = true
				run()
			case synced && o.File != nil:
				settle = time.After(300 * time.Millisecond)
			}
		case <-settle:
			settle = nil
			run()
		}
	}
}
