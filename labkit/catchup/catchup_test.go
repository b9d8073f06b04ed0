package catchup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/kube/kubefake"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/observe/scriptprobe"
	"github.com/labhub/labmate/state"
)

// TestMain gives the test binary the script sandbox's helper entry that
// cmd/labmate has: gpu-incident's step 4 runs the learner's script.
func TestMain(m *testing.M) {
	if scriptprobe.IsInit() {
		scriptprobe.InitMain()
	}
	os.Exit(m.Run())
}

var t0 = time.Date(2026, 12, 7, 12, 30, 5, 0, time.UTC)

// learner is a learner's lab at root: their state and their live run
// (the cluster on conn, or turned off when conn is nil).
type learner struct {
	kit   *labkit.Lab
	root  string
	store *state.Store
}

func newLearner(t *testing.T, id string) *learner {
	t.Helper()
	kit, err := labkit.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "lab")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return &learner{kit: kit, root: root, store: labkittest.Store(t, kit, root)}
}

func (l *learner) options(t *testing.T, to int, conn kube.Conn) Options {
	t.Helper()
	f, err := l.store.Load()
	if err != nil {
		t.Fatal(err)
	}
	cl := kube.Target{Off: true}
	if conn != nil {
		cl = kube.Target{Conn: conn}
	}
	run, err := labrun.New(labrun.Options{Lab: l.kit.Text, Steps: l.kit.Steps, Scope: l.kit.Scope, Root: l.root, Cluster: cl,
		Progress: l.store, Witness: f.Witness, Passed: f.Progress.Done()})
	if err != nil {
		t.Fatal(err)
	}
	return Options{Kit: l.kit, Root: l.root, Run: run, Cluster: cl, Progress: l.store, To: to, Timeout: 30 * time.Second,
		Now: func() time.Time { return t0 }}
}

func (l *learner) write(t *testing.T, rel string, b []byte, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(l.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, mode); err != nil {
		t.Fatal(err)
	}
}

func reference(t *testing.T, lab *content.Lab, rel string) []byte {
	t.Helper()
	b, err := fs.ReadFile(lab.FS, lab.Answers+"/"+rel)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tree is every file under dir with its mode and a hash of its bytes.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := ""
		if fi.Mode().IsRegular() {
			sum = fmt.Sprintf("%x", sha256.Sum256(read(t, p)))
		}
		fmt.Fprintf(&b, "%s %v %s\n", rel, fi.Mode(), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// gpu-incident's file steps, caught up from a learner stuck on step 1
// with step 2 done their own way: step 1, 3 and 4 get the reference, the
// learner's wrong config is kept in the dated backup folder, step 2 is
// left alone, and the state says caught up, not passed.
func TestCatchUpFileStepsKeepsTheLearnersFiles(t *testing.T) {
	l := newLearner(t, "gpu-incident")
	text := l.kit.Text
	const mainConfig, dropin = "etc/containerd/config.toml", "etc/containerd/conf.d/99-nvidia.toml"
	wrong := bytes.Replace(reference(t, text, mainConfig), []byte("SystemdCgroup = true"), []byte(`SystemdCgroup = "true"`), 1)
	if bytes.Equal(wrong, reference(t, text, mainConfig)) {
		t.Fatal("the reference config has no SystemdCgroup = true to break")
	}
	l.write(t, mainConfig, wrong, 0o600)
	// Step 2 the learner's own way: the reference with a comment of theirs.
	mine := append([]byte("# 내가 쓴 드롭인\n"), reference(t, text, dropin)...)
	l.write(t, dropin, mine, 0o644)

	ctx := context.Background()
	o := l.options(t, 5, nil)
	var heard []int // what a class's publisher would hear
	o.CaughtUp = func(n int) { heard = append(heard, n) }
	p, err := New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var plan bytes.Buffer
	p.Write(&plan)
	t.Logf("plan:\n%s", plan.String())
	if len(p.Steps) != 4 {
		t.Fatalf("plan has %d steps, want 4 (1..4)", len(p.Steps))
	}
	if s := p.Steps[0]; s.Keep || s.Status != checks.Failed || len(s.Backup) != 1 || s.Backup[0] != mainConfig {
		t.Errorf("step 1 planned as %+v, want its reference written and the learner's config backed up", s)
	}
	if s := p.Steps[1]; !s.Keep {
		t.Errorf("step 2 (the learner's own passing drop-in) planned as %+v, want left alone", s)
	}
	if p.Sandbox != "" || p.Empty() {
		t.Errorf("plan touches the cluster %q or is empty %v", p.Sandbox, p.Empty())
	}
	wantBackup := filepath.Join(l.root, "labmate-backup-20261207-123005")
	if !strings.Contains(plan.String(), content.Msg("catchup.plan.backup", "n", p.keeps(), "dir", wantBackup)) || p.keeps() != len(p.Steps[0].Backup) {
		t.Errorf("the plan keeps %d files, want step 1's %v once each:\n%s", p.keeps(), p.Steps[0].Backup, plan.String())
	}
	if p.Backup != wantBackup || !strings.Contains(plan.String(), wantBackup) || !strings.Contains(plan.String(), mainConfig) {
		t.Errorf("backup %q; the plan must name it and the files it writes:\n%s", p.Backup, plan.String())
	}
	if _, err := os.Stat(wantBackup); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("planning made the backup folder (%v): nothing may change before Do", err)
	}
	if !bytes.Equal(read(t, filepath.Join(l.root, mainConfig)), wrong) {
		t.Fatal("planning changed the learner's config")
	}

	var progress bytes.Buffer
	if err := p.Do(ctx, &progress); err != nil {
		t.Fatalf("Do: %v\n%s", err, progress.String())
	}
	if got := read(t, filepath.Join(l.root, mainConfig)); !bytes.Equal(got, reference(t, text, mainConfig)) {
		t.Errorf("config after catch-up is not the reference:\n%s", got)
	}
	kept := filepath.Join(wantBackup, filepath.FromSlash(mainConfig))
	if got := read(t, kept); !bytes.Equal(got, wrong) {
		t.Errorf("backup holds %q, want the learner's config", got)
	}
	if fi, err := os.Stat(kept); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v (%v), want the learner's 0600", fi.Mode(), err)
	}
	if got := read(t, filepath.Join(l.root, dropin)); !bytes.Equal(got, mine) {
		t.Error("the learner's passing drop-in was replaced")
	}
	if fi, err := os.Stat(filepath.Join(l.root, "bin/check-runtime.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("check script %v (%v), want it executable as the reference says", fi, err)
	}
	rep := p.st.Last()
	for n := 1; n <= 4; n++ {
		if st := rep.Step(n); st == nil || st.Status != checks.Passed {
			t.Errorf("step %d after catch-up: %+v", n, st)
		}
	}
	// The learner's run records every passing step it sees; the caught-up
	// ones stay caught up.
	f, err := l.store.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3, 4} {
		if !f.Progress.IsCaughtUp(n) {
			t.Errorf("step %d not recorded as caught up: %+v", n, f.Progress)
		}
		if _, ok := f.Progress.PassedAt[n]; ok {
			t.Errorf("caught-up step %d recorded as passed", n)
		}
	}
	if f.Progress.IsCaughtUp(2) {
		t.Error("step 2, the learner's own, recorded as caught up")
	}
	if !slices.Equal(heard, []int{1, 3, 4}) {
		t.Errorf("CaughtUp heard %v, want the caught-up steps 1, 3, 4 in order", heard)
	}
	// The plan says which steps it caught up, at the times the progress
	// keeps (the TUI's ending tells them from the learner's passes).
	if got := p.CaughtUp(); !maps.EqualFunc(got, f.Progress.CaughtUpAt, time.Time.Equal) {
		t.Errorf("CaughtUp() = %v, want the progress's %v", got, f.Progress.CaughtUpAt)
	}
	if _, ok := f.Progress.PassedAt[2]; !ok {
		t.Errorf("step 2, the learner's own pass, not recorded: %+v", f.Progress)
	}
	p.Close()

	// Again, with the learner's config broken again at the same second: a
	// new backup folder, the first one untouched.
	first := tree(t, wantBackup)
	l.write(t, mainConfig, wrong, 0o600)
	again, err := New(ctx, l.options(t, 5, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if s := again.Steps[0]; s.Keep {
		t.Fatalf("step 1 broken again planned as kept: %+v", s)
	}
	for _, s := range again.Steps[1:] {
		if !s.Keep {
			t.Errorf("step %d, passing, planned as %+v", s.Number, s)
		}
	}
	if err := again.Do(ctx, &progress); err != nil {
		t.Fatal(err)
	}
	if again.Backup != wantBackup+"-2" {
		t.Errorf("second backup at %q, want %q", again.Backup, wantBackup+"-2")
	}
	if tree(t, wantBackup) != first {
		t.Error("the first backup changed")
	}
	if got := read(t, filepath.Join(again.Backup, filepath.FromSlash(mainConfig))); !bytes.Equal(got, wrong) {
		t.Error("second backup does not hold the learner's config")
	}
	again.Close()

	// Nothing left to do: an empty plan, no backup made.
	done, err := New(ctx, l.options(t, 5, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer done.Close()
	if !done.Empty() || done.Backup != "" {
		t.Errorf("everything passes, yet the plan is %+v (backup %q)", done.Steps, done.Backup)
	}
}

// A catch-up that needs the cluster refuses in Korean on anything but a
// labmate sandbox, and changes nothing: no file, no backup, no record.
func TestCatchUpRefusesWithoutTheSandboxAndChangesNothing(t *testing.T) {
	l := newLearner(t, "gpu-incident")
	l.write(t, "etc/containerd/config.toml", []byte("version = 2\n"), 0o644)
	l.write(t, "k8s/gpu-pod.yaml", []byte("kind: Pod\n"), 0o644)
	before := tree(t, l.root)
	cases := []struct {
		name string
		conn kube.Conn
		says string
	}{
		{"no cluster", nil, "샌드박스가 있어야 합니다"},
		{"not a sandbox", kubefake.NewConn(kubefake.New(), nil), "샌드박스가 아니라서"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := l.options(t, 6, nil)
			o.Cluster = kube.Target{Conn: c.conn}
			p, err := New(context.Background(), o)
			var r *Refusal
			if !errors.As(err, &r) {
				p.Close()
				t.Fatalf("New = %v, want a refusal", err)
			}
			if !strings.Contains(r.Msg, c.says) || !strings.Contains(r.Msg, "바꾸지 않았습니다") {
				t.Errorf("refusal %q, want one saying %q and that nothing changed", r.Msg, c.says)
			}
			if p != nil {
				t.Error("a refused plan was returned")
			}
			if after := tree(t, l.root); after != before {
				t.Errorf("the learner's root changed:\nbefore\n%s\nafter\n%s", before, after)
			}
			f, _ := l.store.Load()
			if len(f.Progress.CaughtUpAt) != 0 {
				t.Errorf("refused catch-up recorded %v", f.Progress.CaughtUpAt)
			}
		})
	}
}

func TestCatchUpRefusesAStepItCannotReach(t *testing.T) {
	l := newLearner(t, "gpu-incident")
	n := len(l.kit.Steps)
	for _, to := range []int{0, 1, n + 1} {
		if p, err := New(context.Background(), l.options(t, to, nil)); err == nil {
			p.Close()
			t.Errorf("--to %d accepted", to)
		} else if !strings.Contains(err.Error(), "--to") {
			t.Errorf("--to %d refused with %q", to, err)
		}
	}
	// A lab whose step 2 has no reference cannot be caught up past it.
	// The lab is the one labkit.Open shares with every test of this
	// binary: the copy takes its own verify.toml, never changing theirs.
	text := *l.kit.Text
	verify := *text.Verify
	verify.Steps = append([]content.VerifyStep{verify.Steps[0]}, verify.Steps[2:]...)
	text.Verify = &verify
	kit := *l.kit
	kit.Text = &text
	l.kit = &kit
	_, err := New(context.Background(), l.options(t, 3, nil))
	if err == nil || !strings.Contains(err.Error(), "참고 답이 없어서") {
		t.Errorf("catch-up past a step with no reference: %v", err)
	}
	if _, err := New(context.Background(), l.options(t, 2, nil)); err != nil {
		t.Errorf("catch-up to step 2 (step 1 has its reference): %v", err)
	}
}
