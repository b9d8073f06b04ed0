package checks

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/observe"
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

// clusterScopes are what each lab's checks read from a cluster.
var clusterScopes = map[string]struct{ namespaces, nodes []string }{
	"gpu-incident": {[]string{labNamespace, operatorNamespace}, labNodes},
}

// ClusterScope returns the namespaces and nodes a lab's checks read, for
// the cluster source to watch; both are empty for a lab without cluster
// steps.
func ClusterScope(lab string) (namespaces, nodes []string) {
	s := clusterScopes[lab]
	return append([]string(nil), s.namespaces...), append([]string(nil), s.nodes...)
}

// clusterGate stands in for a step's live checks when the cluster cannot be
// trusted right now: off, still syncing, unreachable (stale data is never
// passed), or refusing labmate's reads. It returns nil when the live
// checks may run.
func clusterGate(in Input, id string) *Result {
	c := in.Snap.Cluster
	server := c.Server
	if server == "" {
		server = msg("cluster.gate.no_server")
	}
	var r Result
	switch c.State {
	case observe.ClusterSynced:
		return nil
	case observe.ClusterConnecting:
		r = Result{ID: id, Status: Waiting, Message: msg("cluster.gate.connecting", "server", server)}
		if c.Err != "" {
			r.Message += msg("cluster.gate.last_err", "err", c.Err)
		}
	case observe.ClusterUnreachable:
		r = Result{ID: id, Status: Unknown, Message: msg("cluster.gate.unreachable", "server", server, "err", c.Err)}
	case observe.ClusterError:
		r = Result{ID: id, Status: Error, Message: refusalMessage(server, c.Refusals, c.Err)}
	case observe.ClusterOff:
		if c.Err == observe.ClusterDisabled {
			r = Result{ID: id, Status: Unknown, Message: msg("cluster.gate.disabled")}
			break
		}
		fallthrough
	default:
		r = Result{ID: id, Status: Unknown, Message: msg("cluster.gate.off")}
		if c.Err != "" {
			r.Message += msg("cluster.gate.last_err", "err", c.Err)
		}
	}
	r.Expected = msg("cluster.gate.expect")
	r.Observed = string(c.State)
	if c.State == observe.ClusterError {
		r.Observed += ": " + clip(c.Err, 300)
	}
	return &r
}

// refusalMessage words the server's refusals for a learner: which
// resource labmate may not read, where, and with which verb, grouped so a
// role missing everywhere reads as one line.
func refusalMessage(server string, refusals []observe.Refusal, err string) string {
	type group struct {
		code, verb, resource string
		namespaces           []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, r := range refusals {
		code := strconv.Itoa(int(r.Code))
		k := code + " " + r.Verb + " " + r.Resource
		g := byKey[k]
		if g == nil {
			g = &group{code: code, verb: r.Verb, resource: r.Resource}
			byKey[k] = g
			groups = append(groups, g)
		}
		if r.Namespace != "" {
			g.namespaces = append(g.namespaces, r.Namespace)
		}
	}
	if len(groups) == 0 {
		return msg("cluster.gate.refused_raw", "server", server, "err", err)
	}
	var p problemList
	for _, g := range groups {
		switch g.code {
		case "401":
			p.add("cluster.gate.refusal_401")
		case "404":
			p.add("cluster.gate.refusal_404", "resource", g.resource)
		default:
			scope := msg("cluster.gate.scope_cluster")
			if len(g.namespaces) > 0 {
				scope = msg("cluster.gate.scope_namespaces", "namespaces", strings.Join(g.namespaces, ", "))
			}
			p.add("cluster.gate.refusal_403", "scope", scope, "resource", g.resource, "verb", g.verb, "code", g.code)
		}
	}
	return msg("cluster.gate.refused", "server", server, "refusals", p.String())
}

// liveChecksMayRun adds the connection line to a step's observed view and,
// when the cluster cannot be trusted now, the gate result in place of the
// step's live checks. It reports whether the live checks may run.
func liveChecksMayRun(in Input, ev *StepEval, stepID string) bool {
	ev.Observed = append(ev.Observed, clusterFact(in))
	if g := clusterGate(in, stepID+".cluster"); g != nil {
		ev.Checks = append(ev.Checks, *g)
		return false
	}
	return true
}

// clusterFact is the connection line of a cluster step's observed view.
func clusterFact(in Input) Fact {
	c := in.Snap.Cluster
	if c.State == observe.ClusterOff && c.Err == observe.ClusterDisabled {
		return Fact{Label: msg("cluster.fact.cluster"), Value: msg("cluster.state.disabled")}
	}
	v := msg("cluster.state."+string(c.State), "server", c.Server, "version", c.Version)
	if c.Err != "" {
		v += " — " + c.Err
	}
	return Fact{Label: msg("cluster.fact.cluster"), Value: v}
}

// live returns the live object of a kind as its typed pointer, or nil.
func live[T any](in Input, kind, namespace, name string) T {
	t, _ := in.Snap.Object(kind, namespace, name).(T)
	return t
}

// gpuAmount renders a node's nvidia.com/gpu in a resource list: the
// quantity, or "" when the node does not list it.
func gpuAmount(rl corev1.ResourceList) string {
	q, ok := rl[gpuResource]
	if !ok {
		return ""
	}
	return q.String()
}

// sameAmount compares two quantities as numbers ("4" and "4.0" agree); an
// empty string is "none".
func sameAmount(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	qa, err1 := resource.ParseQuantity(a)
	qb, err2 := resource.ParseQuantity(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return qa.Cmp(qb) == 0
}

// orNone shows an empty value as the "none" word.
func orNone(s string) string {
	if s == "" {
		return msg("cluster.none")
	}
	return s
}

// podCondition returns a pod's condition of a type, or nil.
func podCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	if p == nil {
		return nil
	}
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func podReady(p *corev1.Pod) bool {
	c := podCondition(p, corev1.PodReady)
	return c != nil && c.Status == corev1.ConditionTrue
}

// unschedulableNow returns the live PodScheduled message when the pod is
// Pending because the scheduler found no node.
func unschedulableNow(p *corev1.Pod) (string, bool) {
	c := podCondition(p, corev1.PodScheduled)
	if c == nil || c.Status != corev1.ConditionFalse || c.Reason != corev1.PodReasonUnschedulable {
		return "", false
	}
	return c.Message, true
}

// schedNote is one message the scheduler gave a pod, and where labmate saw it.
type schedNote struct {
	source  string // "condition", "event", "witness"
	message string
}

// failedSchedulingEvents returns the FailedScheduling messages recorded for
// this very pod (same UID), oldest first.
func failedSchedulingEvents(in Input, p *corev1.Pod) []string {
	type ev struct {
		at  time.Time
		msg string
	}
	var evs []ev
	for _, o := range in.Snap.ObjectsOf("Event") {
		e, ok := o.(*corev1.Event)
		if !ok || e.Reason != "FailedScheduling" || e.Namespace != p.Namespace {
			continue
		}
		io := e.InvolvedObject
		if io.Kind != "Pod" || io.Name != p.Name || (io.UID != "" && io.UID != p.UID) {
			continue
		}
		at := e.LastTimestamp.Time
		if e.Series != nil && e.Series.LastObservedTime.After(at) {
			at = e.Series.LastObservedTime.Time
		}
		if e.EventTime.After(at) {
			at = e.EventTime.Time
		}
		evs = append(evs, ev{at, e.Message})
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at.Before(evs[j].at) })
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.msg
	}
	return out
}

// schedulerNotes collects every message the scheduler is known to have
// given this pod: the live condition, FailedScheduling events, and what
// labmate remembered (only for the same pod UID). Duplicates are dropped.
func schedulerNotes(in Input, p *corev1.Pod, witnessKey string) []schedNote {
	var notes []schedNote
	seen := map[string]bool{}
	add := func(source, m string) {
		m = strings.TrimSpace(m)
		if m == "" || seen[m] {
			return
		}
		seen[m] = true
		notes = append(notes, schedNote{source, m})
	}
	if m, ok := unschedulableNow(p); ok {
		add("condition", m)
	}
	for _, m := range failedSchedulingEvents(in, p) {
		add("event", m)
	}
	if witnessKey != "" {
		if f, ok := in.Witness.Get(witnessKey); ok && f.UID == string(p.UID) {
			add("witness", f.Value)
		}
	}
	return notes
}

// firstDiff returns the 1-based rune position where a and b first differ.
func firstDiff(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < len(ra) && i < len(rb); i++ {
		if ra[i] != rb[i] {
			return i + 1
		}
	}
	return min(len(ra), len(rb)) + 1
}

// fieldCheck collects what is wrong in a manifest's fields, each with its
// line, into one result.
type fieldCheck struct {
	m        *manifest
	problems []string
	at       string
	expected []string
	observed []string
}

// objectFields starts the field check of a decoded manifest with the
// object's expected name and, for a namespaced kind, namespace.
func objectFields(m *manifest, obj metav1.Object, name, namespace string) *fieldCheck {
	fc := &fieldCheck{m: m}
	fc.expect("metadata.name", obj.GetName(), name, "")
	if namespace != "" {
		fc.expect("metadata.namespace", obj.GetNamespace(), namespace, "")
	}
	return fc
}

// expect records that path should be want; when got differs it adds a
// problem (with hint appended) naming the line.
func (fc *fieldCheck) expect(path, got, want, hint string) {
	fc.expected = append(fc.expected, path+"="+want)
	fc.observed = append(fc.observed, path+"="+orNone(got))
	if got == want {
		return
	}
	if got == "" {
		fc.problem(path, msg("cluster.field.missing", "field", path, "want", want)+hint)
		return
	}
	fc.problem(path, msg("cluster.field.wrong", "field", path, "got", got, "want", want, "line", fc.m.line(path))+hint)
}

// problem adds a finished problem sentence about path.
func (fc *fieldCheck) problem(path, text string) {
	if fc.at == "" {
		fc.at = fc.m.where(path)
	}
	fc.problems = append(fc.problems, text)
}

func (fc *fieldCheck) result(id, okText string) Result {
	exp, obs := strings.Join(fc.expected, ", "), strings.Join(fc.observed, ", ")
	if len(fc.problems) == 0 {
		return Result{ID: id, Status: Passed, Message: okText, Expected: exp, Observed: obs}
	}
	return failed(id, strings.Join(fc.problems, " "), exp, obs, fc.at)
}

// reportValue compares one report line with the value labmate derived.
// why says where the expected value comes from.
type reportValue struct {
	key, want, why string
	hint           string // appended when the value is wrong
}

// checkReportValues compares every derived value with the file's lines
// and returns one result listing each difference. A key the file lacks is
// never read as right: with nothing else wrong the check waits on the
// format check (which says how to fix the file) and names the keys.
func checkReportValues(id, rel string, byKey map[string]kvLine, values []reportValue, okText string) Result {
	var problems, exp, obs, missing []string
	at := ""
	for _, v := range values {
		exp = append(exp, v.key+"="+v.want)
		l, ok := byKey[v.key]
		if !ok {
			missing = append(missing, v.key)
			obs = append(obs, v.key+"="+msg("report.no_line"))
			continue
		}
		obs = append(obs, v.key+"="+reportShown(l.value))
		if l.value == v.want {
			continue
		}
		if at == "" {
			at = where(rel, l.n)
		}
		problems = append(problems, msg("cluster.report.value_wrong", "key", v.key, "got", reportShown(l.value), "line", l.n, "want", v.want, "why", v.why)+v.hint)
	}
	expected, observed := strings.Join(exp, ", "), strings.Join(obs, ", ")
	switch {
	case len(problems) > 0:
		m := strings.Join(problems, " ")
		if len(missing) > 0 {
			m += msg("cluster.report.also_missing", "keys", strings.Join(missing, ", "))
		}
		return failed(id, m, expected, observed, at)
	case len(missing) > 0:
		return Result{ID: id, Status: Waiting, Message: msg("cluster.report.keys_missing", "path", rel, "keys", strings.Join(missing, ", ")),
			Expected: expected, Observed: observed, Where: rel}
	}
	return Result{ID: id, Status: Passed, Message: okText, Expected: expected, Observed: observed}
}

// itoa formats an int32 status field.
func itoa(n int32) string { return fmt.Sprint(n) }
