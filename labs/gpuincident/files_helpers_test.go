package gpuincident

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/files"
	"github.com/labhub/labmate/observe/scriptprobe"
)

const (
	fixtures  = "testdata/files"
	reference = "testdata/files/reference"
)

var labPaths = []string{mainConfigPath, dropInPath, mergePath, checkScriptPath}

// labRoot copies the reference answer into a temporary lab root, then
// replaces lab paths with fixtures (paths under testdata/files); an empty
// fixture removes the file.
func labRoot(t *testing.T, replace map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for _, rel := range labPaths {
		src := filepath.Join(reference, rel)
		if fx, ok := replace[rel]; ok {
			if fx == "" {
				continue
			}
			src = filepath.Join(fixtures, fx)
		}
		copyFile(t, src, filepath.Join(root, rel))
	}
	return root
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	writeLabFile(t, dst, b, fi.Mode().Perm())
}

func writeLabFile(t *testing.T, dst string, b []byte, perm fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dst, perm); err != nil {
		t.Fatal(err)
	}
}

// observeRoot reads the lab files the way the file source does and folds
// them, plus any extra observations, into a snapshot.
func observeRoot(t *testing.T, root string, extra ...observe.Observation) *observe.Snapshot {
	t.Helper()
	st := observe.NewStore()
	for _, rel := range labPaths {
		f := files.Read(root, rel)
		st.Apply(observe.Observation{Time: time.Now(), File: &f})
	}
	for _, o := range extra {
		st.Apply(o)
	}
	return st.Snapshot()
}

// probeScript runs the step's probe for real against the script in root
// and returns the script observations.
func probeScript(t *testing.T, root string, opts scriptprobe.Options) []observe.Observation {
	t.Helper()
	return probeSpec(t, root, *stepCheckScript.Probe, opts)
}

// scriptTimeout bounds a script run in these tests when the test sets no
// timeout of its own: a learner's 5 s (scriptprobe.DefaultTimeout) is a
// product setting, and on a loaded machine a script that fills its memory
// limit takes longer than that; a script that ends costs nothing extra.
// Tests of the timeout itself set a short one.
const scriptTimeout = 60 * time.Second

// probeSpec is probeScript with a spec of the test's own.
func probeSpec(t *testing.T, root string, spec observe.ProbeSpec, opts scriptprobe.Options) []observe.Observation {
	t.Helper()
	if opts.Timeout == 0 {
		opts.Timeout = scriptTimeout
	}
	f := files.Read(root, checkScriptPath)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := scriptprobe.New(root, []observe.ProbeSpec{spec}, opts)
	out := make(chan observe.Observation, 8)
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, out) }()
	p.Offer(f)
	var got []observe.Observation
	deadline := time.After(2 * scriptTimeout)
	for {
		select {
		case o := <-out:
			if o.Synced != nil {
				cancel()
				if err := <-done; err != nil {
					t.Fatalf("prober: %v", err)
				}
				return got
			}
			got = append(got, o)
		case <-deadline:
			t.Fatal("prober did not finish")
		}
	}
}

func evalStep(t *testing.T, s checks.Step, root string, snap *observe.Snapshot) checks.StepEval {
	t.Helper()
	ev := s.Eval(checks.Input{Lab: text(), Snap: snap, Root: root})
	assertWellFormed(t, ev)
	return ev
}

var (
	rePlaceholder = regexp.MustCompile(`\{[a-z_]+\}`)
	reRawKey      = regexp.MustCompile(`\bfiles\.[a-z_]+\.[a-z_.]+`)
)

// assertWellFormed holds for every evaluation: each result is complete,
// no message has a missing text or an unfilled placeholder, and a failure
// names what was expected and what was observed.
func assertWellFormed(t *testing.T, ev checks.StepEval) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range ev.Checks {
		if r.ID == "" || seen[r.ID] {
			t.Errorf("empty or repeated check ID %q", r.ID)
		}
		seen[r.ID] = true
		switch r.Status {
		case checks.Passed, checks.Failed, checks.Waiting, checks.Unknown, checks.Error:
		default:
			t.Errorf("%s: status %q", r.ID, r.Status)
		}
		for _, s := range []string{r.Message, r.Expected, r.Observed} {
			if rePlaceholder.MatchString(s) || reRawKey.MatchString(s) {
				t.Errorf("%s: unfilled text in %q", r.ID, s)
			}
		}
		if r.Message == "" {
			t.Errorf("%s: empty message", r.ID)
		}
		if r.Status == checks.Failed && (r.Expected == "" || r.Observed == "") {
			t.Errorf("%s: failure without expected/observed: %+v", r.ID, r)
		}
	}
	for _, f := range ev.Observed {
		if f.Label == "" || rePlaceholder.MatchString(f.Label+f.Value) || reRawKey.MatchString(f.Label+f.Value) {
			t.Errorf("bad fact %+v", f)
		}
	}
}

func assertAllPassed(t *testing.T, ev checks.StepEval, n int) {
	t.Helper()
	for _, r := range ev.Checks {
		if r.Status != checks.Passed {
			t.Errorf("%s: %s: %s", r.ID, r.Status, r.Message)
		}
	}
	if len(ev.Checks) != n {
		t.Errorf("%d checks, want %d: %v", len(ev.Checks), n, ids(ev))
	}
}

func result(t *testing.T, ev checks.StepEval, id string) checks.Result {
	t.Helper()
	for _, r := range ev.Checks {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no check %s in %v", id, ids(ev))
	return checks.Result{}
}

func ids(ev checks.StepEval) []string {
	var out []string
	for _, r := range ev.Checks {
		out = append(out, r.ID+"="+string(r.Status))
	}
	return out
}

func fact(ev checks.StepEval, label string) string {
	for _, f := range ev.Observed {
		if f.Label == label {
			return f.Value
		}
	}
	return ""
}

// variant is one way a learner can be wrong: the fixture that shows it,
// the checks it must fail (every other check of the step must pass unless
// listed in others), and words the failure must contain.
type variant struct {
	name    string
	fixture string // under testdata/files, replacing the step's file
	fail    map[string][]string
	wait    []string      // checks that must be waiting
	others  checks.Status // what the unlisted checks must be; "" means Passed
	// probe, when set, runs the step's script probe for real first.
	probe *scriptprobe.Options
	// started, when set, is what the script prints before it hangs until
	// the probe's timeout ends it (see hanging).
	started string
	// unless names a host path whose existence would change the outcome
	// (a real containerd binary, a real config): the case is skipped.
	unless string
}

func runVariants(t *testing.T, s checks.Step, rel string, vs []variant) {
	t.Helper()
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			if _, err := os.Stat(v.unless); v.unless != "" && err == nil {
				t.Skipf("%s exists on this host", v.unless)
			}
			root := labRoot(t, map[string]string{rel: v.fixture})
			var runs []observe.Observation
			switch {
			case v.probe != nil && v.started != "":
				runs, v = hanging(t, root, v)
			case v.probe != nil:
				runs = probeScript(t, root, *v.probe)
			}
			ev := evalStep(t, s, root, observeRoot(t, root, runs...))
			assertOutcome(t, ev, v)
		})
	}
}

// hanging probes a script that prints v.started, then hangs until the
// probe's timeout ends it. The timeout is the case under test, but the
// script's getting to its hang is a must, and a loaded machine may take
// longer than the timeout for that (at load 24, 0.5 s ended a script
// before its first line): while a run ended before printing v.started,
// the script runs again with twice the timeout, up to one of 30 s or
// more. The words of v that name the first timeout then name the one
// the runs had.
func hanging(t *testing.T, root string, v variant) ([]observe.Observation, variant) {
	t.Helper()
	opts := *v.probe
	first := opts.Timeout
	for {
		runs := probeScript(t, root, opts)
		started := true
		for _, o := range runs {
			if o.Script != nil && !strings.Contains(o.Script.Output, v.started) {
				started = false
			}
		}
		if started || opts.Timeout >= 30*time.Second {
			if opts.Timeout != first {
				fail := map[string][]string{}
				for id, words := range v.fail {
					for _, w := range words {
						fail[id] = append(fail[id], strings.ReplaceAll(w, content.Duration(first), content.Duration(opts.Timeout)))
					}
				}
				v.fail = fail
			}
			return runs, v
		}
		t.Logf("a run ended by its %v timeout before it printed %q (a loaded machine): again with %v", opts.Timeout, v.started, 2*opts.Timeout)
		opts.Timeout *= 2
	}
}

func assertOutcome(t *testing.T, ev checks.StepEval, v variant) {
	t.Helper()
	others := v.others
	if others == "" {
		others = checks.Passed
	}
	waits := map[string]bool{}
	for _, id := range v.wait {
		waits[id] = true
		result(t, ev, id)
	}
	for _, r := range ev.Checks {
		words, listed := v.fail[r.ID]
		if waits[r.ID] {
			if r.Status != checks.Waiting {
				t.Errorf("%s: %s, want waiting: %s", r.ID, r.Status, r.Message)
			}
			continue
		}
		if !listed {
			// A file that could be read stays passed whatever is in it.
			if strings.HasSuffix(r.ID, ".file") && r.Status != checks.Passed {
				t.Errorf("%s: %s, want passed: %s", r.ID, r.Status, r.Message)
			} else if !strings.HasSuffix(r.ID, ".file") && r.Status != others {
				t.Errorf("%s: %s, want %s: %s", r.ID, r.Status, others, r.Message)
			}
			continue
		}
		if r.Status != checks.Failed {
			t.Errorf("%s: %s, want failed: %s", r.ID, r.Status, r.Message)
			continue
		}
		for _, w := range words {
			if !strings.Contains(r.Message, w) {
				t.Errorf("%s: message lacks %q:\n%s", r.ID, w, r.Message)
			}
		}
	}
	for id := range v.fail {
		result(t, ev, id)
	}
	want := checks.Failed
	if len(v.fail) == 0 && len(v.wait) == 0 && others == checks.Passed {
		want = checks.Passed // a right variant
	}
	if checks.Aggregate(ev.Checks) != want {
		t.Errorf("step status %s, want %s", checks.Aggregate(ev.Checks), want)
	}
}
