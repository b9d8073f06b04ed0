package verify

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/trace"
)

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
	rep, passes, err := labrun.ExactPasses(ctx, p.text, p.kit.Steps, tr)
	if err != nil {
		row.Seen = msg("verify.record_failed", "path", p.o.Record, "err", err)
		return p.row(row)
	}
	var want []int
	for _, s := range p.text.Steps {
		want = append(want, s.Number)
	}
	var got []int
	for _, ps := range passes {
		got = append(got, ps.Step)
	}
	if !rep.AllPassed() || !slices.Equal(got, want) {
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
