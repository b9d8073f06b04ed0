package gpuincident

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/labhub/labmate/checks"
	corev1 "k8s.io/api/core/v1"
)

// The lab files steps 1-4 read, relative to the lab root.
const (
	mainConfigPath  = "etc/containerd/config.toml"
	dropInPath      = "etc/containerd/conf.d/99-nvidia.toml"
	mergePath       = "out/merge.txt"
	checkScriptPath = "bin/check-runtime.sh"
)

// Names in the GPU lab's cluster.
const (
	labNamespace      = "gpu-lab"
	operatorNamespace = "gpu-operator"
	probePodName      = "cuda-probe"
	gpuRuntimeClass   = "nvidia"
	timeSlicingName   = "time-slicing-config"
	toolkitName       = "nvidia-container-toolkit"
	gpuResource       = corev1.ResourceName("nvidia.com/gpu")
	advertisingNode   = "lab-node-0" // step 6 advertises its 4 GPUs
	timeSlicedNode    = "lab-node-1" // step 7 raises it to GPUs × replicas
)

// labNodes are the sandbox's fake nodes.
var labNodes = []string{"lab-node-0", "lab-node-1", "lab-node-2"}

// The lab files steps 5-8 read, relative to the lab root.
const (
	runtimeClassPath = "k8s/runtimeclass.yaml"
	gpuPodPath       = "k8s/gpu-pod.yaml"
	unscheduledPath  = "out/unscheduled.txt"
	nodeGPUPath      = "out/node-gpu.txt"
	timeSlicingPath  = "k8s/time-slicing.yaml"
	slotsPath        = "out/slots.txt"
	toolkitDSPath    = "k8s/toolkit-ds.yaml"
	rolloutPath      = "out/rollout.txt"
)

// Witness keys: "<step id>/<fact>", so resetting a step can forget its own.
const (
	witnessUnschedulable = "runtimeclass-pending/unschedulable" // Value: the scheduler's message; UID: the pod
	witnessToolkitReady  = "rollout-stall/ready-old"            // Value: how many pods were Ready on the old image; UID: the DaemonSet
)

// gpuAmount renders a node's nvidia.com/gpu in a resource list: the
// quantity, or "" when the node does not list it.
func gpuAmount(rl corev1.ResourceList) string {
	q, ok := rl[gpuResource]
	if !ok {
		return ""
	}
	return q.String()
}

// itoa formats an int32 status field.
func itoa(n int32) string { return fmt.Sprint(n) }

// criPlugin is the CRI plugin's name in a containerd 1.x (config version 2)
// file; runtimesPath is the table the runtimes live under.
const criPlugin = "io.containerd.grpc.v1.cri"

var runtimesPath = []string{"plugins", criPlugin, "containerd", "runtimes"}

// waitingOnParse is what a key check says while its file cannot be read.
func waitingOnParse(s checks.KeySpec) checks.Result {
	return checks.Wait(s.ID, msg("files.wait.toml", "what", shortKey(s.Path)))
}

// shortKey names a key without the plugin prefix every message repeats.
func shortKey(p []string) string {
	if len(p) > 3 && slices.Equal(p[:3], runtimesPath[:3]) {
		return checks.KeyPath(p[3:])
	}
	return checks.KeyPath(p)
}

// pathHints says, in the lab's terms, how a key path the learner wrote
// differs from the one containerd reads.
func pathHints(found, want []string) string {
	var b strings.Builder
	plugin := -1
	if i := checks.IndexRun(found, "io", "containerd", "grpc", "v1", "cri"); i >= 0 {
		b.WriteString(msg("files.hint.unquoted_plugin"))
		plugin = i + 4
	}
	if len(found) > 1 && found[0] == "plugins" && found[1] == "cri" {
		b.WriteString(msg("files.hint.v1_plugin_name"))
		plugin = 1
	}
	if slices.Contains(found, "io.containerd.cri.v1.runtime") {
		b.WriteString(msg("files.hint.v3_plugin_name"))
	}
	if i := slices.Index(found, criPlugin); i >= 0 {
		plugin = i
	}
	if plugin >= 0 && plugin+1 < len(found) && found[plugin+1] != "containerd" && slices.Contains(want, "containerd") {
		b.WriteString(msg("files.hint.missing_containerd"))
	}
	if slices.Contains(want, "options") && !slices.Contains(found, "options") {
		b.WriteString(msg("files.hint.missing_options"))
	}
	if fl, wl := found[len(found)-1], want[len(want)-1]; fl != wl {
		b.WriteString(msg("files.hint.key_case", "found", fl, "want", wl))
	}
	if n := len(want) - 1; len(found) > len(want) && slices.Equal(found[:n], want[:n]) {
		b.WriteString(msg("files.hint.under_header", "table", checks.KeyPath(found[:len(found)-1])))
	}
	return b.String()
}

// runtimeNames returns the runtime tables defined under runtimesPath,
// sorted, and whether the runtimes table exists at all.
func runtimeNames(d *checks.TOMLDoc) ([]string, bool) {
	v, ok := d.Get(runtimesPath)
	if !ok {
		return nil, false
	}
	m, isTable := v.(map[string]any)
	if !isTable {
		return nil, false
	}
	var names []string
	for k, sub := range m {
		if _, ok := sub.(map[string]any); ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names, true
}
