package verify

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labkit/action"
)

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
	unsolved := 0 // a step whose solution did not pass: what follows is not tried
	for _, st := range p.text.Steps {
		vs, has := byID[st.ID]
		if unsolved > 0 {
			rows = append(rows, p.notTried(st.Number, vs, unsolved)...)
			continue
		}
		if !has {
			rows = append(rows, p.row(Row{Step: st.Number, Case: msg("verify.case.solve"), Expected: msg("verify.expect.data"), Seen: msg("verify.seen.no_data")}))
			unsolved = st.Number
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
		solved := p.solve(ctx, st.Number, vs.Solve, msg("verify.case.solve"))
		rows = append(rows, solved)
		if !solved.OK {
			unsolved = st.Number
			rows = append(rows, p.notTriedAfter(st.Number, vs, unsolved)...)
			continue
		}
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
	slog.Debug("verify phase", "phase", "case", "ms", r.Took.Milliseconds(), "step", r.Step, "case", r.Case)
	fmt.Fprintln(p.o.Progress, msg("verify.progress.row", "mark", r.mark(), "step", r.Step, "case", r.Case, "seen", oneLine(r.Seen)))
	return r
}

// passedUpTo is the condition that steps 1 to n all passed.
func passedUpTo(n int) func(engine.Report) bool {
	return func(r engine.Report) bool {
		for i := 1; i <= n; i++ {
			if st := r.Step(i); st == nil || st.Status != checks.Passed {
				return false
			}
		}
		return true
	}
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
	wait := p.caseWait(n)
	acted := time.Now()
	rep, ok := p.until(ctx, wait, passedUpTo(n))
	row.Took = time.Since(start)
	if ok && p.mut != nil {
		p.mut.solved(n, acted.Sub(start), time.Since(acted))
	}
	if !ok {
		row.Seen = msg("verify.seen.timeout", "timeout", wait, "report", describe(rep, n))
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
	row := Row{Step: n, Case: msg("verify.case.wrong", "case", w.Case), Expected: wrongWant(w)}
	defer func() {
		if w.Undo != "" {
			at := time.Now()
			if out, err := p.shell(ctx, w.Undo); err != nil {
				fmt.Fprintln(p.o.Progress, msg("verify.undo_failed", "case", w.Case, "err", err, "out", tail(out)))
			}
			spent("case.undo", at, "step", n)
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
	rep, ok := p.until(ctx, p.caseWait(n), func(r engine.Report) bool {
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
	// A named mistake is found again from what the learner would see.
	if w.Label != "" {
		if name := p.text.Mistake(n, got.ID, got.Message); name != w.Label {
			row.Seen = msg("verify.seen.label_not_named", "case", w.Case, "label", w.Label, "got", name)
			return p.row(row)
		}
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
		if len(cs) == 0 { // nothing of its own to show: no label left dangling
			parts = append(parts, msg("verify.seen.step_only", "n", st.Number, "status", statusWord(st.Status)))
			continue
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

func tail(out string) string { return action.Tail(out) }
