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
	"io"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/syncio"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
)

// Options configure a proof.
type Options struct {
	Lab *labkit.Lab
	// Cluster is the sandbox as the command line chose it (--kubeconfig,
	// --context: kubectl's rules, then the sandbox's own kubeconfig); Off
	// (--no-cluster) verifies the file steps only, the cluster steps
	// reported as not verified.
	Cluster kube.Target
	// BinDir holds the sandbox's kubectl, first on the scripts' PATH.
	BinDir string
	// Record writes the reference run (solutions only, no wrong
	// answers) to this trace file, kept only if it replays to every step
	// passing in order; Pace is the pause after each step passes.
	Record string
	// Mutants adds the mutation proof: near-misses made from each step's
	// reference solution must not pass, restylings of its files must.
	Mutants bool
	// MutantSteps, when set, makes near-misses of these steps only.
	MutantSteps []int
	// Shard and Shards, when Shards > 1, try on the cluster only the
	// near-misses of shard Shard (1-based) of Shards: each one's shard is
	// a hash of its step and exact change, so proofs of every shard on
	// sandboxes of their own, run at once, try each near-miss exactly
	// once between them. Near-misses judged from the files, and the
	// declarations, are judged in every shard.
	Shard, Shards int
	Pace          time.Duration
	Labmate       string // labmate's version, for the trace header
	// Timeout bounds the wait for each case's verdict (the lab's
	// verify.toml may say; 60 s when neither does).
	Timeout time.Duration
	// Lanes make more sandboxes for the mutation proof: each is asked
	// for its sandbox once the proof found its own, and a sandbox it gives tries
	// near-misses beside Cluster's, one trial at a time on each, from one
	// queue in step order. Each must be a labmate sandbox made for this
	// lab or for none (it is reset to the lab's start first). A lane
	// that gives no sandbox is left out, with a line on Progress.
	Lanes []Lane
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
	// Skipped: not verified (a cluster step with --no-cluster), or not
	// tried (a case after a step whose solution did not pass).
	Skipped bool
	// Unproven: a case the environment kept from being decided (a
	// near-miss whose baseline could not be set up, even after retries):
	// not a failure of the lab, but the proof is not complete.
	Unproven bool
	Took     time.Duration
	// nearMiss marks a row that tells one near-miss of the summary row
	// (a survivor, a false failure, one not tried): CI's cases name each
	// near-miss once, from Result.Mutants, instead (ci.go).
	nearMiss bool
}

// Result is a whole proof.
type Result struct {
	Lab  string
	Rows []Row
	// Mutants are the mutation proof's near-misses with their outcomes.
	Mutants []*Mutant
}

// OK reports whether every case held. A case skipped on request (a
// cluster step with --no-cluster) or left unproven by the environment is
// reported, not failed.
func (r Result) OK() bool {
	for _, row := range r.Rows {
		if !row.OK && !row.Skipped && !row.Unproven {
			return false
		}
	}
	return len(r.Rows) > 0
}

// Unproven returns the rows the environment kept from being decided: a
// proof with none failed but these could not prove the lab (exit 2).
func (r Result) Unproven() []Row {
	var out []Row
	for _, row := range r.Rows {
		if row.Unproven {
			out = append(out, row)
		}
	}
	return out
}

// Failed returns the rows that did not hold.
func (r Result) Failed() []Row {
	var out []Row
	for _, row := range r.Rows {
		if !row.OK && !row.Skipped && !row.Unproven {
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

	p := &prover{o: o, text: text, kit: o.Lab, misses: map[int]int{}}
	if o.Mutants && o.Record == "" {
		p.mut = newMutationLog()
		// Trials run on several lanes at once: one line at a time.
		p.o.Progress = &syncio.Writer{W: o.Progress}
	}
	// Whatever prepare made (the temp dir with its flattened kubeconfig,
	// a half-written recording) goes, also when it fails.
	defer p.cleanup()
	if err := p.prepare(ctx); err != nil {
		return res, err
	}
	// The other sandboxes come up while the proof's own cases run; none
	// is made for a proof that cannot start (not a sandbox, unreachable).
	var lanes []*pendingLane
	if p.mut != nil {
		lanes = startLanes(ctx, o.Lanes)
		defer releaseLanes(lanes)
	}
	rows, err := p.prove(ctx)
	res.Rows = append(res.Rows, rows...)
	if err != nil {
		return res, err
	}
	_ = p.run.Stop()
	if p.mut != nil {
		res.Mutants = p.mutate(ctx, lanes)
		res.Rows = append(res.Rows, p.mutantRows(res.Mutants)...)
	}
	res.Rows = append(res.Rows, p.textRows()...)
	return res, nil
}
