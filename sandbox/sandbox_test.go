package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// isolate points every directory the package uses at a fresh temp dir.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("KWOK_WORKDIR", filepath.Join(dir, "kwok"))
	t.Setenv(EnvBinDir, "")
	return dir
}

func TestOptionDefaults(t *testing.T) {
	dir := isolate(t)

	o := Options{}.withDefaults()
	if want := filepath.Join(dir, "cache", "labmate", "cluster", "v1.34"); o.BinDir != want {
		t.Errorf("BinDir = %q, want %q", o.BinDir, want)
	}
	if o.BinDir != DefaultBinDir() {
		t.Errorf("BinDir %q != DefaultBinDir() %q", o.BinDir, DefaultBinDir())
	}
	if o.Name != "labmate" {
		t.Errorf("Name = %q, want labmate", o.Name)
	}
	if o.Timeout != DefaultTimeout {
		t.Errorf("Timeout = %v, want %v", o.Timeout, DefaultTimeout)
	}
	if o.Progress == nil {
		t.Error("Progress is nil, want io.Discard")
	}

	if got, want := Kubeconfig(Options{}), filepath.Join(dir, "kwok", "clusters", "labmate", "kubeconfig.yaml"); got != want {
		t.Errorf("Kubeconfig = %q, want %q", got, want)
	}
	if got := Context(Options{}); got != "kwok-labmate" {
		t.Errorf("Context = %q, want kwok-labmate", got)
	}
	if got, want := LogFile(Options{}), filepath.Join(dir, "cache", "labmate", "sandbox", "labmate-kwokctl.log"); got != want {
		t.Errorf("LogFile = %q, want %q", got, want)
	}

	// The environment variable overrides the default, an explicit BinDir
	// overrides both; relative paths become absolute.
	envDir := filepath.Join(dir, "from-env")
	t.Setenv(EnvBinDir, envDir)
	if got := (Options{}).withDefaults().BinDir; got != envDir {
		t.Errorf("BinDir with %s = %q, want %q", EnvBinDir, got, envDir)
	}
	if got := (Options{BinDir: "/opt/bins"}).withDefaults().BinDir; got != "/opt/bins" {
		t.Errorf("explicit BinDir = %q", got)
	}
	if got := (Options{BinDir: "rel"}).withDefaults().BinDir; !filepath.IsAbs(got) {
		t.Errorf("relative BinDir not made absolute: %q", got)
	}

	o = Options{Name: "other", Timeout: time.Second}.withDefaults()
	if o.Name != "other" || o.Timeout != time.Second {
		t.Errorf("explicit fields overridden: %+v", o)
	}
	if got := Context(Options{Name: "other"}); got != "kwok-other" {
		t.Errorf("Context = %q", got)
	}
}

func TestDefaultBinDirWithoutXDG(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", home)
	if got, want := DefaultBinDir(), filepath.Join(home, ".cache", "labmate", "cluster", "v1.34"); got != want {
		t.Errorf("DefaultBinDir = %q, want %q", got, want)
	}
}

func TestMissingBinariesMessage(t *testing.T) {
	dir := isolate(t)
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// Everything present and executable except kwokctl (absent) and etcd
	// (not executable).
	for _, name := range Binaries {
		switch name {
		case "kwokctl":
			continue
		case "etcd":
			if err := os.WriteFile(filepath.Join(bin, name), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		default:
			if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}

	err := CheckBinaries(Options{BinDir: bin})
	var mb *MissingBinariesError
	if !errors.As(err, &mb) {
		t.Fatalf("CheckBinaries = %v, want *MissingBinariesError", err)
	}
	if got := strings.Join(mb.Missing, ","); got != "kwokctl,etcd" {
		t.Errorf("Missing = %q, want kwokctl,etcd", got)
	}
	if mb.BinDir != bin {
		t.Errorf("BinDir = %q, want %q", mb.BinDir, bin)
	}
	msg := err.Error()
	for _, want := range []string{
		"샌드박스 바이너리가 없습니다", "kwokctl, etcd", bin,
		"labmate sandbox build", "LABMATE_CLUSTER_BIN", "--bin-dir", DefaultBinDir(),
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}

	// Up fails fast with the same error and touches nothing.
	err = Up(context.Background(), Options{BinDir: bin})
	if !errors.As(err, &mb) {
		t.Fatalf("Up = %v, want *MissingBinariesError", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "kwok")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Up created the kwok workdir despite missing binaries")
	}

	// An empty dir lists every binary.
	err = CheckBinaries(Options{BinDir: filepath.Join(dir, "empty")})
	if !errors.As(err, &mb) || len(mb.Missing) != len(Binaries) {
		t.Errorf("CheckBinaries(empty) = %v", err)
	}
}

func TestCheckBinariesComplete(t *testing.T) {
	bin := t.TempDir()
	for _, name := range Binaries {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := CheckBinaries(Options{BinDir: bin}); err != nil {
		t.Fatalf("CheckBinaries = %v", err)
	}
}

// The GPU incident lab's topology: three nodes without GPUs.
func TestNode(t *testing.T) {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := NodesOf(lab)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Nodes: nodes}
	if got := strings.Join(opts.NodeNames(), ","); got != "lab-node-0,lab-node-1,lab-node-2" {
		t.Fatalf("NodeNames = %s", got)
	}
	n := Node(nodes[1])
	if n.Annotations[KwokNodeAnnotation] != "fake" {
		t.Errorf("annotation = %v", n.Annotations)
	}
	if n.Labels["type"] != "kwok" {
		t.Errorf("labels = %v", n.Labels)
	}
	if len(n.Spec.Taints) != 0 {
		t.Errorf("taints = %v, want none", n.Spec.Taints)
	}
	for _, rl := range []corev1.ResourceList{n.Status.Capacity, n.Status.Allocatable} {
		if q := rl[corev1.ResourceCPU]; q.String() != "16" {
			t.Errorf("cpu = %s", q.String())
		}
		if q := rl[corev1.ResourceMemory]; q.String() != "32Gi" {
			t.Errorf("memory = %s", q.String())
		}
		if q := rl[corev1.ResourcePods]; q.String() != "110" {
			t.Errorf("pods = %s", q.String())
		}
		if len(rl) != 3 {
			t.Errorf("resources = %v, want cpu, memory and pods only (no GPUs)", rl)
		}
	}
}

func TestStatusAndDownWithoutCluster(t *testing.T) {
	isolate(t)
	bin := t.TempDir() // empty: nothing built

	st, err := Status(context.Background(), Options{BinDir: bin})
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	if st.Created || st.Running || st.Ready() {
		t.Errorf("status of a missing cluster: %+v", st)
	}
	if len(st.MissingBinaries) != len(Binaries) {
		t.Errorf("MissingBinaries = %v", st.MissingBinaries)
	}
	if st.Context != "kwok-labmate" || st.Kubeconfig != Kubeconfig(Options{}) {
		t.Errorf("status names: %+v", st)
	}
	if s := st.String(); !strings.Contains(s, "없음") || !strings.Contains(s, BuildCommand) {
		t.Errorf("String() = %q", s)
	}

	// Down of a cluster that does not exist is fine even without binaries.
	var out strings.Builder
	if err := Down(context.Background(), Options{BinDir: bin, Progress: &out}); err != nil {
		t.Fatalf("Down: %v", err)
	}
	if !strings.Contains(out.String(), "없습니다") {
		t.Errorf("Down progress = %q", out.String())
	}
}

func TestStatusString(t *testing.T) {
	st := ClusterStatus{
		Name: "labmate", Context: "kwok-labmate", Kubeconfig: "/k", BinDir: "/b",
		Created: true, Running: true, Server: "https://127.0.0.1:1",
		Nodes: []NodeStatus{
			{Name: "lab-node-0", Ready: true, CPU: "16", Memory: "32Gi", Pods: "110"},
			{Name: "lab-node-1", Ready: true, CPU: "16", Memory: "32Gi", Pods: "110"},
			{Name: "lab-node-2", Ready: false, CPU: "16", Memory: "32Gi", Pods: "110"},
		},
	}
	if st.Ready() {
		t.Error("Ready with a NotReady node")
	}
	s := st.String()
	for _, want := range []string{"노드 준비 안 됨", "kwok-labmate", "lab-node-2: NotReady", "cpu 16"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
	st.Nodes[2].Ready = true
	if !st.Ready() || !strings.Contains(st.String(), "준비 완료") {
		t.Errorf("Ready status: %v\n%s", st.Ready(), st.String())
	}
}

// A topology's labels, taints and extended resources reach the node; a
// quantity or effect that cannot be read is refused with the lab named.
func TestNodesOfLabelsTaints(t *testing.T) {
	lab := &content.Lab{ID: "demo", Sandbox: content.Sandbox{Nodes: []content.SandboxNodes{{
		Names:    []string{"gpu-0", "gpu-1"},
		Capacity: map[string]string{"cpu": "8", "nvidia.com/gpu": "4"},
		Labels:   map[string]string{"pool": "gpu"},
		Taints:   []content.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: "NoSchedule"}},
	}}}}
	nodes, err := NodesOf(lab)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 {
		t.Fatalf("%d nodes", len(nodes))
	}
	n := Node(nodes[1])
	if n.Name != "gpu-1" || n.Labels["pool"] != "gpu" || n.Labels["type"] != "kwok" {
		t.Errorf("labels %v", n.Labels)
	}
	if len(n.Spec.Taints) != 1 || n.Spec.Taints[0].Effect != corev1.TaintEffectNoSchedule {
		t.Errorf("taints %v", n.Spec.Taints)
	}
	if q := n.Status.Allocatable["nvidia.com/gpu"]; q.String() != "4" {
		t.Errorf("allocatable gpu %s", q.String())
	}
	nodes[0].Labels["pool"] = "changed"
	if nodes[1].Labels["pool"] != "gpu" {
		t.Error("nodes of one group share their labels map")
	}
	lab.Sandbox.Nodes[0].Capacity["cpu"] = "lots"
	if _, err := NodesOf(lab); err == nil || !strings.Contains(err.Error(), "lots") || !strings.Contains(err.Error(), "demo") {
		t.Errorf("bad quantity: %v", err)
	}
	lab.Sandbox.Nodes[0].Capacity["cpu"] = "8"
	lab.Sandbox.Nodes[0].Taints[0].Effect = "Never"
	if _, err := NodesOf(lab); err == nil || !strings.Contains(err.Error(), "Never") || !strings.Contains(err.Error(), "demo") {
		t.Errorf("bad effect: %v", err)
	}
}

// The one kubeconfig loader falls back to the default sandbox's
// kubeconfig: it names the same file as Kubeconfig, with $KWOK_WORKDIR
// and without.
func TestLoaderFallsBackToThisSandbox(t *testing.T) {
	dir := isolate(t)
	if got, want := kube.SandboxKubeconfig(), Kubeconfig(Options{}); got != want {
		t.Errorf("with KWOK_WORKDIR: the loader falls back to %q, the sandbox is %q", got, want)
	}
	t.Setenv("KWOK_WORKDIR", "")
	t.Setenv("HOME", filepath.Join(dir, "home"))
	if got, want := kube.SandboxKubeconfig(), Kubeconfig(Options{}); got != want || !strings.HasPrefix(got, filepath.Join(dir, "home")) {
		t.Errorf("without KWOK_WORKDIR: the loader falls back to %q, the sandbox is %q", got, want)
	}
}
