package compare

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

func gpuLab(t *testing.T) *content.Lab {
	t.Helper()
	l, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func write(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFilesAreTheSolutions(t *testing.T) {
	l := gpuLab(t)
	for n, want := range map[int][]string{
		1: {"etc/containerd/config.toml"},
		4: {"bin/check-runtime.sh"},
		5: {"k8s/runtimeclass.yaml", "k8s/gpu-pod.yaml"},
		6: nil, // a script only
	} {
		if got := Files(l, n); !slices.Equal(got, want) {
			t.Errorf("step %d: %v, want %v", n, got, want)
		}
	}
}

func TestTheReferenceItselfIsTheSame(t *testing.T) {
	l := gpuLab(t)
	root := t.TempDir()
	ref, _ := l.ReadFile("reference/etc/containerd/config.toml")
	write(t, root, "etc/containerd/config.toml", string(ref))
	c := Of(l, 1, root)
	if len(c.Files) != 1 || !c.Files[0].Same || len(c.Files[0].Hunks) != 0 {
		t.Errorf("%+v", c)
	}
}

// A drop-in without version and with a comment: the lines differ, the
// lab's declared equivalent says why the missing version is right.
func TestADeclaredDifferenceIsExplained(t *testing.T) {
	l := gpuLab(t)
	root := t.TempDir()
	ref, _ := l.ReadFile("reference/etc/containerd/conf.d/99-nvidia.toml")
	mine := "# mine\n" + strings.Replace(string(ref), "version = 2\n", "", 1)
	write(t, root, "etc/containerd/conf.d/99-nvidia.toml", mine)
	c := Of(l, 2, root)
	if len(c.Files) != 1 {
		t.Fatalf("%+v", c)
	}
	f := c.Files[0]
	var ref1, mine1 []string
	for _, h := range f.Hunks {
		for _, ln := range h.Lines {
			switch ln.Kind {
			case Reference:
				ref1 = append(ref1, ln.Text)
			case Learner:
				mine1 = append(mine1, ln.Text)
			}
		}
	}
	if !slices.Contains(ref1, "version = 2") || !slices.Contains(mine1, "# mine") || f.Same || f.SameMeaning {
		t.Errorf("diff: reference-only %q, learner-only %q, %+v", ref1, mine1, f)
	}
	if len(c.Explained) != 1 || c.Explained[0].Field != "version" || !strings.Contains(c.Explained[0].Reason, "version 이 없는 드롭인도 맞습니다") {
		t.Errorf("explained %+v", c.Explained)
	}
}

// Reordered keys and other quoting: the text differs, the values do not.
func TestSameMeaning(t *testing.T) {
	l := gpuLab(t)
	root := t.TempDir()
	write(t, root, "k8s/runtimeclass.yaml", "kind: RuntimeClass\napiVersion: node.k8s.io/v1\nhandler: 'nvidia'\nmetadata:\n  name: \"nvidia\"\n")
	c := Of(l, 5, root)
	var rc, pod File
	for _, f := range c.Files {
		switch f.Path {
		case "k8s/runtimeclass.yaml":
			rc = f
		case "k8s/gpu-pod.yaml":
			pod = f
		}
	}
	if !rc.SameMeaning || rc.Same {
		t.Errorf("runtimeclass: %+v", rc)
	}
	if !pod.Missing {
		t.Errorf("a file the learner has not is missing: %+v", pod)
	}
	if !c.Script {
		t.Error("step 5's solution runs commands")
	}
}

func TestUnderNamesAFieldAndBelow(t *testing.T) {
	eqs := []content.Equivalent{
		{Under: "k8s/p.yaml spec.containers[0].command", Reason: "command"},
		{Mutant: "field k8s/p.yaml set spec.containers[0].name \"x\"", Reason: "name"},
		{Mutant: "early", Reason: "order"},
	}
	ref := []byte("spec:\n  containers:\n  - name: a\n    image: i\n    command: [sleep, '1']\n")
	mine := []byte("spec:\n  containers:\n  - name: b\n    image: i\n    command: [sleep, '2']\n")
	got := explain(eqs, "k8s/p.yaml", ref, mine)
	var reasons []string
	for _, e := range got {
		reasons = append(reasons, e.Reason+"@"+e.Field)
	}
	want := []string{"command@spec.containers[0].command[1]", "name@spec.containers[0].name"}
	if !slices.Equal(reasons, want) {
		t.Errorf("%v, want %v", reasons, want)
	}
	if got := explain(eqs, "k8s/other.yaml", ref, mine); len(got) != 0 {
		t.Errorf("another file's: %v", got)
	}
}

// BenchmarkOf is the compare key's cost: step 5's two manifests read,
// diffed and parsed (the learner's pod with another image and command).
//
//	go test ./labkit/compare -run '^$' -bench Of -benchmem
func BenchmarkOf(b *testing.B) {
	l, err := content.Load("gpu-incident")
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	for _, p := range []string{"k8s/runtimeclass.yaml", "k8s/gpu-pod.yaml"} {
		ref, _ := l.ReadFile("reference/" + p)
		body := strings.ReplaceAll(string(ref), "sleep", "pause")
		if err := os.MkdirAll(filepath.Join(root, "k8s"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if c := Of(l, 5, root); len(c.Files) != 2 {
			b.Fatal(c)
		}
	}
}
