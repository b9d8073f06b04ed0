package gpuincident

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
)

// Step 8: the toolkit DaemonSet, Ready on v1.16.2, then updated to
// v1.17.0 with a 64Gi memory request that no 32Gi node can hold, so the
// rolling update stops after its first pod.
//
// Rules and sources: steps/08-rollout-stall.md, 사실 근거 (kubernetes.io
// "Perform a Rolling Update on a DaemonSet", "Resource Management for
// Pods and Containers").

const (
	toolkitRepo = "nvcr.io/nvidia/k8s/container-toolkit"
	oldImage    = toolkitRepo + ":v1.16.2"
	newImage    = toolkitRepo + ":v1.17.0"
	oldMemory   = "128Mi"
	newMemory   = "64Gi"
)

// rolloutReport is rollout.txt; step 8 does not forbid spaces around '='.
var rolloutReport = checks.ReportFile{Rel: rolloutPath, Keys: []string{"DESIRED", "UPDATED", "READY", "OLD_IMAGE_PODS", "MAX_UNAVAILABLE", "BLOCKER"}}

// toolkitTemplate is the part of a DaemonSet's pod template the lab
// changes: the toolkit container's image and memory request.
type toolkitTemplate struct {
	image, memory string
	index         int // container index, for field paths
}

func templateOf(spec *corev1.PodSpec) toolkitTemplate {
	if len(spec.Containers) == 0 {
		return toolkitTemplate{index: -1}
	}
	i := 0
	for j, c := range spec.Containers {
		if strings.HasPrefix(c.Image, toolkitRepo) {
			i = j
			break
		}
	}
	t := toolkitTemplate{image: spec.Containers[i].Image, index: i}
	if q, ok := spec.Containers[i].Resources.Requests[corev1.ResourceMemory]; ok {
		t.memory = q.String()
	}
	return t
}

func (t toolkitTemplate) isOld() bool {
	return t.image == oldImage && checks.SameAmount(t.memory, oldMemory)
}
func (t toolkitTemplate) isNew() bool {
	return t.image == newImage && checks.SameAmount(t.memory, newMemory)
}
func (t toolkitTemplate) String() string {
	return checks.OrNone(msg, t.image) + ", memory " + checks.OrNone(msg, t.memory)
}

func maxUnavailable(ds *appsv1.DaemonSet) string {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return ""
	}
	return ru.MaxUnavailable.String()
}

// toolkitPods returns the live pods the DaemonSet owns (by UID), skipping
// pods already being deleted, ordered by node.
func toolkitPods(in checks.Input, ds *appsv1.DaemonSet) []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range in.Snap.ObjectsOf("Pod") {
		p, ok := o.(*corev1.Pod)
		if !ok || p.Namespace != ds.Namespace || p.DeletionTimestamp != nil {
			continue
		}
		for _, ref := range p.OwnerReferences {
			if ref.UID == ds.UID {
				out = append(out, p)
				break
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return podNode(out[i]) < podNode(out[j]) })
	return out
}

// podNode is where a DaemonSet pod runs or is meant to run.
func podNode(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range t.MatchFields {
				if f.Key == "metadata.name" && len(f.Values) == 1 {
					return f.Values[0]
				}
			}
		}
	}
	return p.Name
}

// readyOnOld counts pods on the old image that are Ready.
func readyOnOld(pods []*corev1.Pod) (old, ready int) {
	for _, p := range pods {
		if templateOf(&p.Spec).image == oldImage {
			old++
			if checks.PodReady(p) {
				ready++
			}
		}
	}
	return old, ready
}

// rememberToolkitReady records that every pod of the DaemonSet (this UID)
// was Ready on v1.16.2, the state step 8's update starts from.
func rememberToolkitReady(snap *observe.Snapshot, w *checks.Witness, _ bool) bool {
	ds, _ := snap.Object("DaemonSet", operatorNamespace, toolkitName).(*appsv1.DaemonSet)
	if ds == nil || ds.Status.DesiredNumberScheduled == 0 || templateOf(&ds.Spec.Template.Spec).image != oldImage {
		return false
	}
	_, ready := readyOnOld(toolkitPods(checks.Input{Lab: text(), Snap: snap}, ds))
	if int32(ready) < ds.Status.DesiredNumberScheduled {
		return false
	}
	if old, ok := w.Get(witnessToolkitReady); ok && old.UID == string(ds.UID) {
		return false
	}
	return w.Set(witnessToolkitReady, checks.WitnessFact{Value: strconv.Itoa(ready), UID: string(ds.UID), Seen: snap.Time})
}

func evalRolloutStall(in checks.Input) checks.StepEval {
	var ev checks.StepEval
	file, m, r := checks.DecodeManifest[appsv1.DaemonSet](in, "rollout-stall.ds-file", toolkitDSPath, "apps/v1", "DaemonSet")
	ev.Checks = append(ev.Checks, r, toolkitFields(m, file))
	byKey, r, reportRead := checks.ReadReport(in, "rollout-stall.report-format", rolloutReport)
	ev.Checks = append(ev.Checks, r)
	if !checks.LiveChecksMayRun(in, &ev, "rollout-stall") {
		return ev
	}
	lds := checks.Live[*appsv1.DaemonSet](in, "DaemonSet", operatorNamespace, toolkitName)
	if lds == nil {
		ev.Checks = append(ev.Checks, checks.Fail("rollout-stall.ds-live", msg("cluster.ds.live_missing", "path", checks.Shown(in, toolkitDSPath)),
			msg("cluster.ds.expect_live"), msg("cluster.absent"), ""))
		return ev
	}
	pods := toolkitPods(in, lds)
	blocked, blockMsg := blockedNewPod(in, pods)
	ev.Checks = append(ev.Checks,
		toolkitLive(file, lds),
		toolkitWasReady(in, lds, pods),
		rolloutStalled(lds, pods, blocked, blockMsg),
	)
	if reportRead {
		ev.Checks = append(ev.Checks, rolloutReportLive(byKey, lds, pods, blockMsg))
	} else {
		ev.Checks = append(ev.Checks, checks.Wait("rollout-stall.report-live", msg("cluster.wait.file", "path", rolloutPath)))
	}
	ev.Observed = append(ev.Observed, rolloutFacts(in, lds, pods)...)
	return ev
}

func toolkitFields(m *checks.Manifest, ds *appsv1.DaemonSet) checks.Result {
	const id = "rollout-stall.ds-fields"
	if m == nil {
		return checks.Wait(id, msg("cluster.wait.manifest", "path", toolkitDSPath))
	}
	fc := checks.ObjectFields(msg, m, ds, toolkitName, operatorNamespace)
	if t := ds.Spec.UpdateStrategy.Type; t != "" && t != appsv1.RollingUpdateDaemonSetStrategyType {
		fc.Problem("spec.updateStrategy.type", msg("cluster.ds.strategy", "got", t, "line", m.Line("spec.updateStrategy.type")))
	}
	fc.Expect("spec.updateStrategy.rollingUpdate.maxUnavailable", maxUnavailable(ds), "1", "")
	t := templateOf(&ds.Spec.Template.Spec)
	fc.Note("image+memory="+oldImage+"+"+oldMemory, "image+memory="+checks.OrNone(msg, t.image)+"+"+checks.OrNone(msg, t.memory))
	base := fmt.Sprintf("spec.template.spec.containers[%d]", max(t.index, 0))
	switch {
	case t.index < 0:
		fc.Problem("spec.template.spec", msg("cluster.ds.no_container"))
	case t.isOld() || t.isNew():
	case t.image == oldImage:
		fc.Problem(base+".resources", msg("cluster.ds.old_memory", "got", checks.OrNone(msg, t.memory), "want", oldMemory, "line", m.Line(base+".resources")))
	case t.image == newImage:
		fc.Problem(base+".resources", msg("cluster.ds.new_memory", "got", checks.OrNone(msg, t.memory), "want", newMemory, "line", m.Line(base+".resources")))
	default:
		fc.Problem(base+".image", msg("cluster.ds.image", "got", checks.OrNone(msg, t.image), "line", m.Line(base+".image"), "old", oldImage, "new", newImage))
	}
	return fc.Result(id, msg("cluster.ds.fields_ok"))
}

// toolkitLive compares the live DaemonSet with the file: the same
// maxUnavailable, and the same template, or the file still on v1.16.2 while
// the cluster carries the update.
func toolkitLive(file, ds *appsv1.DaemonSet) checks.Result {
	const id = "rollout-stall.ds-live"
	lt := templateOf(&ds.Spec.Template.Spec)
	got := "maxUnavailable=" + checks.OrNone(msg, maxUnavailable(ds)) + ", " + lt.String()
	if file == nil {
		return checks.Result{ID: id, Status: checks.Waiting, Message: msg("cluster.wait.manifest", "path", toolkitDSPath), Observed: got}
	}
	ft := templateOf(&file.Spec.Template.Spec)
	want := "maxUnavailable=" + checks.OrNone(msg, maxUnavailable(file)) + ", " + ft.String()
	var problems []string
	if maxUnavailable(file) != maxUnavailable(ds) {
		problems = append(problems, msg("cluster.ds.live_field", "field", "maxUnavailable")+
			msg("cluster.side", "file", checks.OrNone(msg, maxUnavailable(file)), "live", checks.OrNone(msg, maxUnavailable(ds))))
	}
	sameTemplate := ft.image == lt.image && checks.SameAmount(ft.memory, lt.memory)
	switch {
	case sameTemplate, ft.isOld() && lt.image != oldImage:
		// Applied as written, or updated in the cluster after the file.
	case ft.isNew() && lt.isOld():
		problems = append(problems, msg("cluster.ds.not_applied", "file", ft.String(), "live", lt.String()))
	default:
		problems = append(problems, msg("cluster.ds.live_field", "field", "template")+msg("cluster.side", "file", ft.String(), "live", lt.String()))
	}
	if len(problems) > 0 {
		return checks.Fail(id, strings.Join(problems, " "), want, got, toolkitDSPath)
	}
	return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.ds.live_ok", "template", lt.String()), Expected: want, Observed: got}
}

// toolkitWasReady decides "all pods were Ready on v1.16.2 before the
// update": seen now, remembered for this DaemonSet, or inferred from the
// pods the stalled rollout left.
func toolkitWasReady(in checks.Input, ds *appsv1.DaemonSet, pods []*corev1.Pod) checks.Result {
	const id = "rollout-stall.was-ready"
	desired := ds.Status.DesiredNumberScheduled
	want := msg("cluster.ready.expect", "n", desired)
	old, ready := readyOnOld(pods)
	lt := templateOf(&ds.Spec.Template.Spec)
	if lt.image == oldImage {
		if desired > 0 && int32(ready) >= desired {
			return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.ready.now", "n", ready), Expected: want, Observed: fmt.Sprintf("%d/%d", ready, desired)}
		}
		return checks.Result{ID: id, Status: checks.Waiting, Message: msg("cluster.ready.not_yet", "ready", ready, "n", desired), Expected: want, Observed: fmt.Sprintf("%d/%d", ready, desired)}
	}
	if f, ok := in.Witness.Get(witnessToolkitReady); ok && f.UID == string(ds.UID) {
		return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.ready.witness", "n", f.Value, "seen", f.Seen.Local().Format("2006-01-02 15:04:05")),
			Expected: want, Observed: msg("cluster.ready.observed_witness", "n", f.Value)}
	}
	if old > 0 && ready == old && int32(old)+ds.Status.UpdatedNumberScheduled == desired {
		return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.ready.inferred", "old", old, "updated", ds.Status.UpdatedNumberScheduled),
			Expected: want, Observed: msg("cluster.ready.observed_inferred")}
	}
	return checks.Fail(id, msg("cluster.ready.no_evidence", "old", old, "ready", ready), want, fmt.Sprintf("%d/%d", ready, old), "")
}

var insufficientRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Insufficient ([A-Za-z0-9./_-]+)`) })

// blockedNewPod finds a pod of the new template the scheduler refused, and
// the scheduler's message for it.
func blockedNewPod(in checks.Input, pods []*corev1.Pod) (*corev1.Pod, string) {
	for _, p := range pods {
		if templateOf(&p.Spec).image != newImage || p.Spec.NodeName != "" {
			continue
		}
		if notes := checks.SchedulerNotes(in, p, ""); len(notes) > 0 {
			return p, notes[len(notes)-1].Message
		}
	}
	return nil, ""
}

// blockerToken turns "Insufficient memory" into "insufficient-memory".
func blockerToken(schedMsg string) string {
	sm := insufficientRE().FindStringSubmatch(schedMsg)
	if sm == nil {
		return ""
	}
	return "insufficient-" + strings.ToLower(strings.NewReplacer("/", "-", ".", "-").Replace(sm[1]))
}

func rolloutStalled(ds *appsv1.DaemonSet, pods []*corev1.Pod, blocked *corev1.Pod, blockMsg string) checks.Result {
	const id = "rollout-stall.stalled"
	st := ds.Status
	lt := templateOf(&ds.Spec.Template.Spec)
	want := msg("cluster.stall.expect", "image", newImage, "memory", newMemory)
	got := fmt.Sprintf("%s; UPDATED=%d/%d, READY=%d", lt, st.UpdatedNumberScheduled, st.DesiredNumberScheduled, st.NumberReady)
	switch {
	case lt.image == oldImage:
		return checks.Fail(id, msg("cluster.stall.not_updated", "image", lt.image), want, got, "")
	case lt.image != newImage:
		return checks.Fail(id, msg("cluster.stall.other_image", "image", checks.OrNone(msg, lt.image), "want", newImage), want, got, "")
	case !checks.SameAmount(lt.memory, newMemory):
		m := msg("cluster.stall.memory", "got", checks.OrNone(msg, lt.memory), "want", newMemory)
		if st.DesiredNumberScheduled > 0 && st.UpdatedNumberScheduled == st.DesiredNumberScheduled {
			m = msg("cluster.stall.completed", "updated", st.UpdatedNumberScheduled, "desired", st.DesiredNumberScheduled, "ready", st.NumberReady) + " " + m
		}
		return checks.Fail(id, m, want, got, "")
	case st.ObservedGeneration < ds.Generation:
		return checks.Result{ID: id, Status: checks.Waiting, Message: msg("cluster.stall.observing"), Expected: want, Observed: got}
	case st.DesiredNumberScheduled > 0 && st.UpdatedNumberScheduled >= st.DesiredNumberScheduled && blocked == nil:
		return checks.Fail(id, msg("cluster.stall.not_stalled", "updated", st.UpdatedNumberScheduled, "desired", st.DesiredNumberScheduled), want, got, "")
	case blocked == nil:
		return checks.Result{ID: id, Status: checks.Waiting, Message: msg("cluster.stall.no_verdict"), Expected: want, Observed: got}
	case blockerToken(blockMsg) != "insufficient-memory":
		return checks.Fail(id, msg("cluster.stall.other_blocker", "pod", blocked.Name, "message", blockMsg), want, got, "")
	}
	return checks.Result{ID: id, Status: checks.Passed, Message: msg("cluster.stall.ok", "pod", blocked.Name, "node", podNode(blocked),
		"updated", st.UpdatedNumberScheduled, "desired", st.DesiredNumberScheduled, "message", blockMsg), Expected: want, Observed: got}
}

// rolloutReportLive compares rollout.txt with the live DaemonSet and pods.
func rolloutReportLive(byKey map[string]checks.KVLine, ds *appsv1.DaemonSet, pods []*corev1.Pod, blockMsg string) checks.Result {
	const id = "rollout-stall.report-live"
	st := ds.Status
	old, _ := readyOnOld(pods)
	vals := []checks.ReportValue{
		{Key: "DESIRED", Want: itoa(st.DesiredNumberScheduled), Why: "status.desiredNumberScheduled"},
		{Key: "UPDATED", Want: itoa(st.UpdatedNumberScheduled), Why: "status.updatedNumberScheduled", Hint: msg("cluster.report.updated_hint")},
		{Key: "READY", Want: itoa(st.NumberReady), Why: "status.numberReady", Hint: msg("cluster.report.ready_hint")},
		{Key: "OLD_IMAGE_PODS", Want: strconv.Itoa(old), Why: msg("cluster.report.why_old", "image", oldImage)},
		{Key: "MAX_UNAVAILABLE", Want: checks.OrNone(msg, maxUnavailable(ds)), Why: "spec.updateStrategy.rollingUpdate.maxUnavailable"},
	}
	if tok := blockerToken(blockMsg); tok != "" {
		vals = append(vals, checks.ReportValue{Key: "BLOCKER", Want: tok, Why: msg("cluster.report.why_blocker", "message", checks.Clip(blockMsg, 120))})
	}
	r := checks.CheckReportValues(msg, id, rolloutPath, byKey, vals, msg("cluster.report.live_ok"))
	if r.Status == checks.Passed && blockMsg == "" {
		return checks.Result{ID: id, Status: checks.Waiting, Message: msg("cluster.report.no_blocker"), Expected: r.Expected, Observed: r.Observed}
	}
	return r
}

func rolloutFacts(in checks.Input, ds *appsv1.DaemonSet, pods []*corev1.Pod) []checks.Fact {
	st := ds.Status
	facts := []checks.Fact{
		{Label: msg("cluster.fact.ds_status"), Value: fmt.Sprintf("desired=%d current=%d updated=%d ready=%d available=%d unavailable=%d (generation %d, observed %d)",
			st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.UpdatedNumberScheduled, st.NumberReady,
			st.NumberAvailable, st.NumberUnavailable, ds.Generation, st.ObservedGeneration)},
		{Label: msg("cluster.fact.ds_template"), Value: templateOf(&ds.Spec.Template.Spec).String() + ", maxUnavailable=" + checks.OrNone(msg, maxUnavailable(ds))},
	}
	byImage := map[string][]string{}
	var images []string
	for _, p := range pods {
		img := templateOf(&p.Spec).image
		if _, ok := byImage[img]; !ok {
			images = append(images, img)
		}
		state := string(p.Status.Phase)
		if checks.PodReady(p) {
			state = "Ready"
		} else if m, ok := checks.UnschedulableNow(p); ok {
			state = "Unschedulable: " + checks.Clip(m, 100)
		}
		byImage[img] = append(byImage[img], podNode(p)+" ("+state+")")
	}
	sort.Strings(images)
	for _, img := range images {
		facts = append(facts, checks.Fact{Label: msg("cluster.fact.pods_on", "image", imageTag(img)), Value: fmt.Sprintf("%d: %s", len(byImage[img]), strings.Join(byImage[img], ", "))})
	}
	if f, ok := in.Witness.Get(witnessToolkitReady); ok && f.UID == string(ds.UID) {
		facts = append(facts, checks.Fact{Label: msg("cluster.fact.witness"), Value: msg("cluster.ready.observed_witness", "n", f.Value)})
	}
	return facts
}

// imageTag shortens an image to its tag for labels.
func imageTag(img string) string {
	if i := strings.LastIndexByte(img, ':'); i >= 0 && !strings.Contains(img[i:], "/") {
		return img[i+1:]
	}
	return checks.OrNone(msg, img)
}
