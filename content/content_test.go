package content

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/pelletier/go-toml/v2"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// referenceDir is the worked answer of the GPU incident lab, laid out as a
// lab root. The solutions show these files byte for byte; other packages'
// tests use them as the known-good input.
// gpuLabID is the GPU incident lab, the one these tests read.
const gpuLabID = "gpu-incident"

const referenceDir = "labs/gpu-incident/reference"

// The exact keys, in order, of the files the learner computes (LAB-SPEC.md).
var (
	mergeKeys    = []string{"MAIN_RUNTIMES", "DROPIN_RUNTIMES", "CONFLICT", "CONFLICT_TABLE", "LOADED_RUNTIMES"}
	slotsKeys    = []string{"PHYSICAL_GPUS", "REPLICAS", "ADVERTISED", "VRAM_PER_GPU_GIB", "VRAM_GUARANTEED_PER_SLOT_GIB", "VRAM_SHARED_PER_GPU_GIB", "ISOLATION"}
	rolloutKeys  = []string{"DESIRED", "UPDATED", "READY", "OLD_IMAGE_PODS", "MAX_UNAVAILABLE", "BLOCKER"}
	criRuntimes  = []string{"plugins", "io.containerd.grpc.v1.cri", "containerd", "runtimes"}
	runtimeTable = `plugins."io.containerd.grpc.v1.cri".containerd.runtimes`
)

// referenceFiles maps each reference file to the step whose solution shows it.
var referenceFiles = []struct {
	path string
	step int
}{
	{"etc/containerd/config.toml", 1},
	{"etc/containerd/conf.d/99-nvidia.toml", 2},
	{"out/merge.txt", 3},
	{"bin/check-runtime.sh", 4},
	{"k8s/runtimeclass.yaml", 5},
	{"k8s/gpu-pod.yaml", 5},
	{"k8s/time-slicing.yaml", 7},
	{"out/slots.txt", 7},
	{"k8s/toolkit-ds.yaml", 8},
}

func gpuLab(t *testing.T) *Lab {
	t.Helper()
	l, err := Load(gpuLabID)
	if err != nil {
		t.Fatalf("Load(%q): %v", gpuLabID, err)
	}
	return l
}

func step(t *testing.T, n int) Step {
	t.Helper()
	for _, s := range gpuLab(t).Steps {
		if s.Number == n {
			return s
		}
	}
	t.Fatalf("no step %d", n)
	return Step{}
}

func readReference(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(referenceDir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fence is one fenced code block of a markdown text.
type fence struct {
	lang string
	body string // the lines between the fences, each ending in "\n"
}

func fences(md string) []fence {
	var out []fence
	var cur *fence
	for line := range strings.SplitSeq(md, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &fence{lang: strings.TrimSpace(strings.TrimPrefix(line, "```"))}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.body += line + "\n"
		}
	}
	return out
}

func TestLabLoads(t *testing.T) {
	l := gpuLab(t)
	if l.ID != gpuLabID || l.Title == "" {
		t.Errorf("lab ID %q title %q", l.ID, l.Title)
	}
	if !declaredRoot(l.DefaultRoot) {
		t.Errorf("default_root %q is neither under the home (~/) nor absolute", l.DefaultRoot)
	}
	if !strings.Contains(l.Intro, "{{ROOT}}") {
		t.Errorf("intro never names the lab root through {{ROOT}}")
	}
}

func TestStepsNumberedWithUniqueIDs(t *testing.T) {
	l := gpuLab(t)
	if len(l.Steps) != 8 {
		t.Fatalf("%d steps, want 8", len(l.Steps))
	}
	seen := map[string]int{}
	for i, s := range l.Steps {
		if s.Number != i+1 {
			t.Errorf("step at index %d has number %d", i, s.Number)
		}
		if s.ID == "" || s.Title == "" {
			t.Errorf("step %d: ID %q title %q", s.Number, s.ID, s.Title)
		}
		if prev, dup := seen[s.ID]; dup {
			t.Errorf("steps %d and %d share ID %q", prev, s.Number, s.ID)
		}
		seen[s.ID] = s.Number
	}
}

func TestStepTextsAreComplete(t *testing.T) {
	sections := []string{"## 목표", "## 할 일", "## 왜 중요한가"}
	for _, s := range gpuLab(t).Steps {
		lines := strings.Split(s.Body, "\n")
		last := -1
		for _, sec := range sections {
			at := slices.Index(lines, sec)
			if at < 0 {
				t.Errorf("step %d body has no %q heading", s.Number, sec)
				continue
			}
			if at < last {
				t.Errorf("step %d: %q comes before the section above it", s.Number, sec)
			}
			last = at
		}
		if len(s.Hints) < 2 {
			t.Errorf("step %d has %d hints, want at least 2", s.Number, len(s.Hints))
		}
		for i, h := range s.Hints {
			// Hints are shown as they are: one short line, no placeholder.
			if strings.TrimSpace(h) == "" || strings.Contains(h, "\n") || strings.Contains(h, "{{") {
				t.Errorf("step %d hint %d is empty, multi-line or has a placeholder: %q", s.Number, i+1, h)
			}
			if n := len([]rune(h)); n > 240 {
				t.Errorf("step %d hint %d is %d characters; keep hints to a sentence or two", s.Number, i+1, n)
			}
			if slices.Index(s.Hints, h) != i {
				t.Errorf("step %d repeats hint %d", s.Number, i+1)
			}
		}
		if len(fences(s.Solution)) == 0 || strings.Contains(s.Solution, "작성 중") {
			t.Errorf("step %d solution is missing or unfinished", s.Number)
		}
		if s.Number >= 5 && !slices.ContainsFunc(fences(s.Body), func(f fence) bool {
			return f.lang == "sh" && strings.Contains(f.body, "kubectl ")
		}) {
			t.Errorf("step %d works on the cluster but shows no kubectl command in a sh block", s.Number)
		}
	}
}

// Every text the learner reads goes through Expand, so paths must use the
// placeholder, and glyphs of ambiguous width would break the layout.
func TestTextsUsePlaceholderAndPlainGlyphs(t *testing.T) {
	l := gpuLab(t)
	texts := map[string]string{"intro": l.Intro}
	for _, s := range l.Steps {
		texts["step "+strconv.Itoa(s.Number)] = s.Body
		texts["solution "+strconv.Itoa(s.Number)] = s.Solution
		texts["hints "+strconv.Itoa(s.Number)] = strings.Join(s.Hints, "\n")
	}
	for name, text := range texts {
		if strings.Contains(text, l.DefaultRoot) {
			t.Errorf("%s spells out %s instead of {{ROOT}}", name, l.DefaultRoot)
		}
		if strings.Contains(Expand(text, "/lab"), "{{") {
			t.Errorf("%s has a placeholder other than {{ROOT}}", name)
		}
		for _, g := range []string{"•", "·"} {
			if strings.Contains(text, g) {
				t.Errorf("%s uses the ambiguous-width glyph %q", name, g)
			}
		}
	}
}

// Code does not wrap when rendered, so commands and files stay narrow.
// Output examples (text blocks) are quoted verbatim and exempt.
func TestCodeLinesAreNarrow(t *testing.T) {
	const maxWidth = 76
	cond := runewidth.NewCondition()
	cond.EastAsianWidth = false // as labmate sets it at start-up
	for _, s := range gpuLab(t).Steps {
		for what, md := range map[string]string{"step": s.Body, "solution": s.Solution} {
			for _, f := range fences(md) {
				if f.lang == "text" {
					continue
				}
				for line := range strings.SplitSeq(f.body, "\n") {
					if w := cond.StringWidth(line); w > maxWidth {
						t.Errorf("%s %d: %d-column code line: %s", what, s.Number, w, line)
					}
				}
			}
		}
	}
}

func TestStepsNameTheirFiles(t *testing.T) {
	want := map[int][]string{
		1: {"etc/containerd/config.toml"},
		2: {"etc/containerd/conf.d/99-nvidia.toml"},
		3: {"etc/containerd/config.toml", "out/merge.txt"},
		4: {"bin/check-runtime.sh"},
		5: {"k8s/runtimeclass.yaml", "k8s/gpu-pod.yaml", "out/unscheduled.txt"},
		6: {"out/node-gpu.txt"},
		7: {"k8s/time-slicing.yaml", "out/slots.txt"},
		8: {"k8s/toolkit-ds.yaml", "out/rollout.txt"},
	}
	for n, paths := range want {
		s := step(t, n)
		for _, p := range paths {
			if !strings.Contains(s.Body, "{{ROOT}}/"+p) {
				t.Errorf("step %d never names {{ROOT}}/%s", n, p)
			}
		}
	}
}

// The steps list the keys of the computed files in the order the checks
// require.
func TestStepsListKeysInOrder(t *testing.T) {
	for n, keys := range map[int][]string{3: mergeKeys, 7: slotsKeys, 8: rolloutKeys} {
		body := step(t, n).Body
		at := 0
		for _, k := range keys {
			i := strings.Index(body[at:], "`"+k+"=")
			if i < 0 {
				t.Errorf("step %d does not list %s= after the keys before it", n, k)
				break
			}
			at += i + len(k)
		}
	}
}

// Each reference file appears, byte for byte, as a fenced block of the
// solution of its step, and that solution names where it goes.
func TestSolutionsShowReferenceFiles(t *testing.T) {
	for _, rf := range referenceFiles {
		want := string(readReference(t, rf.path))
		sol := step(t, rf.step).Solution
		if !slices.ContainsFunc(fences(sol), func(f fence) bool { return f.body == want }) {
			t.Errorf("solution %d has no block identical to reference %s", rf.step, rf.path)
		}
		if !strings.Contains(sol, "{{ROOT}}/"+rf.path) {
			t.Errorf("solution %d never says where %s goes", rf.step, rf.path)
		}
	}
}

func TestReferenceFilesAreAllAccountedFor(t *testing.T) {
	var onDisk []string
	err := filepath.WalkDir(referenceDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(referenceDir, p)
			onDisk = append(onDisk, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, rf := range referenceFiles {
		listed = append(listed, rf.path)
	}
	sort.Strings(onDisk)
	sort.Strings(listed)
	if !reflect.DeepEqual(onDisk, listed) {
		t.Errorf("reference files on disk %v, listed %v", onDisk, listed)
	}
}

func parseTOML(t *testing.T, rel string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := toml.Unmarshal(readReference(t, rel), &m); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return m
}

// dig walks nested tables; ok is false when a table on the way is missing.
func dig(m map[string]any, keys ...string) (any, bool) {
	var v any = m
	for _, k := range keys {
		t, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = t[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func TestReferenceTOML(t *testing.T) {
	main := parseTOML(t, "etc/containerd/config.toml")
	dropin := parseTOML(t, "etc/containerd/conf.d/99-nvidia.toml")

	if v, _ := dig(main, "version"); v != int64(2) {
		t.Errorf("config.toml version = %#v, want integer 2", v)
	}
	imports, _ := dig(main, "imports")
	items, _ := imports.([]any)
	if !slices.ContainsFunc(items, func(i any) bool {
		s, ok := i.(string)
		return ok && strings.HasSuffix(s, "conf.d/*.toml")
	}) {
		t.Errorf("config.toml imports = %#v, want an item ending in conf.d/*.toml", imports)
	}

	cases := []struct {
		doc  map[string]any
		keys []string
		want any
	}{
		{main, []string{"plugins", "io.containerd.grpc.v1.cri", "containerd", "default_runtime_name"}, "runc"},
		{main, append(slices.Clone(criRuntimes), "runc", "runtime_type"), "io.containerd.runc.v2"},
		{main, append(slices.Clone(criRuntimes), "runc", "options", "SystemdCgroup"), true},
		{dropin, append(slices.Clone(criRuntimes), "nvidia", "runtime_type"), "io.containerd.runc.v2"},
		{dropin, append(slices.Clone(criRuntimes), "nvidia", "options", "BinaryName"), "/usr/bin/nvidia-container-runtime"},
		{dropin, append(slices.Clone(criRuntimes), "nvidia", "options", "SystemdCgroup"), true},
	}
	for _, c := range cases {
		if got, _ := dig(c.doc, c.keys...); got != c.want {
			t.Errorf("%s = %#v, want %#v", strings.Join(c.keys, "."), got, c.want)
		}
	}

	// merge.txt must agree with what the two reference files define.
	runtimeNames := func(doc map[string]any) []string {
		v, _ := dig(doc, criRuntimes...)
		tbl, _ := v.(map[string]any)
		names := make([]string, 0, len(tbl))
		for k := range tbl {
			names = append(names, k)
		}
		sort.Strings(names)
		return names
	}
	mainRT, dropinRT := runtimeNames(main), runtimeNames(dropin)
	conflict := len(mainRT) > 0 && len(dropinRT) > 0
	if !conflict {
		t.Fatalf("reference files do not both define %s", runtimeTable)
	}
	assertKV(t, "out/merge.txt", mergeKeys, map[string]string{
		"MAIN_RUNTIMES":   strings.Join(mainRT, ","),
		"DROPIN_RUNTIMES": strings.Join(dropinRT, ","),
		"CONFLICT":        "yes",
		"CONFLICT_TABLE":  runtimeTable,
		// Observed on the incident node, not derivable from the files.
		"LOADED_RUNTIMES": "runc",
	})
}

// assertKV checks a KEY=VALUE reference file: exactly keys, in order, with
// the wanted values.
func assertKV(t *testing.T, rel string, keys []string, want map[string]string) map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(readReference(t, rel)), "\n"), "\n")
	got := map[string]string{}
	var order []string
	for _, l := range lines {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			t.Errorf("%s: line %q is not KEY=VALUE", rel, l)
			continue
		}
		order = append(order, k)
		got[k] = v
	}
	if !slices.Equal(order, keys) {
		t.Errorf("%s keys %v, want %v", rel, order, keys)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s=%q, want %q", rel, k, got[k], v)
		}
	}
	return got
}

func decodeYAML(t *testing.T, rel string, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(readReference(t, rel), into); err != nil {
		t.Fatalf("%s does not decode strictly: %v", rel, err)
	}
}

func TestReferenceRuntimeClassAndPod(t *testing.T) {
	var rc nodev1.RuntimeClass
	decodeYAML(t, "k8s/runtimeclass.yaml", &rc)
	if rc.APIVersion != "node.k8s.io/v1" || rc.Kind != "RuntimeClass" || rc.Name != "nvidia" || rc.Handler != "nvidia" {
		t.Errorf("RuntimeClass %s %s name %q handler %q", rc.APIVersion, rc.Kind, rc.Name, rc.Handler)
	}

	var pod corev1.Pod
	decodeYAML(t, "k8s/gpu-pod.yaml", &pod)
	if pod.APIVersion != "v1" || pod.Kind != "Pod" || pod.Namespace != "gpu-lab" || pod.Name != "cuda-probe" {
		t.Errorf("Pod %s %s %s/%s", pod.APIVersion, pod.Kind, pod.Namespace, pod.Name)
	}
	if pod.Spec.RuntimeClassName == nil || *pod.Spec.RuntimeClassName != "nvidia" {
		t.Errorf("Pod runtimeClassName = %v, want nvidia", pod.Spec.RuntimeClassName)
	}
	one := resource.MustParse("1")
	if !slices.ContainsFunc(pod.Spec.Containers, func(c corev1.Container) bool {
		q, ok := c.Resources.Limits["nvidia.com/gpu"]
		return ok && q.Cmp(one) == 0
	}) {
		t.Errorf("no container limits nvidia.com/gpu to 1")
	}
}

// timeSlicingConfig is the part of the NVIDIA device plugin's config file
// the lab writes into the ConfigMap; decoding strictly catches misspelt keys.
type timeSlicingConfig struct {
	Version string `json:"version"`
	Flags   struct {
		MigStrategy string `json:"migStrategy"`
	} `json:"flags"`
	Sharing struct {
		TimeSlicing struct {
			RenameByDefault            *bool `json:"renameByDefault,omitempty"`
			FailRequestsGreaterThanOne bool  `json:"failRequestsGreaterThanOne"`
			Resources                  []struct {
				Name     string `json:"name"`
				Replicas int    `json:"replicas"`
			} `json:"resources"`
		} `json:"timeSlicing"`
	} `json:"sharing"`
}

func TestReferenceTimeSlicingAndSlots(t *testing.T) {
	var cm corev1.ConfigMap
	decodeYAML(t, "k8s/time-slicing.yaml", &cm)
	if cm.APIVersion != "v1" || cm.Kind != "ConfigMap" || cm.Namespace != "gpu-operator" || cm.Name != "time-slicing-config" {
		t.Errorf("ConfigMap %s %s %s/%s", cm.APIVersion, cm.Kind, cm.Namespace, cm.Name)
	}
	var cfg timeSlicingConfig
	if err := yaml.UnmarshalStrict([]byte(cm.Data["any"]), &cfg); err != nil {
		t.Fatalf("data.any: %v", err)
	}
	ts := cfg.Sharing.TimeSlicing
	if !ts.FailRequestsGreaterThanOne {
		t.Errorf("failRequestsGreaterThanOne is not true")
	}
	if len(ts.Resources) == 0 || ts.Resources[0].Name != "nvidia.com/gpu" || ts.Resources[0].Replicas != 5 {
		t.Fatalf("resources = %+v, want first {nvidia.com/gpu 5}", ts.Resources)
	}

	// The hardware is given (4 × A100 40 GiB); the rest follows from it and
	// from the ConfigMap.
	const gpus, vram = 4, 40
	replicas := ts.Resources[0].Replicas
	assertKV(t, "out/slots.txt", slotsKeys, map[string]string{
		"PHYSICAL_GPUS":                strconv.Itoa(gpus),
		"REPLICAS":                     strconv.Itoa(replicas),
		"ADVERTISED":                   strconv.Itoa(gpus * replicas),
		"VRAM_PER_GPU_GIB":             strconv.Itoa(vram),
		"VRAM_GUARANTEED_PER_SLOT_GIB": "0",
		"VRAM_SHARED_PER_GPU_GIB":      strconv.Itoa(vram),
		"ISOLATION":                    "none",
	})
}

func TestReferenceToolkitDaemonSet(t *testing.T) {
	var ds appsv1.DaemonSet
	decodeYAML(t, "k8s/toolkit-ds.yaml", &ds)
	if ds.APIVersion != "apps/v1" || ds.Kind != "DaemonSet" || ds.Namespace != "gpu-operator" || ds.Name != "nvidia-container-toolkit" {
		t.Errorf("DaemonSet %s %s %s/%s", ds.APIVersion, ds.Kind, ds.Namespace, ds.Name)
	}
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(ds.Spec.Template.Labels)) {
		t.Errorf("selector %v does not select the template labels %v (%v)", ds.Spec.Selector, ds.Spec.Template.Labels, err)
	}
	us := ds.Spec.UpdateStrategy
	if us.Type != appsv1.RollingUpdateDaemonSetStrategyType || us.RollingUpdate == nil ||
		us.RollingUpdate.MaxUnavailable == nil || us.RollingUpdate.MaxUnavailable.String() != "1" {
		t.Errorf("updateStrategy = %+v, want RollingUpdate with maxUnavailable 1", us)
	}
	cs := ds.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("%d containers, want 1", len(cs))
	}
	if cs[0].Image != "nvcr.io/nvidia/k8s/container-toolkit:v1.16.2" {
		t.Errorf("image %q", cs[0].Image)
	}
	if q := cs[0].Resources.Requests.Memory(); q.Cmp(resource.MustParse("128Mi")) != 0 {
		t.Errorf("memory request %v, want 128Mi", q)
	}
	// Step 8's update patch finds the container by this name.
	if !strings.Contains(step(t, 8).Solution, `"name": "`+cs[0].Name+`"`) {
		t.Errorf("solution 8's patch does not name container %q", cs[0].Name)
	}
}

// fakeContainerd puts an executable named containerd in a new directory: it
// records its argv in argv.log and prints dump.
func fakeContainerd(t *testing.T, dump string) (dir string) {
	t.Helper()
	dir = t.TempDir()
	script := "#!/bin/sh\necho \"$*\" >> \"" + dir + "/argv.log\"\ncat \"" + dir + "/dump\"\n"
	if err := os.WriteFile(filepath.Join(dir, "dump"), []byte(dump), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "containerd"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func needSh(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
}

// runSh runs a shell text with stdin closed and a timeout (30 s: it ends
// at once, but a loaded machine decides when); it returns the combined
// output and the exit code.
func runSh(t *testing.T, env []string, name string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s timed out; output:\n%s", name, out)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return string(out), code
}

// The reference check script is run the way labmate grades it: twice, with
// a fake containerd first on PATH.
func TestReferenceCheckScript(t *testing.T) {
	needSh(t)
	script, err := filepath.Abs(filepath.Join(referenceDir, "bin", "check-runtime.sh"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(readReference(t, "bin/check-runtime.sh"))
	if !strings.HasPrefix(src, "#!") || !strings.Contains(src, "containerd config dump") {
		t.Errorf("script must start with #! and call containerd config dump")
	}
	if strings.Contains(src, "/etc/containerd/config.toml") || strings.Contains(src, "/containerd ") {
		t.Errorf("script names the config file or an absolute containerd path")
	}
	if fi, err := os.Stat(script); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("script is not executable: %v %v", fi, err)
	}
	for _, sc := range []struct {
		name, dump string
		exit       int
	}{
		{"nvidia", "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n", 0},
		{"runc-only", "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n  runtime_type = \"io.containerd.runc.v2\"\n", 1},
		{"nvidia-default-only", "default_runtime_name = \"nvidia\"\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n  BinaryName = \"/usr/bin/nvidia-container-runtime\"\n", 1},
	} {
		fake := fakeContainerd(t, sc.dump)
		out, code := runSh(t, []string{"PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH")}, script)
		if code != sc.exit {
			t.Errorf("%s: exit %d, want %d; output:\n%s", sc.name, code, sc.exit, out)
		}
		argv, _ := os.ReadFile(filepath.Join(fake, "argv.log"))
		if strings.TrimSpace(string(argv)) != "config dump" {
			t.Errorf("%s: fake containerd called with %q, want \"config dump\"", sc.name, argv)
		}
	}
}

// The shell blocks of solutions 1-4 are run, in order, in a lab root that
// holds the files those solutions tell the learner to save; they must
// succeed and produce the reference merge.txt.
func TestFileSolutionsRun(t *testing.T) {
	needSh(t)
	if err := exec.Command("python3", "-c", "import tomllib").Run(); err != nil {
		t.Skip("python3 with tomllib is not available")
	}
	root := t.TempDir()
	saved := map[string]bool{}
	for _, rf := range referenceFiles {
		if rf.step > 4 || strings.HasPrefix(rf.path, "out/") {
			continue
		}
		b := readReference(t, rf.path)
		dst := filepath.Join(root, filepath.FromSlash(rf.path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		saved[string(b)] = true
	}
	outputs := map[int]string{}
	for n := 1; n <= 4; n++ {
		for _, f := range fences(Expand(step(t, n).Solution, root)) {
			if f.lang != "sh" || saved[f.body] {
				continue // file contents are saved above, not run
			}
			out, code := runSh(t, nil, "sh", "-c", f.body)
			if code != 0 {
				t.Fatalf("solution %d block exited %d:\n%s\noutput:\n%s", n, code, f.body, out)
			}
			outputs[n] += out
		}
	}
	for n, want := range map[int][]string{
		1: {"'SystemdCgroup': True", "'version': 2"},
		2: {"'BinaryName': '/usr/bin/nvidia-container-runtime'"},
		4: {"nvidia: 0", "runc: 1", "nvidia-default: 1"},
	} {
		for _, w := range want {
			if !strings.Contains(outputs[n], w) {
				t.Errorf("solution %d output lacks %q:\n%s", n, w, outputs[n])
			}
		}
	}
	got, err := os.ReadFile(filepath.Join(root, "out", "merge.txt"))
	if err != nil {
		t.Fatalf("solution 3 wrote no merge.txt: %v", err)
	}
	if want := readReference(t, "out/merge.txt"); !bytes.Equal(got, want) {
		t.Errorf("solution 3 wrote\n%s\nwant\n%s", got, want)
	}
}

// declaredRoot reports whether a lab's default_root is one labroot reads
// the same wherever labmate runs: under the learner's home, or absolute.
func declaredRoot(p string) bool { return strings.HasPrefix(p, "~/") || filepath.IsAbs(p) }

// Every installed lab loads and is whole: a default root (under the home
// or absolute) named in its intro through {{ROOT}}, steps numbered 1..n
// with unique IDs, a title, a body, a solution and at least one hint
// each, its reference run and verify data present, and its messages of
// its own.
func TestEveryLabIsWhole(t *testing.T) {
	ids := IDs()
	if len(ids) < 2 {
		t.Fatalf("labs %v", ids)
	}
	for _, id := range ids {
		l, err := Load(id)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if l.Title == "" || !declaredRoot(l.DefaultRoot) || !strings.Contains(l.Intro, "{{ROOT}}") {
			t.Errorf("%s: title %q, default root %q, intro names {{ROOT}}: %v", id, l.Title, l.DefaultRoot, strings.Contains(l.Intro, "{{ROOT}}"))
		}
		if len(l.Steps) == 0 {
			t.Errorf("%s: no steps", id)
		}
		seen := map[string]bool{}
		for i, s := range l.Steps {
			if s.Number != i+1 || s.ID == "" || s.Title == "" || seen[s.ID] {
				t.Errorf("%s: step at %d: number %d, ID %q (seen %v), title %q", id, i, s.Number, s.ID, seen[s.ID], s.Title)
			}
			seen[s.ID] = true
			if strings.TrimSpace(s.Body) == "" || strings.TrimSpace(s.Solution) == "" || len(s.Hints) == 0 {
				t.Errorf("%s step %d: body, solution and hints must be there", id, s.Number)
			}
		}
		if _, err := l.ReadFile(l.ReferenceRun); l.ReferenceRun == "" || err != nil {
			t.Errorf("%s: reference run %q: %v", id, l.ReferenceRun, err)
		}
		var proven []string
		if l.Verify != nil {
			for _, vs := range l.Verify.Steps {
				proven = append(proven, vs.ID)
			}
		}
		var steps []string
		for _, s := range l.Steps {
			steps = append(steps, s.ID)
		}
		if !slices.Equal(proven, steps) {
			t.Errorf("%s: verify.toml proves steps %v, want every step in order %v", id, proven, steps)
		}
		if len(l.OwnKeys()) == 0 {
			t.Errorf("%s: no messages of its own", id)
		}
	}
}

// Two labs may use the same message key: each reads its own.
func TestMessageKeysAreNamespacedByLab(t *testing.T) {
	a := &Lab{msgs: map[string]string{"same.key": "A"}}
	b := &Lab{msgs: map[string]string{"same.key": "B"}}
	if a.Msg("same.key") != "A" || b.Msg("same.key") != "B" {
		t.Errorf("%q %q", a.Msg("same.key"), b.Msg("same.key"))
	}
	// A key the lab does not define is the shared text; one it does is
	// its own wording.
	if !HasMsg("status.passed") || a.Msg("status.passed") != "통과" {
		t.Errorf("a lab does not fall back to the shared text: %q", a.Msg("status.passed"))
	}
	own := &Lab{msgs: map[string]string{"status.passed": "합격"}}
	if own.Msg("status.passed") != "합격" {
		t.Errorf("a lab's own wording of a shared key: %q", own.Msg("status.passed"))
	}
}

// Every step and check of the installed labs has its place in lab.toml:
// its id key, inside the lines it covers, the check's within its step's;
// the sub-tables of a check (rules, values, why) are still its lines.
func TestSpansPlaceStepsAndChecks(t *testing.T) {
	for _, id := range IDs() {
		l, err := Load(id)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := l.ReadFile("lab.toml")
		lines := strings.Split(string(raw), "\n")
		idAt := func(s Span, want string) bool {
			return s.Line >= s.First && s.Line <= s.Last && s.Line <= len(lines) &&
				strings.HasPrefix(lines[s.Line-1][s.Col-1:], `id = "`+want+`"`)
		}
		for i, st := range l.Steps {
			ss := l.StepSpan(i)
			if !idAt(ss, st.ID) {
				t.Errorf("%s step %d: span %+v does not hold its id", id, st.Number, ss)
			}
			for j, c := range st.Checks {
				cs := l.CheckSpan(i, j)
				if !idAt(cs, c.ID) || cs.First < ss.First || cs.Last > ss.Last {
					t.Errorf("%s step %d check %s: span %+v (step %+v)", id, st.Number, c.ID, cs, ss)
				}
				rules, _ := c.Fields["rules"].([]any)
				for ri, r := range rules {
					head := strings.Split(r.(map[string]any)["expr"].(string), "\n")[0]
					if !slices.ContainsFunc(lines[cs.First-1:cs.Last], func(l string) bool { return strings.Contains(l, head) }) {
						t.Errorf("%s step %d check %s: rule %q outside its span %+v", id, st.Number, c.ID, head, cs)
					}
					// Each rule's own keys are placed on its own lines.
					if fail, _ := r.(map[string]any)["fail"].(string); fail != "" {
						ks := l.CheckKeySpan(i, j, "rules."+strconv.Itoa(ri)+".fail")
						if ks.Line < cs.First || ks.Line > cs.Last || lines[ks.Line-1][ks.Col-1:] != `fail = "`+fail+`"` {
							t.Errorf("%s step %d check %s: rule %d's fail placed at %+v", id, st.Number, c.ID, ri, ks)
						}
					}
				}
				values, _ := c.Fields["values"].(map[string]any)
				for _, v := range values {
					head := strings.Split(v.(string), "\n")[0] // a multi-line value: its first line
					if !slices.ContainsFunc(lines[cs.First-1:cs.Last], func(l string) bool { return strings.Contains(l, head) }) {
						t.Errorf("%s step %d check %s: value %q outside its span %+v", id, st.Number, c.ID, v, cs)
					}
				}
				// Each key of the check's type is placed on its line.
				for k := range c.Fields {
					ks := l.CheckKeySpan(i, j, k)
					if ks.Line < cs.First || ks.Line > cs.Last || !strings.HasPrefix(lines[ks.Line-1][ks.Col-1:], k) {
						t.Errorf("%s step %d check %s: key %s placed at %+v", id, st.Number, c.ID, k, ks)
					}
				}
			}
		}
	}
	var nilLab *Lab
	if s := nilLab.CheckSpan(0, 0); s != (Span{}) {
		t.Errorf("a nil lab's span is %+v", s)
	}
}

// A nil Lab answers with the shared text alone, for Msg and HasMsg alike.
func TestNilLabHasSharedMessages(t *testing.T) {
	var l *Lab
	if got, want := l.Msg("labkit.needs", "check", "x"), Msg("labkit.needs", "check", "x"); got != want {
		t.Errorf("Msg = %q, want %q", got, want)
	}
	if !l.HasMsg("labkit.needs") || l.HasMsg("no.such.key") {
		t.Error("a nil lab's HasMsg does not answer from the shared text")
	}
}

// Every shared text file loads: one that does not parse would leave
// labmate showing message keys.
func TestSharedTextLoads(t *testing.T) {
	sharedOnce.Do(loadShared)
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
}
