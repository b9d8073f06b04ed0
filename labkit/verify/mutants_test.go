package verify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

func TestEquivalentDeclarations(t *testing.T) {
	cmd := &Mutant{Op: opField, Desc: "field k8s/pod.yaml delete spec.containers[0].command[1]", file: "k8s/pod.yaml", path: "spec.containers[0].command[1]"}
	live := &Mutant{Op: opLive, Desc: "live k8s/pod.yaml set spec.containers[0].command \"x\"", file: "k8s/pod.yaml", path: "spec.containers[0].command"}
	image := &Mutant{Op: opField, Desc: "field k8s/pod.yaml delete spec.containers[0].image", file: "k8s/pod.yaml", path: "spec.containers[0].image"}
	sibling := &Mutant{Op: opField, Desc: "field k8s/pod.yaml delete spec.containers[0].commandLine", file: "k8s/pod.yaml", path: "spec.containers[0].commandLine"}
	other := &Mutant{Op: opField, Desc: "field k8s/ds.yaml delete spec.containers[0].command", file: "k8s/ds.yaml", path: "spec.containers[0].command"}
	drop := &Mutant{Op: opDrop, Desc: "drop `mkdir -p out`"}
	for _, c := range []struct {
		eq   content.Equivalent
		m    *Mutant
		want bool
	}{
		{content.Equivalent{Under: "k8s/pod.yaml spec.containers[0].command"}, cmd, true},
		{content.Equivalent{Under: "k8s/pod.yaml spec.containers[0].command"}, live, true},
		{content.Equivalent{Under: "k8s/pod.yaml spec.containers[0].command"}, image, false},
		{content.Equivalent{Under: "k8s/pod.yaml spec.containers[0].command"}, sibling, false},
		{content.Equivalent{Under: "k8s/pod.yaml spec.containers[0].command"}, other, false},
		{content.Equivalent{Under: "k8s/pod.yaml spec"}, drop, false},
		{content.Equivalent{Under: "k8s/pod.yaml"}, cmd, false},
		{content.Equivalent{Mutant: "drop `mkdir -p out`"}, drop, true},
		{content.Equivalent{Mutant: "drop `mkdir out`"}, drop, false},
		{content.Equivalent{Mutant: image.Desc}, image, true},
	} {
		if got := declares(c.eq, c.m); got != c.want {
			t.Errorf("declares(%+v, %q) = %v, want %v", c.eq, c.m.Desc, got, c.want)
		}
	}
}

// A survivor and a false fail are failed rows naming the exact change; a
// declared equivalent without a reason, or one that names no mutant, too.
func TestMutantRows(t *testing.T) {
	ms := []*Mutant{
		{Step: 2, Op: opField, Desc: "field a.yaml delete x", Outcome: outSurvived},
		{Step: 2, Op: opRestyle, Desc: "restyle a.yaml flow", Outcome: outFalseFail, By: "a.x"},
		{Step: 2, Op: opField, Desc: "field a.yaml delete y", Outcome: outKilled, By: "a.y"},
		{Step: 2, Op: opField, Desc: "field a.yaml delete z", Outcome: outEquivalent, Reason: "free"},
	}
	declared := []content.Equivalent{{Mutant: "field a.yaml delete z", Reason: "free"}, {Mutant: "field a.yaml delete q"}}
	rows := stepMutantRows(2, ms, declared)
	var failed []string
	for _, r := range rows {
		if !r.OK && !r.Skipped {
			failed = append(failed, r.Seen)
		}
	}
	want := []string{"살아남음 1", "field a.yaml delete x", "restyle a.yaml flow", "field a.yaml delete q", "field a.yaml delete q"}
	if len(failed) != len(want) {
		t.Fatalf("failed rows %q, want %d naming %q", failed, len(want), want)
	}
	for i, w := range want {
		if !containsAll(failed[i], []string{w}) {
			t.Errorf("failed row %d %q lacks %q", i, failed[i], w)
		}
	}
}

// Shards of a proof split the near-misses to try between them: each one
// is tried by exactly one shard, every shard gets some, and the summary
// of a shard says how many another shard tries.
func TestShardsTryEachNearMissOnce(t *testing.T) {
	var ms []*Mutant
	for step := 1; step <= 3; step++ {
		for i := range 20 {
			ms = append(ms, &Mutant{Step: step, Op: opField, Desc: fmt.Sprintf("field k8s/a.yaml set spec.x %d", i)})
		}
	}
	const n = 3
	tried := map[*Mutant]int{}
	for k := 1; k <= n; k++ {
		p := &prover{o: Options{Shard: k, Shards: n}}
		mine := 0
		for _, m := range ms {
			if p.inShard(m) {
				tried[m]++
				mine++
			}
		}
		if mine == 0 {
			t.Errorf("shard %d/%d tries none of %d near-misses", k, n, len(ms))
		}
	}
	for _, m := range ms {
		if tried[m] != 1 {
			t.Errorf("%d %q tried by %d shards, want 1", m.Step, m.Desc, tried[m])
		}
	}
	if p := (&prover{}); !p.inShard(ms[0]) {
		t.Error("a proof of no shard does not try every near-miss")
	}
	rows := stepMutantRows(1, []*Mutant{{Step: 1, Outcome: outKilled}, {Step: 1, Outcome: outElsewhere}}, nil)
	if !rows[0].OK || !strings.Contains(rows[0].Seen, msg("verify.seen.mutants_elsewhere", "n", 1)) {
		t.Errorf("summary of a shard: %+v", rows[0])
	}
}
