package checks

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Step 6: lab-node-0 advertises 4 GPUs, the pod runs there, and the
// learner's node table says what each node advertised.

// advertisedGPUs is what step 6 patches onto lab-node-0.
const advertisedGPUs = "4"

func evalAdvertiseGPU(in Input) StepEval {
	var ev StepEval
	rows, r := nodeTableFormat(in)
	ev.Checks = append(ev.Checks, r)
	if !liveChecksMayRun(in, &ev, "advertise-gpu") {
		return ev
	}
	node := live[*corev1.Node](in, "Node", "", advertisingNode)
	pod := live[*corev1.Pod](in, "Pod", labNamespace, probePodName)
	ev.Checks = append(ev.Checks,
		nodeAdvertises(in, "advertise-gpu.node", advertisingNode, advertisedGPUs, msg("cluster.node.why_step6")),
		probePodRunning(pod, node),
		nodeTableLive(in, rows),
	)
	ev.Observed = append(ev.Observed, nodeGPUFacts(in)...)
	if pod != nil {
		ev.Observed = append(ev.Observed, Fact{Label: msg("cluster.fact.pod"), Value: msg("cluster.fact.pod_short",
			"phase", pod.Status.Phase, "node", orNone(pod.Spec.NodeName))})
	} else {
		ev.Observed = append(ev.Observed, Fact{Label: msg("cluster.fact.pod"), Value: msg("cluster.absent")})
	}
	return ev
}

// nodeAdvertises checks that a node's capacity and allocatable both hold
// want nvidia.com/gpu; why says where want comes from.
func nodeAdvertises(in Input, id, name, want, why string) Result {
	expected := "capacity=" + want + ", allocatable=" + want
	n := live[*corev1.Node](in, "Node", "", name)
	if n == nil {
		return failed(id, msg("cluster.node.missing", "node", name), expected, msg("cluster.absent"), "")
	}
	capa, alloc := gpuAmount(n.Status.Capacity), gpuAmount(n.Status.Allocatable)
	observed := "capacity=" + orNone(capa) + ", allocatable=" + orNone(alloc)
	var wrong []string
	if !sameAmount(capa, want) {
		wrong = append(wrong, "capacity="+orNone(capa))
	}
	if !sameAmount(alloc, want) {
		wrong = append(wrong, "allocatable="+orNone(alloc))
	}
	if len(wrong) == 0 {
		return Result{ID: id, Status: Passed, Message: msg("cluster.node.ok", "node", name, "want", want), Expected: expected, Observed: observed}
	}
	return failed(id, msg("cluster.node.wrong", "node", name, "want", want, "why", why, "got", strings.Join(wrong, ", "))+
		msg("cluster.node.patch_hint", "node", name, "want", want), expected, observed, "")
}

func probePodRunning(p *corev1.Pod, node *corev1.Node) Result {
	const id = "advertise-gpu.pod"
	want := "Running @ " + advertisingNode
	if p == nil {
		return failed(id, msg("cluster.run.no_pod"), want, msg("cluster.absent"), "")
	}
	got := string(p.Status.Phase) + " @ " + orNone(p.Spec.NodeName)
	switch {
	case p.Spec.NodeName != "" && p.Spec.NodeName != advertisingNode:
		return failed(id, msg("cluster.run.other_node", "node", p.Spec.NodeName), want, got, "")
	case p.Spec.NodeName == "":
		m, _ := unschedulableNow(p)
		if node != nil && gpuAmount(node.Status.Allocatable) != "" && !sameAmount(gpuAmount(node.Status.Allocatable), "0") {
			return Result{ID: id, Status: Waiting, Message: msg("cluster.run.retrying", "message", orNone(m)), Expected: want, Observed: got}
		}
		return failed(id, msg("cluster.run.pending", "message", orNone(m)), want, got, "")
	case p.Status.Phase != corev1.PodRunning:
		return Result{ID: id, Status: Waiting, Message: msg("cluster.run.starting", "phase", p.Status.Phase), Expected: want, Observed: got}
	}
	return Result{ID: id, Status: Passed, Message: msg("cluster.run.ok"), Expected: want, Observed: got}
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
func nodeTableFormat(in Input) (map[string]gpuRow, Result) {
	const id = "advertise-gpu.table-file"
	text, bad := readText(in, id, nodeGPUPath)
	if bad != nil {
		return nil, *bad
	}
	rows := map[string]gpuRow{}
	var problems problemList
	first := true
	for i, l := range textLines(text) {
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
			problems.add("cluster.table.columns", "line", n, "n", len(f))
			continue
		case !slices.Contains(labNodes, f[0]):
			problems.add("cluster.table.unknown_node", "line", n, "node", clip(f[0], 40))
			continue
		case rows[f[0]].n > 0:
			problems.add("cluster.table.duplicate", "line", n, "node", f[0], "first", rows[f[0]].n)
			continue
		}
		row := gpuRow{n: n}
		if len(f) == 2 && !noneValue(f[1]) {
			if !isNumber(f[1]) {
				problems.add("cluster.table.value", "line", n, "node", f[0], "got", clip(f[1], 20))
				continue
			}
			row.value = f[1]
		}
		rows[f[0]] = row
	}
	for _, node := range labNodes {
		if rows[node].n == 0 {
			problems.add("cluster.table.missing_node", "node", node)
		}
	}
	if r, ok := rows[advertisingNode]; ok && r.n > 0 && !sameAmount(r.value, advertisedGPUs) {
		problems.add("cluster.table.node0", "line", r.n, "got", orNone(r.value), "want", advertisedGPUs)
	}
	want := msg("cluster.table.expect")
	if !problems.empty() {
		return rows, failed(id, msg("cluster.table.bad", "path", shown(in, nodeGPUPath), "problems", problems.String()),
			want, orNone(tableSummary(rows)), nodeGPUPath)
	}
	return rows, Result{ID: id, Status: Passed, Message: msg("cluster.table.ok", "path", shown(in, nodeGPUPath)), Expected: want, Observed: tableSummary(rows)}
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
			parts = append(parts, node+"="+orNone(r.value))
		}
	}
	return strings.Join(parts, ", ")
}

// nodeTableLive compares each row with the node: lab-node-0 with its live
// amount; the others may say none (what they advertised at step 6) or their
// live amount (step 7 raises lab-node-1).
func nodeTableLive(in Input, rows map[string]gpuRow) Result {
	const id = "advertise-gpu.table-live"
	if rows == nil {
		return waiting(id, msg("cluster.wait.file", "path", nodeGPUPath))
	}
	var problems, exp []string
	at := ""
	for _, node := range labNodes {
		r, ok := rows[node]
		if !ok {
			continue
		}
		n := live[*corev1.Node](in, "Node", "", node)
		liveVal := ""
		if n != nil {
			liveVal = gpuAmount(n.Status.Allocatable)
		}
		if sameAmount(liveVal, "0") {
			liveVal = ""
		}
		accepted := sameAmount(r.value, liveVal) || (node != advertisingNode && r.value == "")
		if node == advertisingNode {
			exp = append(exp, node+"="+orNone(liveVal))
		} else {
			exp = append(exp, node+"="+msg("cluster.table.none_or", "live", orNone(liveVal)))
		}
		if !accepted {
			if at == "" {
				at = where(nodeGPUPath, r.n)
			}
			problems = append(problems, msg("cluster.table.live_wrong", "node", node, "line", r.n, "file", orNone(r.value), "live", orNone(liveVal)))
		}
	}
	if len(problems) > 0 {
		return failed(id, strings.Join(problems, " "), strings.Join(exp, ", "), tableSummary(rows), at)
	}
	return Result{ID: id, Status: Passed, Message: msg("cluster.table.live_ok"), Expected: strings.Join(exp, ", "), Observed: tableSummary(rows)}
}

// nodeGPUFacts is the live GPU table: capacity/allocatable per lab node.
func nodeGPUFacts(in Input) []Fact {
	var facts []Fact
	for _, name := range labNodes {
		n := live[*corev1.Node](in, "Node", "", name)
		v := msg("cluster.absent")
		if n != nil {
			v = "capacity=" + orNone(gpuAmount(n.Status.Capacity)) + ", allocatable=" + orNone(gpuAmount(n.Status.Allocatable))
		}
		facts = append(facts, Fact{Label: name + " nvidia.com/gpu", Value: v})
	}
	return facts
}
