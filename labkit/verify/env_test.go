package verify

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// A trial whose baseline fails is tried again after the backoff, and
// gives up with the last reason once the steps are spent.
func TestRetryingTriesAgainThenGivesUp(t *testing.T) {
	b := wait.Backoff{Duration: time.Millisecond, Factor: 2, Steps: 3}
	calls := 0
	why, tries := retrying(context.Background(), b, func() string {
		calls++
		if calls < 3 {
			return "busy"
		}
		return ""
	})
	if why != "" || tries != 3 {
		t.Errorf("succeeding on the third call: why %q, tries %d; want \"\", 3", why, tries)
	}
	why, tries = retrying(context.Background(), b, func() string { return "still busy" })
	if why != "still busy" || tries != 3 {
		t.Errorf("never succeeding: why %q, tries %d; want \"still busy\", 3", why, tries)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, tries := retrying(ctx, wait.Backoff{Duration: time.Hour, Steps: 3}, func() string { return "busy" }); tries != 0 {
		t.Errorf("a stopped proof tried %d times, want none", tries)
	}
}

// A near-miss the environment kept from being tried is its own verdict:
// not a survivor (the step's row holds), not a skip on request, and the
// proof says it could not prove (Unproven, the table's "?" and summary).
func TestEnvUntriedIsUnprovenNotFailed(t *testing.T) {
	ms := []*Mutant{
		{Step: 2, Outcome: outKilled, By: "dropin"},
		{Step: 2, Outcome: outEnv, Desc: "field a.toml set x \"1\"", Note: "2단계 참고 풀이가 다시 통과하지 않았습니다"},
	}
	res := Result{Lab: "demo", Rows: stepMutantRows(2, ms, nil)}
	if !res.Rows[0].OK {
		t.Errorf("the step's mutants row failed for an environment problem: %+v", res.Rows[0])
	}
	if !res.OK() || len(res.Failed()) != 0 {
		t.Errorf("an environment problem failed the proof: %+v", res.Failed())
	}
	if len(res.Unproven()) != 1 || !strings.Contains(res.Unproven()[0].Seen, "field a.toml") {
		t.Fatalf("unproven rows %+v, want the one near-miss", res.Unproven())
	}
	var out bytes.Buffer
	res.WriteTable(&out)
	if !strings.Contains(out.String(), msg("verify.summary.unproven", "lab", "demo", "unproven", 1, "n", len(res.Rows))) ||
		!strings.Contains(out.String(), msg("verify.case.env_untried")) {
		t.Errorf("table:\n%s", out.String())
	}
	// A real survivor beside it still fails the proof.
	ms = append(ms, &Mutant{Step: 2, Outcome: outSurvived, Desc: "field a.toml delete y"})
	if res := (Result{Rows: stepMutantRows(2, ms, nil)}); res.OK() {
		t.Error("a survivor beside an environment problem passed the proof")
	}
}
