package catchup

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// Each lab caught up to its last step from a fresh start on a sandbox
// made for it, as a learner stuck at step 1 would: every step before the
// last passes on the learner's own run, each recorded as caught up and
// none as passed, and the cluster got there by the reference's commands.
// Each lab has a sandbox of its own (LABMATE_E2E=1; one cluster slot
// each).
func TestCatchUpEveryLabOnItsSandbox(t *testing.T) {
	for _, id := range []string{"gpu-incident", "driver-reboot", "gpu-quota"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			l := newLearner(t, id)
			opts := sandboxtest.ForLab(t, l.kit.Text, "cu-"+id)
			conn, err := sandbox.Connect(opts)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			last := len(l.kit.Steps)
			o := l.options(t, last, conn)
			o.BinDir, o.Timeout = opts.ResolvedBinDir(), 90*time.Second
			p, err := New(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			var out bytes.Buffer
			p.Write(&out)
			if p.Sandbox != conn.Origin().Context {
				t.Errorf("plan runs on %q, want the sandbox's context %q", p.Sandbox, conn.Origin().Context)
			}
			for _, s := range p.Steps {
				if s.Keep {
					t.Errorf("step %d passes at a fresh start: %+v", s.Number, s)
				}
			}
			if err := p.Do(ctx, &out); err != nil {
				t.Fatalf("Do: %v\n%s", err, out.String())
			}
			t.Logf("%s", out.String())
			rep := p.st.Last()
			for n := 1; n < last; n++ {
				if st := rep.Step(n); st == nil || st.Status != checks.Passed {
					t.Errorf("step %d after catch-up: %+v", n, st)
				}
			}
			f, err := l.store.Load()
			if err != nil {
				t.Fatal(err)
			}
			for n := 1; n < last; n++ {
				if !f.Progress.IsCaughtUp(n) {
					t.Errorf("step %d not recorded as caught up", n)
				}
				if _, ok := f.Progress.PassedAt[n]; ok {
					t.Errorf("step %d recorded as passed", n)
				}
			}
		})
	}
}
