package gpuincident

import (
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
)

// Every state a lab file can be in, for each step's own file: the file
// check fails saying what was expected and what was found, the rest
// waits, nothing panics.
func TestFileStepsOnBrokenInput(t *testing.T) {
	steps := []struct {
		step checks.Step
		rel  string
		id   string
	}{
		{stepMainConfig, mainConfigPath, "main-config.file"},
		{stepDropIn, dropInPath, "dropin.file"},
		{stepMergeVerdict, mergePath, "merge-verdict.file"},
		{stepCheckScript, checkScriptPath, "check-script.file"},
	}
	states := []struct {
		name   string
		break_ func(t *testing.T, full string) *observe.FileObs // returns an observation to apply instead of the file source's
		words  []string
	}{
		{"missing", func(t *testing.T, full string) *observe.FileObs {
			mustNil(t, os.Remove(full))
			return nil
		}, []string{"파일이 없습니다", "만들어야"}},
		{"a directory", func(t *testing.T, full string) *observe.FileObs {
			mustNil(t, os.Remove(full))
			mustNil(t, os.MkdirAll(filepath.Join(full, "inner"), 0o755))
			return nil
		}, []string{"디렉터리가 있습니다", "일반 파일"}},
		{"50 MB", func(t *testing.T, full string) *observe.FileObs {
			// Sparse: 50 MB on paper, nothing on disk, nothing in git.
			mustNil(t, os.Truncate(full, 50<<20))
			return nil
		}, []string{"너무 큽니다", "52428800", strconv.Itoa(observe.MaxFileSize)}},
		{"unreadable", func(t *testing.T, full string) *observe.FileObs {
			// Tests run as root, who reads anything: observe what the
			// file source reports for a file it may not open.
			return &observe.FileObs{State: observe.FileUnreadable, Err: "open " + full + ": permission denied"}
		}, []string{"읽을 수 없습니다", "permission denied", "ls -l"}},
		{"binary junk", func(t *testing.T, full string) *observe.FileObs {
			mustNil(t, os.WriteFile(full, []byte("\x7fELF\x02\x01\x01\x00\x00\x00"), 0o755))
			return nil
		}, []string{"텍스트 파일이 아닙니다", "8번째 바이트", "NUL"}},
		{"empty", func(t *testing.T, full string) *observe.FileObs {
			mustNil(t, os.WriteFile(full, []byte("\n  \n"), 0o755))
			return nil
		}, []string{"비어 있습니다"}},
	}
	for _, s := range steps {
		for _, st := range states {
			t.Run(s.id+"/"+st.name, func(t *testing.T) {
				root := labRoot(t, nil)
				full := filepath.Join(root, s.rel)
				var extra []observe.Observation
				if f := st.break_(t, full); f != nil {
					f.Path = s.rel
					extra = append(extra, observe.Observation{Time: time.Now(), File: f})
				}
				ev := evalStep(t, s.step, root, observeRoot(t, root, extra...))
				words := append([]string{full}, st.words...)
				assertOutcome(t, ev, variant{others: checks.Waiting, fail: map[string][]string{s.id: words}})
				if r := result(t, ev, s.id); r.Expected == "" || r.Observed == "" || r.Where == "" {
					t.Errorf("incomplete result %+v", r)
				}
			})
		}
	}
}

func mustNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The steps are registered with the paths and the probe the engine
// needs to feed them.
func TestFileStepsRegistered(t *testing.T) {
	steps := steps()
	if len(steps) < 4 {
		t.Fatalf("steps %v", steps)
	}
	want := [][]string{{mainConfigPath}, {dropInPath, mainConfigPath}, {mainConfigPath, dropInPath, mergePath}, {checkScriptPath}}
	for i, s := range steps[:4] {
		if s.Number != i+1 || s.Eval == nil || strings.Join(s.Files, ",") != strings.Join(want[i], ",") {
			t.Errorf("step %d: %+v", i+1, s)
		}
	}
	if steps[3].Probe == nil || steps[0].Probe != nil {
		t.Error("only step 4 probes a script")
	}
}

// Mangled versions of the reference files never make a check panic, and
// every result stays well formed.
func TestFileChecksSurviveMangledInput(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	junk := []string{"[", "]", "\"", "'", "=", "\n", ".", "[[", "]]", "{", "}", "\x00", "\xff", "#", "\r", " ", "\"\"\"", "true", "-"}
	refs := map[string]string{}
	for _, rel := range labPaths {
		refs[rel] = readFixture(t, filepath.Join(reference, rel))
	}
	root := t.TempDir()
	for i := 0; i < 300; i++ {
		st := observe.NewStore()
		for _, rel := range labPaths {
			b := []byte(refs[rel])
			for n := rng.Intn(4); n > 0; n-- {
				at := rng.Intn(len(b) + 1)
				cut := min(at+rng.Intn(8), len(b))
				b = append(append(append([]byte(nil), b[:at]...), junk[rng.Intn(len(junk))]...), b[cut:]...)
			}
			st.Apply(observe.Observation{File: &observe.FileObs{Path: rel, State: observe.FilePresent, Content: b, Size: int64(len(b)), Mode: 0o755}})
		}
		snap := st.Snapshot()
		for _, s := range []checks.Step{stepMainConfig, stepDropIn, stepMergeVerdict, stepCheckScript} {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("round %d, %s panicked: %v", i, s.ID, r)
					}
				}()
				evalStep(t, s, root, snap)
			}()
		}
	}
}

func FuzzTOMLChecks(f *testing.F) {
	for _, rel := range []string{mainConfigPath, dropInPath} {
		b, err := os.ReadFile(filepath.Join(reference, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st := observe.NewStore()
		for _, rel := range labPaths {
			st.Apply(observe.Observation{File: &observe.FileObs{Path: rel, State: observe.FilePresent, Content: b, Size: int64(len(b)), Mode: 0o755}})
		}
		snap := st.Snapshot()
		for _, s := range []checks.Step{stepMainConfig, stepDropIn, stepMergeVerdict, stepCheckScript} {
			s.Eval(checks.Input{Lab: text(), Snap: snap, Root: "/lab"})
		}
	})
}
