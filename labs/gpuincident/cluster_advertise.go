package gpuincident

import (
	"slices"
	"strconv"
	"strings"

	"github.com/labhub/labmate/checks"
	corev1 "k8s.io/api/core/v1"
)

// Step 6: lab-node-0 advertises 4 GPUs, the pod runs there, and the
// learner's node table says what each node advertised.
//
// Rules and sources: steps/06-advertise-gpu.md, 사실 근거 (kubernetes.io
// "Device Plugins", "Advertise Extended Resources for a Node").

// advertisedGPUs is what step 6 patches onto lab-node-0.
const advertisedGPUs = "4"

func evalAdvertiseGPU(in checks.Input) checks.StepEval {
	var ev checks.StepEval
	rows, r := nodeTableFormat(in)
	ev.Checks = append(ev.Checks, r)
	if !checks.LiveChecksMayRun(in, &ev, "advertise-gpu") {
		return ev
	}
	node := checks.Live[*corev1.Node](in, "Node", "", advertisingNode)
	pod := checks.Live[*corev1.Pod](in, "Pod", labNamespace, probePodName)
	ev.Checks = append(ev.Checks,
		nodeAdvertises(in, "advertise-gpu.node", advertisingNode, advertisedGPUs, msg("cluster.node.why_step6")),
		probePodRunning(pod, node),
		nodeTableLive(in, rows),
	)
	ev.Observed = append(ev.Observed, nodeGPUFacts(in)...)
	if pod != nil {
		ev.Observed = append(ev.Observed, checks.Fact{Label: msg("cluster.fact.pod"), Value: msg("cluster.fact.pod_short",
			"phase", pod.Status.Phase, "node", checks.OrNone(msg, pod.Spec.NodeName))})
	} else {
		ev.Observed = append(ev.Observed, checks.Fact{Label: msg("cluster.fact.pod"), Value: msg("cluster.absent")})
	}
	return ev
}

// nodeAdvertises checks that a node's capacity and allocatable both hold
// want nvidia.com/gpu; why says where want comes from.
func nodeAdvertises(in checks.Input, id, name, want, why string) checks.Result {
	expected := "capacity=" + want + ", allocatable=" + want
	n := checks.Live[*corev1.Node](in, "Node", "", name)
	if n == nil {
		return checks.Fail(id, msg("cluster.node.missing", "node", name), expected, msg("cluster.absent"), "")
	}
	capa, alloc := gpuAmount(n.Status.Capacity), gpuAmount(n.Status.Allocatable)
	observed := "capacity=" + checks.OrNone(msg, capa) + ", allocatable=" + checks.OrNone(msg, alloc)
	var wrong []string
	if !checks.SameAmount(capa, want) {
		wrong = append(wrong, "capacity="+checks.OrNone(msg, capa))
	}
	if !checks.SameAmount(alloc, want) {
		wrong = append(wrong, "allocatable="+checks.OrNone(msg, alloc))
	}
	if len(wrong) == 0 {
		return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.node.ok", "node", name, "want", want), Expected: expected, Observed: observed}
	}
	return checks.Fail(id, msg("cluster.node.wrong", "node", name, "want", want, "why", why, "got", strings.Join(wrong, ", "))+
		msg("cluster.node.patch_hint", "node", name, "want", want), expected, observed, "")
}

func probePodRunning(p *corev1.Pod, node *corev1.Node) checks.Result {
	const id = "advertise-gpu.pod"
	want := "Running @ " + advertisingNode
	if p == nil {
		return checks.Fail(id, msg("cluster.run.no_pod"), want, msg("cluster.absent"), "")
	}
	got := string(p.Status.Phase) + " @ " + checks.OrNone(msg, p.Spec.NodeName)
	switch {
	case p.Spec.NodeName != "" && p.Spec.NodeName != advertisingNode:
		return checks.Fail(id, msg("cluster.run.other_node", "node", p.Spec.NodeName), want, got, "")
	case p.Spec.NodeName == "":
		m, _ := checks.UnschedulableNow(p)
		if node != nil && gpuAmount(node.Status.Allocatable) != "" && !checks.SameAmount(gpuAmount(node.Status.Allocatable), "0") {
			return checks.Result{ID: id, Status: checks.Waiting, Message: msg("cluster.run.retrying", "message", checks.OrNone(msg, m)), Expected: want, Observed: got}
		}
		return checks.Fail(id, msg("cluster.run.pending", "message", checks.OrNone(msg, m)), want, got, "")
	case p.Status.Phase != corev1.PodRunning:
		return checks.Result{ID: id, Status: checks.Waiting, Message: msg("cluster.run.starting", "phase", p.Status.Phase), Expected: want, Observed: got}
	}
	return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.run.ok"), Expected: want, Observed: got}
}

// gpuRow is one row of node-gpu.txt.
type gpuRow struct {
	n     int
	value string // "" when the row says the node advertises none
}

// noneValue reports whether a table cell means "advertises no GPU".
func noneValue(v string) bool {
	return v == "" || v == "<none>" || v == "0"
}

// nodeTableFormat reads node-gpu.txt: an optional header, then one
// "NAME VALUE" row per lab node; lab-node-0 must say 4.
func nodeTableFormat(in checks.Input) (map[string]gpuRow, checks.Result) {
	const id = "advertise-gpu.table-file"
	text, bad := checks.ReadText(in, id, nodeGPUPath)
	if bad != nil {
		return nil, *bad
	}
	rows := map[string]gpuRow{}
	problems := checks.ProblemList{Msg: msg}
	first := true
	for i, l := range checks.TextLines(text) {
		n := i + 1
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		isHeader := first && !slices.Contains(labNodes, f[0]) && !slices.ContainsFunc(f, isNumber)
		first = false
		if isHeader {
			continue
		}
		switch {
		case len(f) > 2:
			problems.Add("cluster.table.columns", "line", n, "n", len(f))
			continue
		case !slices.Contains(labNodes, f[0]):
			problems.Add("cluster.table.unknown_node", "line", n, "node", checks.Clip(f[0], 40))
			continue
		case rows[f[0]].n > 0:
			problems.Add("cluster.table.duplicate", "line", n, "node", f[0], "first", rows[f[0]].n)
			continue
		}
		row := gpuRow{n: n}
		if len(f) == 2 && !noneValue(f[1]) {
			if !isNumber(f[1]) {
				problems.Add("cluster.table.value", "line", n, "node", f[0], "got", checks.Clip(f[1], 20))
				continue
			}
			row.value = f[1]
		}
		rows[f[0]] = row
	}
	for _, node := range labNodes {
		if rows[node].n == 0 {
			problems.Add("cluster.table.missing_node", "node", node)
		}
	}
	if r, ok := rows[advertisingNode]; ok && r.n > 0 && !checks.SameAmount(r.value, advertisedGPUs) {
		problems.Add("cluster.table.node0", "line", r.n, "got", checks.OrNone(msg, r.value), "want", advertisedGPUs)
	}
	want := msg("cluster.table.expect")
	if !problems.Empty() {
		return rows, checks.Fail(id, msg("cluster.table.bad", "path", checks.Shown(in, nodeGPUPath), "problems", problems.String()),
			want, checks.OrNone(msg, tableSummary(rows)), nodeGPUPath)
	}
	return rows, checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.table.ok", "path", checks.Shown(in, nodeGPUPath)), Expected: want, Observed: tableSummary(rows)}
}

// isNumber accepts a plain non-negative integer, the only form kubectl
// prints for an extended resource.
func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 63)
	return err == nil
}

func tableSummary(rows map[string]gpuRow) string {
	var parts []string
	for _, node := range labNodes {
		if r, ok := rows[node]; ok {
			parts = append(parts, node+"="+checks.OrNone(msg, r.value))
		}
	}
	return strings.Join(parts, ", ")
}

// nodeTableLive compares each row with the node: lab-node-0 with its live
// amount; the others may say none (what they advertised at step 6) or their
// live amount (step 7 raises lab-node-1).
func nodeTableLive(in checks.Input, rows map[string]gpuRow) checks.Result {
	const id = "advertise-gpu.table-live"
	if rows == nil {
		return checks.Wait(id, msg("cluster.wait.file", "path", nodeGPUPath))
	}
	var problems, exp []string
	at := ""
	for _, node := range labNodes {
		r, ok := rows[node]
		if !ok {
			continue
		}
		n := checks.Live[*corev1.Node](in, "Node", "", node)
		liveVal := ""
		if n != nil {
			liveVal = gpuAmount(n.Status.Allocatable)
		}
		if checks.SameAmount(liveVal, "0") {
			liveVal = ""
		}
		accepted := checks.SameAmount(r.value, liveVal) || (node != advertisingNode && r.value == "")
		if node == advertisingNode {
			exp = append(exp, node+"="+checks.OrNone(msg, liveVal))
		} else {
			exp = append(exp, node+"="+msg("cluster.table.none_or", "live", checks.OrNone(msg, liveVal)))
		}
		if !accepted {
			if at == "" {
				at = checks.Where(nodeGPUPath, r.n)
			}
			problems = append(problems, msg("cluster.table.live_wrong", "node", node, "line", r.n, "file", checks.OrNone(msg, r.value), "live", checks.OrNone(msg, liveVal)))
		}
	}
	if len(problems) > 0 {
		return checks.Fail(id, strings.Join(problems, " "), strings.Join(exp, ", "), tableSummary(rows), at)
	}
	return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.table.live_ok"), Expected: strings.Join(exp, ", "), Observed: tableSummary(rows)}
}

// nodeGPUFacts is the live GPU table: capacity/allocatable per lab node.
func nodeGPUFacts(in checks.Input) []checks.Fact {
	var facts []checks.Fact
	for _, name := range labNodes {
		n := checks.Live[*corev1.Node](in, "Node", "", name)
		v := msg("cluster.absent")
		if n != nil {
			v = "capacity=" + checks.OrNone(msg, gpuAmount(n.Status.Capacity)) + ", allocatable=" + checks.OrNone(msg, gpuAmount(n.Status.Allocatable))
		}
		facts = append(facts, checks.Fact{Label: name + " nvidia.com/gpu", Value: v})
	}
	return facts
}
