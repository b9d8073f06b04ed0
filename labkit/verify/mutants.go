package verify

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/observe"
)

// The mutation proof (`lab verify --mutants`): near-misses made from each
// step's own reference solution, each of which must leave the step not
// passed (one that passes is a survivor), and restylings of its files,
// which must still pass (one that fails is a false fail). A near-miss of a
// file is judged from the files first, on a copy of what the proof
// observed when the step passed; only one the file checks let through is
// tried against the real sources, in a session of its own from the lab's
// start.

// Mutant operators.
const (
	opDrop    = "drop"
	opEarly   = "early"
	opField   = "field"
	opLive    = "live"
	opRestyle = "restyle"
)

// Outcomes of a mutant.
const (
	outKilled     = "killed"
	outSurvived   = "survived"
	outEquivalent = "equivalent"
	outFalseFail  = "false-fail"
	outHeld       = "held" // a restyle that still passes
	outNotTried   = "not-tried"
	// outEnv: the trial's baseline could not be set up, even after
	// retries (a loaded or broken sandbox): the proof could not decide.
	outEnv       = "env"
	outElsewhere = "elsewhere" // another shard's to try (Options.Shards)
)

// maxLive bounds the live mutants of one file: one for each value the
// file checks proved to matter, in the file's order.
const maxLive = 4

// identity are the fields that make a manifest another object: changing
// one in the cluster only is a different object, not a near-miss of this
// one.
var identity = []string{"apiVersion", "kind", "metadata.name", "metadata.namespace"}

// Mutant is one near-miss of a step, or one restyling of its file.
type Mutant struct {
	Step int
	Op   string
	// Desc is the exact change, on one line: what verify.toml's
	// [[steps.equivalent]] mutant names.
	Desc string
	// Outcome, By (the check that refused it, or the one that failed a
	// restyle), Reason (a declared equivalent's) and Note (why it was not
	// tried).
	Outcome, By, Reason, Note string

	file   string // a field, live or restyle mutant's file
	body   []byte // its changed content
	path   string // the field
	prefix int    // the steps whose solves run before its actions
	acts   []content.Action
}

// mutationLog keeps what the mutation proof needs of the proof: every
// observation of its session in order, and for each step, how many had
// been made when the step's solution passed and how long that took.
type mutationLog struct {
	mu     sync.Mutex
	obs    []observe.Observation
	marks  map[int]int
	script map[int]time.Duration // running the solution
	pass   map[int]time.Duration // from then until the step passed
	// mutated are the steps whose near-misses were made (the proof's
	// goroutine only).
	mutated map[int]bool
	// unmade are, per step, failed rows for what its near-misses could
	// not be made from (a file or script that does not parse).
	unmade map[int][]Row
}

func newMutationLog() *mutationLog {
	return &mutationLog{marks: map[int]int{}, script: map[int]time.Duration{}, pass: map[int]time.Duration{}, mutated: map[int]bool{},
		unmade: map[int][]Row{}}
}

// unmadeRow fails the proof for near-misses of step n that could not be
// made: a proof with fewer near-misses never passes in silence.
func (l *mutationLog) unmadeRow(n int, seen string) {
	l.unmade[n] = append(l.unmade[n], Row{Step: n, Case: msg("verify.unmade.case"), Expected: msg("verify.unmade.expect"), Seen: seen})
}

func (l *mutationLog) observe(o observe.Observation) {
	l.mu.Lock()
	l.obs = append(l.obs, o)
	l.mu.Unlock()
}

// solved notes that step n's solution passed, the first time.
func (l *mutationLog) solved(n int, script, pass time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, done := l.marks[n]; !done {
		l.marks[n], l.script[n], l.pass[n] = len(l.obs), script, pass
	}
}

// states replays what the proof observed exactly (labrun.Forks: a fresh
// engine evaluating after each observation, as the live engine did) and
// keeps a copy of it as it stood when each step's solution passed.
func (l *mutationLog) states(p *prover) map[int]*engine.Engine {
	l.mu.Lock()
	obs := slices.Clone(l.obs)
	marks := maps.Clone(l.marks)
	l.mu.Unlock()
	return labrun.Forks(p.text, p.kit.Steps, p.root, obs, marks)
}

// mutate makes every step's near-misses, judges each, and returns them
// with their outcomes, step by step.
func (p *prover) mutate(ctx context.Context, lanes []*pendingLane) []*Mutant {
	at := time.Now()
	states := p.mut.states(p)
	spent("mutate.states", at)
	byID := map[string]content.VerifyStep{}
	for _, vs := range p.text.Verify.Steps {
		byID[vs.ID] = vs
	}
	var all, queue []*Mutant
	for _, st := range p.text.Steps {
		vs, ok := byID[st.ID]
		state, solved := states[st.Number]
		if !ok || !solved || (len(p.o.MutantSteps) > 0 && !slices.Contains(p.o.MutantSteps, st.Number)) {
			continue
		}
		at := time.Now()
		ms := p.mutantsOf(ctx, st.Number, vs, state)
		spent("mutate.make", at, "step", st.Number, "mutants", len(ms))
		p.mut.mutated[st.Number] = true
		for _, m := range ms {
			if eq, ok := equivalent(vs, m); ok {
				m.Outcome, m.Reason = outEquivalent, eq.Reason
				continue
			}
			if m.Outcome == "" && !p.inShard(m) {
				m.Outcome = outElsewhere
				continue
			}
			if m.Outcome == "" {
				queue = append(queue, m)
				continue
			}
			p.progressMutant(m, "")
		}
		all = append(all, ms...)
	}
	p.tryAll(ctx, queue, lanes)
	return all
}

// progressMutant says m's verdict on Progress (took: how long its trial
// took, "" when it was judged without one).
func (p *prover) progressMutant(m *Mutant, took string) {
	fmt.Fprintln(p.o.Progress, msg("verify.progress.mutant", "step", m.Step, "outcome", msg("verify.mutant."+m.Outcome), "desc", m.Desc)+took)
}

// inShard says whether this proof tries m on the cluster: always, unless
// it proves one shard of several (Options.Shards), where m's shard is an
// FNV hash of its step and exact change, the same in every proof.
func (p *prover) inShard(m *Mutant) bool {
	if p.o.Shards <= 1 {
		return true
	}
	h := fnv.New32a()
	fmt.Fprintf(h, "%d %s", m.Step, m.Desc)
	return int(h.Sum32()%uint32(p.o.Shards)) == p.o.Shard-1
}

func equivalent(vs content.VerifyStep, m *Mutant) (content.Equivalent, bool) {
	i := slices.IndexFunc(vs.Equivalent, func(e content.Equivalent) bool { return declares(e, m) })
	if i < 0 {
		return content.Equivalent{}, false
	}
	return vs.Equivalent[i], true
}

// declares says whether e names m: by its exact change, or (under) as a
// field or live mutant of e's file at e's path or below it.
func declares(e content.Equivalent, m *Mutant) bool {
	if e.Mutant != "" {
		return e.Mutant == m.Desc
	}
	file, path, ok := strings.Cut(strings.TrimSpace(e.Under), " ")
	if !ok || (m.Op != opField && m.Op != opLive) || m.file != file {
		return false
	}
	path = strings.TrimSpace(path)
	return m.path == path || strings.HasPrefix(m.path, path+".") || strings.HasPrefix(m.path, path+"[")
}

// mutantsOf makes step n's near-misses: its files' fields changed (judged
// from the files at once where the file checks refuse them), its files
// restyled (judged at once), its applied manifests changed in the cluster
// only, its commands left out, and it done before the step before it.
func (p *prover) mutantsOf(ctx context.Context, n int, vs content.VerifyStep, state *engine.Engine) []*Mutant {
	var (
		ms        []*Mutant
		scriptErr error
	)
	reads := p.kit.ReadsCluster(n)
	for _, file := range append(slices.Clone(vs.Solve.Files), vs.Solve.Executable...) {
		body, err := os.ReadFile(p.answerPath(file))
		if err != nil {
			continue
		}
		mode := os.FileMode(0o644)
		if slices.Contains(vs.Solve.Executable, file) {
			mode = 0o755
		}
		edits, err := fieldEdits(file, body)
		styles, serr := restyles(file, body)
		if err = cmp.Or(err, serr); err != nil {
			p.mut.unmadeRow(n, msg("verify.unmade.file", "file", file, "err", err))
		}
		_, applied, err := pointAt(vs.Solve.Run, file, file)
		scriptErr = cmp.Or(scriptErr, err)
		var matter []docEdit // values the file checks refused a change of
		for _, e := range edits {
			m := &Mutant{Step: n, Op: opField, Desc: "field " + file + " " + e.desc, file: file, body: e.body, path: e.path}
			by, passed := judgeFile(state, n, file, e.body, mode, reads)
			switch {
			case by != "":
				m.Outcome, m.By = outKilled, by
				if e.op == "set" && !slices.Contains(identity, e.path) && !slices.ContainsFunc(matter, func(d docEdit) bool { return d.path == e.path }) {
					matter = append(matter, e)
				}
			case !reads && passed:
				m.Outcome = outSurvived
			case !reads:
				m.Outcome = outKilled
			default:
				if refused, _ := p.serverRefuses(ctx, e.body); applied && refused {
					m.Outcome, m.By = outKilled, msg("verify.mutant.by_server")
					break
				}
				m.prefix, m.acts = n-1, []content.Action{withFile(vs.Solve, file, e.body, mode)}
			}
			ms = append(ms, m)
		}
		for _, r := range styles {
			m := &Mutant{Step: n, Op: opRestyle, Desc: "restyle " + file + " " + r.desc, file: file, body: r.body}
			if by := judgeRestyle(state, n, file, r.body, mode); by != "" {
				m.Outcome, m.By = outFalseFail, by
			} else {
				m.Outcome = outHeld
			}
			ms = append(ms, m)
		}
		if reads && applied {
			ms = append(ms, p.liveMutants(ctx, n, vs.Solve, file, matter)...)
		}
	}
	drops, err := dropEdits(vs.Solve.Run)
	if err = cmp.Or(err, scriptErr); err != nil {
		p.mut.unmadeRow(n, msg("verify.unmade.script", "err", err))
	}
	for _, d := range drops {
		a := vs.Solve
		a.Run = d.script
		ms = append(ms, &Mutant{Step: n, Op: opDrop, Desc: "drop `" + d.command + "`", prefix: n - 1, acts: []content.Action{a}})
	}
	if n >= 2 && p.remembers(n) {
		prev := p.solveOf(n - 1)
		ms = append(ms, &Mutant{Step: n, Op: opEarly, Desc: "early", prefix: n - 2, acts: []content.Action{vs.Solve, prev}})
	}
	return ms
}

// liveMutants are the step's solution with its file right on disk and a
// changed copy applied to the cluster: one for each value that matters
// (a copy the API server refuses is killed at once), at most maxLive.
func (p *prover) liveMutants(ctx context.Context, n int, solve content.Action, file string, matter []docEdit) []*Mutant {
	var ms []*Mutant
	for i, e := range matter {
		if i == maxLive {
			break
		}
		copyPath := fmt.Sprintf("%s/live-%d-%d-%s", p.tmp, n, i, strings.ReplaceAll(file, "/", "_"))
		if err := os.WriteFile(copyPath, e.body, 0o644); err != nil {
			continue
		}
		script, ok, err := pointAt(solve.Run, file, copyPath)
		if err != nil || !ok {
			return nil // the solution applies no such file
		}
		a := solve
		a.Run = script
		m := &Mutant{Step: n, Op: opLive, Desc: "live " + file + " " + e.desc, file: file, path: e.path, prefix: n - 1, acts: []content.Action{a}}
		if refused, _ := p.serverRefuses(ctx, e.body); refused {
			m.Outcome, m.By = outKilled, msg("verify.mutant.by_server")
		}
		ms = append(ms, m)
	}
	return ms
}

// remembers says step n keeps facts of the past: only such a step can
// tell a state reached out of order from one reached in it.
func (p *prover) remembers(n int) bool {
	i := slices.IndexFunc(p.kit.Steps, func(s checks.Step) bool { return s.Number == n })
	return i >= 0 && p.kit.Steps[i].Remember != nil
}

func (p *prover) solveOf(n int) content.Action {
	id := p.text.Steps[n-1].ID
	for _, vs := range p.text.Verify.Steps {
		if vs.ID == id {
			return vs.Solve
		}
	}
	return content.Action{}
}

// withFile is the solution with one of its files written with body.
func withFile(a content.Action, file string, body []byte, mode os.FileMode) content.Action {
	a.Files = slices.DeleteFunc(slices.Clone(a.Files), func(f string) bool { return f == file })
	a.Executable = slices.DeleteFunc(slices.Clone(a.Executable), func(f string) bool { return f == file })
	a.Write = append([]content.WriteFile{{Path: file, Content: string(body), Mode: fmt.Sprintf("%04o", mode)}}, a.Write...)
	return a
}

// judgeFile decides a changed file from the files alone, on a copy of
// the state the step passed in. For a step that reads the cluster, the
// copy has no cluster (its live checks stand aside, unknown), so by names
// a check that refused the file itself; "" means none did and the
// cluster must decide. passed says the step passed with it (a step that
// reads no cluster: the verdict).
func judgeFile(state *engine.Engine, n int, file string, body []byte, mode os.FileMode, reads bool) (by string, passed bool) {
	e := state.Fork()
	now := time.Now()
	if reads {
		e.Apply(observe.Observation{Time: now, Cluster: &observe.ClusterObs{State: observe.ClusterOff, Err: observe.ClusterDisabled}})
	}
	e.Apply(observe.Observation{Time: now, File: fileObs(file, body, mode)})
	rep := e.Evaluate()
	st := rep.Step(n)
	if st == nil {
		return "", false
	}
	// With the cluster off, a check that reads it waits: only a
	// verdict against the file kills the near-miss.
	c := st.FirstFailing()
	if reads {
		c = st.FirstFailed()
	}
	if c != nil {
		return c.ID, false
	}
	return "", st.Status == checks.Passed
}

// judgeRestyle decides a restyled file on a copy of the state the step
// passed in (the cluster as it was): "" when the step still passes, else
// the check that no longer does.
func judgeRestyle(state *engine.Engine, n int, file string, body []byte, mode os.FileMode) string {
	e := state.Fork()
	e.Apply(observe.Observation{Time: time.Now(), File: fileObs(file, body, mode)})
	rep := e.Evaluate()
	st := rep.Step(n)
	if st == nil {
		return "?"
	}
	if c := st.FirstFailing(); c != nil {
		return c.ID
	}
	return ""
}

func fileObs(file string, body []byte, mode os.FileMode) *observe.FileObs {
	return &observe.FileObs{Path: file, State: observe.FilePresent, Content: body, Size: int64(len(body)), Mode: mode}
}

// mutantRows are the mutation proof's rows: per step the counts, then
// each survivor, false fail and stale equivalent with its exact change.
func (p *prover) mutantRows(all []*Mutant) []Row {
	var rows []Row
	for _, st := range p.text.Steps {
		var ms []*Mutant
		for _, m := range all {
			if m.Step == st.Number {
				ms = append(ms, m)
			}
		}
		if !p.mut.mutated[st.Number] {
			continue // a step the proof did not reach, skipped, or with no solution
		}
		rows = append(rows, stepMutantRows(st.Number, ms, p.equivalentsOf(st.ID))...)
		rows = append(rows, p.mut.unmade[st.Number]...)
	}
	return rows
}

func (p *prover) equivalentsOf(id string) []content.Equivalent {
	for _, vs := range p.text.Verify.Steps {
		if vs.ID == id {
			return vs.Equivalent
		}
	}
	return nil
}

// elsewhere is the summary's note of the near-misses another shard
// tries, "" when there are none.
func elsewhere(n int) string {
	if n == 0 {
		return ""
	}
	return msg("verify.seen.mutants_elsewhere", "n", n)
}

// envUntried is the summary's note of the near-misses the environment
// kept from being tried, "" when there are none.
func envUntried(n int) string {
	if n == 0 {
		return ""
	}
	return msg("verify.seen.mutants_env", "n", n)
}

func stepMutantRows(n int, ms []*Mutant, declared []content.Equivalent) []Row {
	count := map[string]int{}
	killers := map[string]int{}
	for _, m := range ms {
		count[m.Outcome]++
		if m.Outcome == outKilled && m.By != "" {
			killers[m.By]++
		}
	}
	var by []string
	for k, v := range killers {
		by = append(by, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(by)
	killedBy := ""
	if len(by) > 0 {
		killedBy = " (" + strings.Join(by, ", ") + ")"
	}
	made := len(ms) - count[outHeld] - count[outFalseFail]
	sum := Row{Step: n, Case: msg("verify.case.mutants"), Expected: msg("verify.expect.mutants"),
		Seen: msg("verify.seen.mutants", "made", made, "killed", count[outKilled], "by", killedBy,
			"survived", count[outSurvived], "equivalent", count[outEquivalent], "restyled", count[outHeld]+count[outFalseFail],
			"false", count[outFalseFail], "untried", count[outNotTried]) + envUntried(count[outEnv]) + elsewhere(count[outElsewhere]),
		OK: count[outSurvived] == 0 && count[outFalseFail] == 0}
	rows := []Row{sum}
	for _, m := range ms {
		switch m.Outcome {
		case outSurvived:
			rows = append(rows, Row{Step: n, Case: msg("verify.case.survivor"), Expected: msg("verify.expect.not_passed"), Seen: m.Desc, nearMiss: true})
		case outFalseFail:
			rows = append(rows, Row{Step: n, Case: msg("verify.case.false_fail"), Expected: msg("verify.expect.passed"),
				Seen: msg("verify.seen.false_fail", "desc", m.Desc, "check", m.By), nearMiss: true})
		case outNotTried:
			rows = append(rows, Row{Step: n, Case: msg("verify.case.untried"), Expected: msg("verify.expect.not_passed"),
				Seen: msg("verify.seen.untried", "desc", m.Desc, "why", m.Note), Skipped: true, nearMiss: true})
		case outEnv:
			rows = append(rows, Row{Step: n, Case: msg("verify.case.env_untried"), Expected: msg("verify.expect.not_passed"),
				Seen: msg("verify.seen.untried", "desc", m.Desc, "why", m.Note), Unproven: true, nearMiss: true})
		}
	}
	for _, eq := range declared {
		named := eq.Mutant
		if named == "" {
			named = eq.Under
		}
		if !slices.ContainsFunc(ms, func(m *Mutant) bool { return declares(eq, m) }) {
			rows = append(rows, Row{Step: n, Case: msg("verify.case.stale_equivalent"), Expected: msg("verify.expect.equivalent"),
				Seen: msg("verify.seen.stale_equivalent", "mutant", named)})
		}
		if strings.TrimSpace(eq.Reason) == "" {
			rows = append(rows, Row{Step: n, Case: msg("verify.case.stale_equivalent"), Expected: msg("verify.expect.reason"),
				Seen: msg("verify.seen.no_reason", "mutant", named)})
		}
	}
	return rows
}
