package verify

import (
	"slices"
	"strings"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe/scriptprobe"
)

// fileSettle bounds how long files written by an action take to reach a
// verdict: the watcher reads a changed file at once and again when a
// burst goes quiet (at most 250 ms), the engine holds a worse result
// while a file still changes (at most 250 ms), and the proof waits for
// its reports to go quiet (300 ms). Generous, for a loaded machine.
const fileSettle = 3 * time.Second

// caseWait is how long a case of step n may wait for its verdict. A step
// that reads no cluster is judged from its files (and the scripts a step
// runs on them, each run bounded by the prober): once they have settled
// its verdict is final, so a case that does not hold is known in
// seconds, not after the whole timeout. A cluster step may take the
// timeout to converge.
func (p *prover) caseWait(n int) time.Duration {
	if p.kit.ReadsCluster(n) {
		return p.o.Timeout
	}
	wait := fileSettle
	i := slices.IndexFunc(p.kit.Steps, func(s checks.Step) bool { return s.Number == n })
	if i >= 0 && p.kit.Steps[i].Probe != nil {
		runs := max(1, len(p.kit.Steps[i].Probe.Scenarios))
		wait += time.Duration(runs) * (scriptprobe.DefaultTimeout + time.Second)
	}
	return min(wait, p.o.Timeout)
}

// wrongWant words what a wrong answer must get: its check, status and
// words.
func wrongWant(w content.Wrong) string {
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
	return want
}

// notTried are the rows of step n's cases when the solution of an
// earlier step (unsolved) did not pass: the lab cannot be in the state
// they start from, so they are not tried, and say so, instead of failing
// each on its own account.
func (p *prover) notTried(n int, vs content.VerifyStep, unsolved int) []Row {
	var rows []Row
	for _, w := range vs.Wrong {
		if !w.After {
			rows = append(rows, p.untried(n, unsolved, msg("verify.case.wrong", "case", w.Case), wrongWant(w)))
		}
	}
	rows = append(rows, p.untried(n, unsolved, msg("verify.case.solve"), msg("verify.expect.passed_in_order", "n", n)))
	return append(rows, p.notTriedAfter(n, vs, unsolved)...)
}

// notTriedAfter are the rows of step n's wrong turns taken after it
// passed, when it did not (unsolved is n) or an earlier step did not.
func (p *prover) notTriedAfter(n int, vs content.VerifyStep, unsolved int) []Row {
	var rows []Row
	for _, w := range vs.Wrong {
		if w.After {
			rows = append(rows, p.untried(n, unsolved, msg("verify.case.wrong", "case", w.Case), wrongWant(w)),
				p.untried(n, unsolved, msg("verify.case.undone", "case", w.Case), msg("verify.expect.passed_in_order", "n", n)))
		}
	}
	return rows
}

func (p *prover) untried(n, unsolved int, name, want string) Row {
	return p.row(Row{Step: n, Case: name, Expected: want, Seen: msg("verify.seen.not_tried", "n", unsolved), Skipped: true})
}
