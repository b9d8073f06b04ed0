package sandbox

import (
	"context"
	"errors"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/sandbox/prebuilt"
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
	// ChangedBinaries lists the binaries whose sha256 is no longer the
	// one they were installed or built with (prebuilt.Changed).
	ChangedBinaries []string
	// Created: kwokctl has a saved configuration (kwok.yaml) for the cluster.
	Created bool
	// Running: the API server answers /readyz.
	Running bool
	// Server is the API server URL from the kubeconfig, when known.
	Server string
	// Nodes are the lab nodes (label type=kwok) found, when Running.
	Nodes []NodeStatus
	// Lab is the lab the sandbox was made for (its marker), when Running.
	Lab string
	// Want are the nodes the lab's topology asks for (none when the
	// status was asked without a lab).
	Want []string
}

// NodeStatus is one fake node of the sandbox.
type NodeStatus struct {
	Name   string
	Ready  bool
	CPU    string // allocatable
	Memory string // allocatable
	Pods   string // allocatable
}

// Ready reports whether the sandbox runs and every node of the lab's
// topology (or, without one, every fake node found) is Ready.
func (s ClusterStatus) Ready() bool {
	if !s.Running {
		return false
	}
	ready := map[string]bool{}
	for _, n := range s.Nodes {
		ready[n.Name] = n.Ready
		if !n.Ready && len(s.Want) == 0 {
			return false
		}
	}
	for _, w := range s.Want {
		if !ready[w] {
			return false
		}
	}
	return true
}

// String renders the status as Korean lines for `labmate sandbox status`.
func (s ClusterStatus) String() string {
	state := "sandbox.status.state.none"
	switch {
	case s.Ready():
		state = "sandbox.status.state.ready"
	case s.Running:
		state = "sandbox.status.state.nodes_not_ready"
	case s.Created:
		state = "sandbox.status.state.stopped"
	}
	lines := []string{content.Msg("sandbox.status.line", "name", strconv.Quote(s.Name), "state", content.Msg(state))}
	if len(s.MissingBinaries) > 0 {
		lines = append(lines, content.Msg("sandbox.status.binaries_missing",
			"missing", strings.Join(s.MissingBinaries, ", "), "bin_dir", s.BinDir, "script", BuildCommand))
	} else {
		lines = append(lines, content.Msg("sandbox.status.binaries", "bin_dir", s.BinDir))
	}
	if len(s.ChangedBinaries) > 0 {
		lines = append(lines, content.Msg("sandbox.status.binaries_changed",
			"changed", strings.Join(s.ChangedBinaries, ", "), "bin_dir", s.BinDir))
	}
	if s.Created {
		lines = append(lines, content.Msg("sandbox.status.kubeconfig", "kubeconfig", s.Kubeconfig),
			content.Msg("sandbox.status.context", "context", s.Context))
	}
	if s.Server != "" {
		lines = append(lines, content.Msg("sandbox.status.server", "server", s.Server))
	}
	if s.Lab != "" {
		lines = append(lines, content.Msg("sandbox.status.lab", "lab", s.Lab))
	}
	for _, n := range s.Nodes {
		ready := "NotReady" // the Kubernetes condition, as kubectl shows it
		if n.Ready {
			ready = "Ready"
		}
		lines = append(lines, content.Msg("sandbox.status.node",
			"node", n.Name, "ready", ready, "cpu", n.CPU, "memory", n.Memory, "pods", n.Pods))
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
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
		Want:       opts.NodeNames(),
	}
	var missing *MissingBinariesError
	if err := CheckBinaries(opts); errors.As(err, &missing) {
		st.MissingBinaries = missing.Missing
	}
	st.ChangedBinaries, _, _ = prebuilt.Changed(opts.BinDir, Binaries)
	st.Created = clusterExists(opts)
	if !st.Created || !apiReady(ctx, opts) {
		return st, nil
	}
	st.Running = true
	conn, err := Connect(opts)
	if err != nil {
		return st, err
	}
	st.Server = conn.Host()
	cs, err := conn.Typed()
	if err != nil {
		return st, err
	}
	if cm, err := cs.CoreV1().ConfigMaps(MarkerNamespace).Get(ctx, MarkerName, metav1.GetOptions{}); err == nil {
		st.Lab = cm.Data[markerLabKey]
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: KwokNodeLabel + "=kwok"})
	if err != nil {
		return st, wrapMsg(err, "sandbox.err.list_nodes")
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
