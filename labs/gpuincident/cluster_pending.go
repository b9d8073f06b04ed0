package gpuincident

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
)

// Step 5: a RuntimeClass and a GPU pod, applied, and the pod Pending
// because no node advertises nvidia.com/gpu.
//
// Rules and sources: steps/05-runtimeclass-pending.md, 사실 근거
// (kubernetes.io "Runtime Class", "Schedule GPUs", extended resources).

func evalRuntimeClassPending(in checks.Input) checks.StepEval {
	var ev checks.StepEval
	fileRC, rcm, r := checks.DecodeManifest[nodev1.RuntimeClass](in, "runtimeclass-pending.rc-file", runtimeClassPath, "node.k8s.io/v1", "RuntimeClass")
	ev.Checks = append(ev.Checks, r, runtimeClassFields(rcm, fileRC))
	filePod, podm, r := checks.DecodeManifest[corev1.Pod](in, "runtimeclass-pending.pod-file", gpuPodPath, "v1", "Pod")
	ev.Checks = append(ev.Checks, r, gpuPodFields(podm, filePod))
	lines, r := unscheduledFormat(in)
	ev.Checks = append(ev.Checks, r)

	if !checks.LiveChecksMayRun(in, &ev, "runtimeclass-pending") {
		return ev
	}
	livePod := checks.Live[*corev1.Pod](in, "Pod", labNamespace, probePodName)
	ev.Checks = append(ev.Checks,
		namespaceLive(in, "runtimeclass-pending.namespace", labNamespace, 5),
		runtimeClassLive(in, fileRC),
		gpuPodLive(in, filePod, livePod),
		unschedulableLive(in, livePod, lines),
		unscheduledLive(in, livePod, lines),
	)
	ev.Observed = append(ev.Observed, pendingFacts(in, livePod, lines)...)
	return ev
}

// rememberUnschedulable keeps the scheduler's message while the pod is
// Unschedulable (or from a FailedScheduling event for it), tied to the
// pod's UID, so step 5 stays green after step 6 schedules the pod.
func rememberUnschedulable(snap *observe.Snapshot, w *checks.Witness, _ bool) bool {
	p, _ := snap.Object("Pod", labNamespace, probePodName).(*corev1.Pod)
	if p == nil {
		return false
	}
	m, ok := checks.UnschedulableNow(p)
	if !ok {
		evs := checks.FailedSchedulingEvents(checks.Input{Lab: text(), Snap: snap}, p)
		if len(evs) == 0 {
			return false
		}
		if old, known := w.Get(witnessUnschedulable); known && old.UID == string(p.UID) {
			return false // the live condition taught us more than an event can
		}
		m = evs[len(evs)-1]
	}
	return w.Set(witnessUnschedulable, checks.WitnessFact{Value: strings.TrimSpace(m), UID: string(p.UID), Seen: snap.Time})
}

func runtimeClassFields(m *checks.Manifest, rc *nodev1.RuntimeClass) checks.Result {
	const id = "runtimeclass-pending.rc-fields"
	if m == nil {
		return checks.Wait(id, msg("cluster.wait.manifest", "path", runtimeClassPath))
	}
	fc := checks.ObjectFields(msg, m, rc, gpuRuntimeClass, "")
	fc.Expect("handler", rc.Handler, gpuRuntimeClass, msg("cluster.rc.handler_hint"))
	return fc.Result(id, msg("cluster.rc.fields_ok"))
}

// podGPULimit sums nvidia.com/gpu limits over a pod's containers and
// returns the path of the first container that sets one.
func podGPULimit(p *corev1.Pod) (amount string, path string) {
	total := int64(0)
	found := false
	for i, c := range p.Spec.Containers {
		if q, ok := c.Resources.Limits[gpuResource]; ok {
			if !found {
				path = fmt.Sprintf("spec.containers[%d].resources.limits", i)
			}
			found = true
			total += q.Value()
		}
	}
	if !found {
		return "", ""
	}
	return fmt.Sprint(total), path
}

func gpuPodFields(m *checks.Manifest, p *corev1.Pod) checks.Result {
	const id = "runtimeclass-pending.pod-fields"
	if m == nil {
		return checks.Wait(id, msg("cluster.wait.manifest", "path", gpuPodPath))
	}
	fc := checks.ObjectFields(msg, m, p, probePodName, labNamespace)
	fc.Expect("spec.runtimeClassName", derefString(p.Spec.RuntimeClassName), gpuRuntimeClass, msg("cluster.pod.rcn_hint"))
	amount, path := podGPULimit(p)
	fc.Note("limits[nvidia.com/gpu]=1", "limits[nvidia.com/gpu]="+checks.OrNone(msg, amount))
	switch {
	case amount == "" && podGPURequested(p):
		fc.Problem("spec.containers", msg("cluster.pod.gpu_requests_only"))
	case amount == "":
		fc.Problem("spec.containers", msg("cluster.pod.gpu_missing"))
	case amount != "1":
		fc.Problem(path, msg("cluster.pod.gpu_wrong", "got", amount, "line", m.Line(path)))
	}
	return fc.Result(id, msg("cluster.pod.fields_ok"))
}

func podGPURequested(p *corev1.Pod) bool {
	for _, c := range p.Spec.Containers {
		if _, ok := c.Resources.Requests[gpuResource]; ok {
			return true
		}
	}
	return false
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// unscheduledFormat checks unscheduled.txt without the cluster: two lines,
// the first the reason Unschedulable. It returns the lines it read.
func unscheduledFormat(in checks.Input) ([]string, checks.Result) {
	const id = "runtimeclass-pending.unscheduled-file"
	text, bad := checks.ReadText(in, id, unscheduledPath)
	if bad != nil {
		return nil, *bad
	}
	lines := checks.TextLines(text)
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t")
	}
	want := msg("cluster.unsched.expect")
	if len(lines) != 2 {
		return nil, checks.Fail(id, msg("cluster.unsched.count", "path", checks.Shown(in, unscheduledPath), "n", len(lines)), want,
			msg("cluster.lines", "n", len(lines)), unscheduledPath)
	}
	if lines[0] != corev1.PodReasonUnschedulable {
		hint := ""
		switch {
		case strings.EqualFold(lines[0], "pending"):
			hint = msg("cluster.unsched.pending_hint")
		case strings.Contains(lines[0], corev1.PodReasonUnschedulable):
			hint = msg("cluster.unsched.label_hint")
		}
		return lines, checks.Fail(id, msg("cluster.unsched.reason", "got", checks.Clip(lines[0], 60))+hint,
			corev1.PodReasonUnschedulable, lines[0], checks.Where(unscheduledPath, 1))
	}
	if strings.TrimSpace(lines[1]) == "" {
		return lines, checks.Fail(id, msg("cluster.unsched.no_message"), want, msg("cluster.unsched.empty_line"), checks.Where(unscheduledPath, 2))
	}
	return lines, checks.Pass(id, msg("cluster.unsched.format_ok", "path", checks.Shown(in, unscheduledPath)))
}

func namespaceLive(in checks.Input, id, ns string, step int) checks.Result {
	if checks.Live[*corev1.Namespace](in, "Namespace", "", ns) == nil {
		return checks.Fail(id, msg("cluster.ns.missing", "ns", ns, "step", step), msg("cluster.ns.expect", "ns", ns), msg("cluster.absent"), "")
	}
	return checks.Pass(id, msg("cluster.ns.ok", "ns", ns))
}

func runtimeClassLive(in checks.Input, file *nodev1.RuntimeClass) checks.Result {
	const id = "runtimeclass-pending.rc-live"
	rc := checks.Live[*nodev1.RuntimeClass](in, "RuntimeClass", "", gpuRuntimeClass)
	want := "handler=" + gpuRuntimeClass
	if rc == nil {
		return checks.Fail(id, msg("cluster.rc.live_missing", "path", checks.Shown(in, runtimeClassPath)), want, msg("cluster.absent"), "")
	}
	got := "handler=" + checks.OrNone(msg, rc.Handler)
	if rc.Handler != gpuRuntimeClass {
		m := msg("cluster.rc.live_handler", "got", checks.OrNone(msg, rc.Handler))
		if file != nil && file.Handler != rc.Handler {
			m += msg("cluster.rc.live_vs_file", "file", checks.OrNone(msg, file.Handler), "live", checks.OrNone(msg, rc.Handler))
		}
		return checks.Fail(id, m+msg("cluster.rc.recreate", "path", checks.Shown(in, runtimeClassPath)), want, got, "")
	}
	if file != nil && file.Name == gpuRuntimeClass && file.Handler != rc.Handler {
		return checks.Fail(id, msg("cluster.rc.file_behind", "file", checks.OrNone(msg, file.Handler), "live", rc.Handler), want, got, runtimeClassPath)
	}
	return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.rc.live_ok"), Expected: want, Observed: got}
}

func gpuPodLive(in checks.Input, file, p *corev1.Pod) checks.Result {
	const id = "runtimeclass-pending.pod-live"
	want := "runtimeClassName=nvidia, limits[nvidia.com/gpu]=1"
	if p == nil {
		return checks.Fail(id, msg("cluster.pod.live_missing", "path", checks.Shown(in, gpuPodPath)), want, msg("cluster.absent"), "")
	}
	liveRCN := derefString(p.Spec.RuntimeClassName)
	liveGPU, _ := podGPULimit(p)
	got := "runtimeClassName=" + checks.OrNone(msg, liveRCN) + ", limits[nvidia.com/gpu]=" + checks.OrNone(msg, liveGPU)
	var problems []string
	compare := func(field, fileVal, liveVal, wantVal string) {
		if liveVal == wantVal {
			return
		}
		m := msg("cluster.pod.live_field", "field", field, "got", checks.OrNone(msg, liveVal), "want", wantVal)
		if file != nil && fileVal != liveVal {
			m += msg("cluster.side", "file", checks.OrNone(msg, fileVal), "live", checks.OrNone(msg, liveVal))
		}
		problems = append(problems, m)
	}
	var fileRCN, fileGPU string
	if file != nil {
		fileRCN = derefString(file.Spec.RuntimeClassName)
		fileGPU, _ = podGPULimit(file)
	}
	compare("runtimeClassName", fileRCN, liveRCN, gpuRuntimeClass)
	compare("limits[nvidia.com/gpu]", fileGPU, liveGPU, "1")
	if len(problems) > 0 {
		return checks.Fail(id, strings.Join(problems, " ")+msg("cluster.pod.recreate", "path", checks.Shown(in, gpuPodPath)), want, got, "")
	}
	return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.pod.live_ok"), Expected: want, Observed: got}
}

// pendingGapMin is how long after its creation a pod must have been bound
// for labmate to read, from the pod alone, that it waited for a node. The
// scheduler's first attempt comes milliseconds after creation and both
// timestamps have one-second resolution, so a pod that fit at once shows
// a gap of 0-1 s (a few seconds on a loaded machine). A learner who saw
// the pod Pending and then patched a node in step 6 took minutes.
const pendingGapMin = 10 * time.Second

// scheduledLate returns how long after its creation the pod was bound and
// whether that is long enough to show it waited. The PodScheduled=True
// condition's lastTransitionTime is the binding time: the API server
// stamps it when the condition turns True (after False, or at once).
func scheduledLate(p *corev1.Pod) (time.Duration, bool) {
	c := checks.PodCondition(p, corev1.PodScheduled)
	if c == nil || c.Status != corev1.ConditionTrue || p.CreationTimestamp.IsZero() || c.LastTransitionTime.IsZero() {
		return 0, false
	}
	gap := c.LastTransitionTime.Sub(p.CreationTimestamp.Time)
	return gap, gap >= pendingGapMin
}

// claimsUnschedulable reports whether unscheduled.txt says Unschedulable:
// the learner's own record of the Pending phase.
func claimsUnschedulable(lines []string) bool {
	return len(lines) == 2 && lines[0] == corev1.PodReasonUnschedulable
}

// unschedulableLive decides "the pod is (or was) Pending as Unschedulable":
// from the live condition, the scheduler's events, what labmate saw, or,
// when all of those are gone, from the pod's late binding together with
// the learner's file.
func unschedulableLive(in checks.Input, p *corev1.Pod, lines []string) checks.Result {
	const id = "runtimeclass-pending.unschedulable"
	want := "PodScheduled=False, reason=Unschedulable"
	if p == nil {
		return checks.Wait(id, msg("cluster.pending.no_pod"))
	}
	if m, ok := checks.UnschedulableNow(p); ok {
		return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.pending.now", "message", m), Expected: want, Observed: "Unschedulable"}
	}
	if notes := checks.SchedulerNotes(in, p, witnessUnschedulable); len(notes) > 0 {
		return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.pending.was", "phase", p.Status.Phase,
			"source", msg("cluster.source."+notes[0].Source), "message", notes[0].Message),
			Expected: want, Observed: msg("cluster.pending.observed_past")}
	}
	if gap, late := scheduledLate(p); late {
		gs := gap.Round(time.Second)
		if !claimsUnschedulable(lines) {
			return checks.Result{ID: id, Status: checks.Waiting, Message: msg("cluster.pending.inferred_wait", "gap", gs, "path", checks.Shown(in, unscheduledPath)),
				Expected: want, Observed: msg("cluster.pending.observed_late", "gap", gs)}
		}
		return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.pending.inferred", "gap", gs, "node", checks.OrNone(msg, p.Spec.NodeName)),
			Expected: want, Observed: msg("cluster.pending.observed_late", "gap", gs)}
	}
	c := checks.PodCondition(p, corev1.PodScheduled)
	switch {
	case c == nil && p.Spec.NodeName == "":
		return checks.Wait(id, msg("cluster.pending.not_yet"))
	case c != nil && c.Status == corev1.ConditionFalse:
		return checks.Fail(id, msg("cluster.pending.other_reason", "reason", c.Reason, "message", c.Message), want, "reason="+c.Reason, "")
	default:
		return checks.Fail(id, msg("cluster.pending.scheduled", "phase", p.Status.Phase, "node", checks.OrNone(msg, p.Spec.NodeName)), want,
			msg("cluster.pending.seen_scheduled", "node", checks.OrNone(msg, p.Spec.NodeName)), "")
	}
}

// unscheduledLive compares unscheduled.txt's message with what the
// scheduler said about this pod: its live condition while it is Pending,
// once it is bound any FailedScheduling message seen for it.
func unscheduledLive(in checks.Input, p *corev1.Pod, lines []string) checks.Result {
	const id = "runtimeclass-pending.unscheduled-live"
	if len(lines) != 2 {
		return checks.Wait(id, msg("cluster.unsched.wait_file"))
	}
	if p == nil {
		return checks.Wait(id, msg("cluster.pending.no_pod"))
	}
	got := strings.TrimSpace(lines[1])
	at := checks.Where(unscheduledPath, 2)
	notes := checks.SchedulerNotes(in, p, witnessUnschedulable)
	if m, ok := checks.UnschedulableNow(p); ok {
		live := checks.SchedNote{Source: "condition", Message: strings.TrimSpace(m)}
		if got == live.Message {
			return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.unsched.live_ok", "source", msg("cluster.source.condition")),
				Expected: live.Message, Observed: got, Where: at}
		}
		r := unscheduledWrong(id, got, live, at)
		for _, n := range notes {
			if n.Source != "condition" && got == n.Message {
				r.Message += msg("cluster.unsched.older_hint", "source", msg("cluster.source."+n.Source))
				break
			}
		}
		return r
	}
	if p.Spec.NodeName == "" {
		return checks.Wait(id, msg("cluster.unsched.no_notes"))
	}
	if len(notes) == 0 {
		if gap, late := scheduledLate(p); late && claimsUnschedulable(lines) {
			return checks.Result{ID: id, Status: checks.Unknown, Message: msg("cluster.unsched.expired", "gap", gap.Round(time.Second)),
				Expected: msg("cluster.unsched.expect_message"), Observed: got, Where: at}
		}
		return checks.Wait(id, msg("cluster.unsched.no_notes"))
	}
	for _, n := range notes {
		if got == n.Message {
			return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.unsched.live_ok", "source", msg("cluster.source."+n.Source)),
				Expected: n.Message, Observed: got, Where: at}
		}
	}
	return unscheduledWrong(id, got, notes[0], at)
}

// unscheduledWrong fails the message line against one scheduler note.
func unscheduledWrong(id, got string, n checks.SchedNote, at string) checks.Result {
	m := msg("cluster.unsched.live_wrong", "got", checks.Clip(got, 200), "want", n.Message, "source", msg("cluster.source."+n.Source),
		"col", checks.FirstDiff(got, n.Message))
	return checks.Fail(id, m, n.Message, got, at)
}

func pendingFacts(in checks.Input, p *corev1.Pod, lines []string) []checks.Fact {
	var facts []checks.Fact
	if rc := checks.Live[*nodev1.RuntimeClass](in, "RuntimeClass", "", gpuRuntimeClass); rc != nil {
		facts = append(facts, checks.Fact{Label: msg("cluster.fact.runtimeclass"), Value: "handler=" + checks.OrNone(msg, rc.Handler)})
	} else {
		facts = append(facts, checks.Fact{Label: msg("cluster.fact.runtimeclass"), Value: msg("cluster.absent")})
	}
	if p == nil {
		return append(facts, checks.Fact{Label: msg("cluster.fact.pod"), Value: msg("cluster.absent")})
	}
	gpu, _ := podGPULimit(p)
	facts = append(facts, checks.Fact{Label: msg("cluster.fact.pod"), Value: msg("cluster.fact.pod_value",
		"phase", p.Status.Phase, "node", checks.OrNone(msg, p.Spec.NodeName), "rcn", checks.OrNone(msg, derefString(p.Spec.RuntimeClassName)), "gpu", checks.OrNone(msg, gpu))})
	if c := checks.PodCondition(p, corev1.PodScheduled); c != nil {
		facts = append(facts, checks.Fact{Label: "PodScheduled", Value: fmt.Sprintf("%s / %s / %s", c.Status, checks.OrNone(msg, c.Reason), checks.OrNone(msg, c.Message))})
	} else {
		facts = append(facts, checks.Fact{Label: "PodScheduled", Value: msg("cluster.none")})
	}
	if gap, _ := scheduledLate(p); gap > 0 {
		facts = append(facts, checks.Fact{Label: msg("cluster.fact.bound"), Value: msg("cluster.pending.observed_late", "gap", gap.Round(time.Second))})
	}
	if evs := checks.FailedSchedulingEvents(in, p); len(evs) > 0 {
		facts = append(facts, checks.Fact{Label: msg("cluster.fact.events"), Value: msg("cluster.fact.events_value", "n", len(evs), "last", evs[len(evs)-1])})
	}
	if f, ok := in.Witness.Get(witnessUnschedulable); ok {
		v := f.Value
		if f.UID != string(p.UID) {
			v = msg("cluster.fact.other_uid", "value", v)
		}
		facts = append(facts, checks.Fact{Label: msg("cluster.fact.witness"), Value: v})
	}
	if len(lines) == 2 {
		facts = append(facts, checks.Fact{Label: msg("cluster.fact.unsched_line2"), Value: lines[1]})
	}
	return facts
}
