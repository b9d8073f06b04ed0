package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClusterStatus describes the sandbox as Status found it. (Go does not allow
// a type and a function both named Status in one package.)
type ClusterStatus struct {
	Name       string // kwokctl cluster name
	Context    string // context name in Kubeconfig
	Kubeconfig string // path of the cluster's kubeconfig
	BinDir     string // where the binaries are looked for
	LogFile    string // kwokctl's output

	// MissingBinaries lists the binaries not found in BinDir.
	MissingBinaries []string
	// Created: kwokctl has a saved configuration (kwok.yaml) for the cluster.
	Created bool
	// Running: the API server answers /readyz.
	Running bool
	// Server is the API server URL from the kubeconfig, when known.
	Server string
	// Nodes are the lab nodes (label type=kwok) found, when Running.
	Nodes []NodeStatus
}

// NodeStatus is one fake node of the sandbox.
type NodeStatus struct {
	Name   string
	Ready  bool
	CPU    string // allocatable
	Memory string // allocatable
	Pods   string // allocatable
}

// Ready reports whether the sandbox runs and all NodeCount lab nodes are
// Ready.
func (s ClusterStatus) Ready() bool {
	if !s.Running || len(s.Nodes) < NodeCount {
		return false
	}
	for _, n := range s.Nodes {
		if !n.Ready {
			return false
		}
	}
	return true
}

// String renders the status as Korean lines for `labmate sandbox status`.
func (s ClusterStatus) String() string {
	var b strings.Builder
	state := "없음"
	switch {
	case s.Ready():
		state = "실행 중 (준비 완료)"
	case s.Running:
		state = "실행 중 (노드 준비 안 됨)"
	case s.Created:
		state = "생성됨, 중지 상태"
	}
	fmt.Fprintf(&b, "샌드박스 %q: %s\n", s.Name, state)
	if len(s.MissingBinaries) > 0 {
		fmt.Fprintf(&b, "  바이너리 없음: %s (%s 에서 찾음; %s 로 빌드)\n", strings.Join(s.MissingBinaries, ", "), s.BinDir, BuildScript)
	} else {
		fmt.Fprintf(&b, "  바이너리:   %s\n", s.BinDir)
	}
	if s.Created {
		fmt.Fprintf(&b, "  kubeconfig: %s\n", s.Kubeconfig)
		fmt.Fprintf(&b, "  context:    %s\n", s.Context)
	}
	if s.Server != "" {
		fmt.Fprintf(&b, "  API 서버:   %s\n", s.Server)
	}
	for _, n := range s.Nodes {
		ready := "NotReady"
		if n.Ready {
			ready = "Ready"
		}
		fmt.Fprintf(&b, "  노드 %s: %s (cpu %s, memory %s, pods %s)\n", n.Name, ready, n.CPU, n.Memory, n.Pods)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Status reports whether the sandbox exists and runs, and the state of its
// nodes. An unreachable cluster is not an error: Running is false then.
func Status(ctx context.Context, opts Options) (ClusterStatus, error) {
	opts = opts.withDefaults()
	st := ClusterStatus{
		Name:       opts.Name,
		Context:    Context(opts),
		Kubeconfig: Kubeconfig(opts),
		BinDir:     opts.BinDir,
		LogFile:    LogFile(opts),
	}
	var missing *MissingBinariesError
	if err := CheckBinaries(opts); errors.As(err, &missing) {
		st.MissingBinaries = missing.Missing
	}
	st.Created = clusterExists(opts)
	if !st.Created || !apiReady(ctx, opts) {
		return st, nil
	}
	st.Running = true
	cs, err := clientset(opts)
	if err != nil {
		return st, err
	}
	if cfg, err := RESTConfig(opts); err == nil {
		st.Server = cfg.Host
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: KwokNodeLabel + "=kwok"})
	if err != nil {
		return st, fmt.Errorf("노드 목록 조회 실패: %w", err)
	}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		a := n.Status.Allocatable
		st.Nodes = append(st.Nodes, NodeStatus{
			Name:   n.Name,
			Ready:  nodeReady(n),
			CPU:    quantity(a, corev1.ResourceCPU),
			Memory: quantity(a, corev1.ResourceMemory),
			Pods:   quantity(a, corev1.ResourcePods),
		})
	}
	return st, nil
}

func quantity(rl corev1.ResourceList, name corev1.ResourceName) string {
	if q, ok := rl[name]; ok {
		return q.String()
	}
	return ""
}
