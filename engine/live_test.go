package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/files"
	"github.com/labhub/labmate/observe/scriptprobe"
)

// liveLab runs the real GPU incident checks over a temp root with the real
// file watcher and script prober, as `labmate` does.
type liveLab struct {
	t       *testing.T
	root    string
	reports <-chan engine.Report
	last    engine.Report
}

func startLive(t testing.TB, debounce time.Duration) *liveLab {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	e := engine.New(engine.Config{Lab: lab, Steps: labkittest.GPUSteps(t), Root: root})
	srcs := []observe.Source{
		files.New(files.Options{Root: root, Paths: e.Files(), Debounce: debounce}),
		// The learner's script ends on its own: 30 s, not the shipped 5,
		// so that a loaded machine's slow start is not a timeout.
		scriptprobe.New(root, e.Probes(), scriptprobe.Options{Timeout: 30 * time.Second}),
	}
	reports, stop := e.Start(context.Background(), srcs)
	t.Cleanup(stop)
	l := &liveLab{root: root, reports: reports}
	if tt, ok := t.(*testing.T); ok {
		l.t = tt
	}
	return l
}

// until waits for a report in which step n has the wanted status.
func (l *liveLab) until(t testing.TB, n int, want checks.Status) engine.Report {
	t.Helper()
	// Long enough for a loaded machine; met at once when the code is right.
	deadline := time.After(60 * time.Second)
	for {
		if l.last.Ready && l.last.Step(n) != nil && l.last.Step(n).Status == want {
			return l.last
		}
		select {
		case l.last = <-l.reports:
		case <-deadline:
			st := l.last.Step(n)
			t.Fatalf("step %d never became %s; last: %+v", n, want, st)
		}
	}
}

func (l *liveLab) put(t testing.TB, rel string, body []byte, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(l.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	// Write then rename, as editors do.
	tmp := p + ".tmp~"
	if err := os.WriteFile(tmp, body, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

func reference(t testing.TB, rel string) ([]byte, os.FileMode) {
	t.Helper()
	p := filepath.Join("..", "content", "labs", "gpu-incident", "reference", rel)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	return b, fi.Mode().Perm()
}

// Steps 1-4 turn green as the learner writes each file and back to red
// when a file is broken or removed, with the watcher running throughout.
func TestFileStepsFollowTheLearnersEdits(t *testing.T) {
	l := startLive(t, 20*time.Millisecond)
	// Nothing written yet: 1, 2 and 4 fail; 3 waits for 1 and 2's files.
	for _, n := range []int{1, 2, 4} {
		l.until(t, n, checks.Failed)
	}
	l.until(t, 3, checks.Waiting)

	steps := []struct {
		n    int
		file string
		// broken is a wrong version of the file that must turn the step red.
		broken func([]byte) []byte
	}{
		{1, "etc/containerd/config.toml", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), "SystemdCgroup = true", `SystemdCgroup = "true"`, 1))
		}},
		{2, "etc/containerd/conf.d/99-nvidia.toml", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), "/usr/bin/nvidia-container-runtime", "/usr/bin/runc", 1))
		}},
		{3, "out/merge.txt", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), "LOADED_RUNTIMES=runc", "LOADED_RUNTIMES=nvidia,runc", 1))
		}},
		{4, "bin/check-runtime.sh", func(b []byte) []byte {
			return []byte(strings.Replace(string(b), "containerd config dump", "cat /etc/containerd/config.toml", 1))
		}},
	}
	for _, s := range steps {
		body, mode := reference(t, s.file)
		l.put(t, s.file, body, mode)
		rep := l.until(t, s.n, checks.Passed)
		for m := 1; m < s.n; m++ {
			if st := rep.Step(m).Status; st != checks.Passed {
				t.Fatalf("step %d turned %s when step %d passed", m, st, s.n)
			}
		}
		l.put(t, s.file, s.broken(body), mode)
		rep = l.until(t, s.n, checks.Failed)
		if msg := failing(rep.Step(s.n)); msg == "" {
			t.Fatalf("step %d failed without a message", s.n)
		}
		l.put(t, s.file, body, mode)
		l.until(t, s.n, checks.Passed)
	}

	// Deleting what step 1 made turns it red again; steps 2-4 do not pass
	// on a main config that is gone: 3 cannot derive its verdict.
	if err := os.Remove(filepath.Join(l.root, "etc/containerd/config.toml")); err != nil {
		t.Fatal(err)
	}
	rep := l.until(t, 1, checks.Failed)
	if st := rep.Step(3).Status; st == checks.Passed {
		t.Fatalf("step 3 still passed without the main config")
	}
}

func failing(st *engine.StepResult) string {
	for _, c := range st.Checks {
		if c.Status != checks.Passed && c.Message != "" {
			return c.Message
		}
	}
	return ""
}

// BenchmarkFileWriteToResult measures the time from a learner's file write
// to the report in which the step's status reflects it, through the real
// watcher and checks, as shipped: a right save is shown at once, a wrong
// one once the file was quiet for the settle window. Reported: median and
// p99 of each.
//
//	go test ./engine -run '^$' -bench FileWriteToResult -benchtime 100x
func BenchmarkFileWriteToResult(b *testing.B) {
	l := startLive(b, 0) // 0: the watcher's default debounce, as shipped
	good, mode := reference(b, "etc/containerd/config.toml")
	bad := []byte(strings.Replace(string(good), "version = 2", `version = "2"`, 1))
	l.until(b, 1, checks.Failed)
	var right, wrong []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body, want, lat := good, checks.Passed, &right
		if i%2 == 1 {
			body, want, lat = bad, checks.Failed, &wrong
		}
		start := time.Now()
		l.put(b, "etc/containerd/config.toml", body, mode)
		l.until(b, 1, want)
		*lat = append(*lat, time.Since(start))
	}
	b.StopTimer()
	for _, m := range []struct {
		name string
		lat  []time.Duration
	}{{"right", right}, {"wrong", wrong}} {
		if len(m.lat) == 0 {
			continue
		}
		sort.Slice(m.lat, func(i, j int) bool { return m.lat[i] < m.lat[j] })
		b.ReportMetric(float64(m.lat[len(m.lat)/2].Microseconds())/1000, m.name+"-median-ms")
		b.ReportMetric(float64(m.lat[(len(m.lat)*99)/100].Microseconds())/1000, m.name+"-p99-ms")
	}
}
