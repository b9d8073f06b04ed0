package e2e

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/cluster"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// BenchmarkNodePatchToReport measures what a learner waits for: from a
// node status patch returning to the engine handing out a report that
// shows the new amount (informer delivery, store, every step's checks).
// The engine and the cluster source run in-process on the sandbox.
//
//	LABMATE_E2E=1 go test ./e2e -run '^$' -bench NodePatchToReport -benchtime 200x
func BenchmarkNodePatchToReport(b *testing.B) {
	conn := sandboxtest.Conn(b)
	cs := sandboxtest.Client(b)
	sandboxtest.LockLab(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const node = "lab-node-2"
	b.Cleanup(func() { restoreNode(context.Background(), b, cs, node) })

	kit, err := labkit.Open("gpu-incident")
	if err != nil {
		b.Fatal(err)
	}
	lab := kit.Text
	src, err := cluster.New(conn, cluster.Options{Scope: kit.Scope})
	if err != nil {
		b.Fatal(err)
	}
	e := engine.New(engine.Config{Lab: lab, Steps: labkittest.GPUSteps(b), Root: b.TempDir()})
	reports, stop := e.Start(ctx, []observe.Source{src})
	b.Cleanup(stop)

	// shows reports whether a report carries the node's amount in step
	// 6's observed GPU table.
	shows := func(rep engine.Report, amount string) bool {
		s := rep.Step(6)
		if s == nil || rep.Cluster.State != observe.ClusterSynced {
			return false
		}
		for _, f := range s.Observed {
			if f.Label == node+" nvidia.com/gpu" {
				return f.Value == "capacity="+amount+", allocatable="+amount
			}
		}
		return false
	}
	// waitReport returns when a report shows the amount.
	waitReport := func(amount string) {
		deadline := time.After(30 * time.Second)
		for {
			select {
			case rep := <-reports:
				if shows(rep, amount) {
					return
				}
			case <-deadline:
				b.Fatalf("no report with %s at %s within 30s", node, amount)
			}
		}
	}
	if err := patchNodeGPU(ctx, cs, node, "1"); err != nil {
		b.Fatal(err)
	}
	waitReport("1")

	// The watch event often reaches labmate before the patch's own HTTP
	// response reaches the client, so both ends are measured: from the
	// call returning (what the learner's kubectl prints) and from the
	// call being made.
	fromReturn := make([]time.Duration, 0, b.N)
	fromCall := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		amount := []string{"2", "3"}[i%2]
		called := time.Now()
		if err := patchNodeGPU(ctx, cs, node, amount); err != nil {
			b.Fatal(err)
		}
		returned := time.Now()
		waitReport(amount)
		done := time.Now()
		fromReturn = append(fromReturn, done.Sub(returned))
		fromCall = append(fromCall, done.Sub(called))
	}
	b.StopTimer()
	report := func(lat []time.Duration, suffix string) {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(lat[len(lat)/2]), "ms-median"+suffix)
		b.ReportMetric(ms(lat[(len(lat)*99)/100]), "ms-p99"+suffix)
	}
	report(fromReturn, "")
	report(fromCall, "-from-call")
}
