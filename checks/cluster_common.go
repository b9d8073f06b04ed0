package checks

import (
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/labmate/observe"
)

// ClusterGate stands in for a step's live checks when the cluster cannot be
// trusted right now: off, still syncing, unreachable (stale data is never
// passed), or refusing labmate's reads. It returns nil when the live
// checks may run.
func ClusterGate(in Input, id string) *Result {
	c := in.Snap.Cluster
	server := c.Server
	if server == "" {
		server = in.Msg("cluster.gate.no_server")
	}
	var r Result
	switch c.State {
	case observe.ClusterSynced:
		return nil
	case observe.ClusterConnecting:
		r = Result{ID: id, Status: Waiting, Message: in.Msg("cluster.gate.connecting", "server", server)}
		if c.Err != "" {
			r.Message += in.Msg("cluster.gate.last_err", "err", ClusterErr(in.Msg, c))
		}
	case observe.ClusterUnreachable:
		r = Result{ID: id, Status: Unknown, Message: in.Msg("cluster.gate.unreachable", "server", server, "err", ClusterErr(in.Msg, c))}
	case observe.ClusterError:
		r = Result{ID: id, Status: Error, Message: refusalMessage(in, server, c.Refusals, c.Err)}
	case observe.ClusterOff:
		if c.Err == observe.ClusterDisabled {
			r = Result{ID: id, Status: Unknown, Message: in.Msg("cluster.gate.disabled")}
			break
		}
		fallthrough
	default:
		r = Result{ID: id, Status: Unknown, Message: in.Msg("cluster.gate.off")}
		if c.Err != "" {
			r.Message += in.Msg("cluster.gate.last_err", "err", ClusterErr(in.Msg, c))
		}
	}
	r.Expected = in.Msg("cluster.gate.expect")
	r.Observed = string(c.State)
	if c.State == observe.ClusterError {
		r.Observed += ": " + Clip(ClusterErr(in.Msg, c), 300)
	}
	return &r
}

// ClusterErr words why the cluster cannot be read: the refused calls
// ("pods list (gpu-lab) 403"), the cause in Korean when it is a common
// one (kube.cause.*), else the client's own words, which are all there is.
// "" when there is nothing to say (no error, or the cluster turned off on
// purpose). msg is the caller's message lookup (Input.Msg, content.Msg).
func ClusterErr(msg func(string, ...any) string, c observe.ClusterObs) string {
	switch {
	case c.Err == observe.ClusterDisabled:
		return ""
	case len(c.Refusals) > 0:
		parts := make([]string, len(c.Refusals))
		for i, r := range c.Refusals {
			parts[i] = r.Resource + " " + r.Verb
			if r.Namespace != "" {
				parts[i] += " (" + r.Namespace + ")"
			}
			parts[i] += " " + strconv.Itoa(int(r.Code))
		}
		return strings.Join(parts, "; ")
	case c.Cause != "":
		return msg("kube.cause." + string(c.Cause))
	}
	return c.Err
}

// refusalMessage words the server's refusals for a learner: which
// resource labmate may not read, where, and with which verb, grouped so a
// role missing everywhere reads as one line.
func refusalMessage(in Input, server string, refusals []observe.Refusal, err string) string {
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
	lab := "<실습>"
	if in.Lab != nil {
		lab = in.Lab.ID
	}
	if len(groups) == 0 {
		return in.Msg("cluster.gate.refused_raw", "server", server, "err", err, "lab", lab)
	}
	p := ProblemList{Msg: in.Msg}
	for _, g := range groups {
		switch g.code {
		case "401":
			p.Add("cluster.gate.refusal_401")
		case "404":
			p.Add("cluster.gate.refusal_404", "resource", g.resource)
		default:
			scope := in.Msg("cluster.gate.scope_cluster")
			if len(g.namespaces) > 0 {
				scope = in.Msg("cluster.gate.scope_namespaces", "namespaces", strings.Join(g.namespaces, ", "))
			}
			p.Add("cluster.gate.refusal_403", "scope", scope, "resource", g.resource, "verb", g.verb, "code", g.code)
		}
	}
	canI := "kubectl auth can-i list pods"
	if in.Lab != nil && len(in.Lab.Cluster.Namespaces) > 0 {
		canI += " -n " + in.Lab.Cluster.Namespaces[0]
	}
	return in.Msg("cluster.gate.refused", "server", server, "refusals", p.String(), "can_i", canI, "lab", lab)
}

// LiveChecksMayRun adds the connection line to a step's observed view and,
// when the cluster cannot be trusted now, the gate result in place of the
// step's live checks. It reports whether the live checks may run.
func LiveChecksMayRun(in Input, ev *StepEval, stepID string) bool {
	ev.Observed = append(ev.Observed, ClusterFact(in))
	if g := ClusterGate(in, stepID+".cluster"); g != nil {
		ev.Checks = append(ev.Checks, *g)
		return false
	}
	return true
}

// ClusterFact is the connection line of a cluster step's observed view.
func ClusterFact(in Input) Fact {
	c := in.Snap.Cluster
	if c.State == observe.ClusterOff && c.Err == observe.ClusterDisabled {
		return Fact{Label: in.Msg("cluster.fact.cluster"), Value: in.Msg("cluster.state.disabled")}
	}
	v := in.Msg("cluster.state."+string(c.State), "server", c.Server, "version", c.Version)
	if c.Err != "" {
		v += " — " + ClusterErr(in.Msg, c)
	}
	return Fact{Label: in.Msg("cluster.fact.cluster"), Value: v}
}

// Live returns the live object of a kind as its typed pointer, or nil.
func Live[T any](in Input, kind, namespace, name string) T {
	t, _ := in.Snap.Object(kind, namespace, name).(T)
	return t
}

// SameAmount compares two quantities as numbers ("4" and "4.0" agree); an
// empty string is "none".
func SameAmount(a, b string) bool {
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

// OrNone shows an empty value as the "none" word, in the lab's words
// (msg).
func OrNone(msg Lookup, s string) string {
	if s == "" {
		return msg("cluster.none")
	}
	return s
}

// PodCondition returns a pod's condition of a type, or nil.
func PodCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
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

func PodReady(p *corev1.Pod) bool {
	c := PodCondition(p, corev1.PodReady)
	return c != nil && c.Status == corev1.ConditionTrue
}

// UnschedulableNow returns the live PodScheduled message when the pod is
// Pending because the scheduler found no node.
func UnschedulableNow(p *corev1.Pod) (string, bool) {
	c := PodCondition(p, corev1.PodScheduled)
	if c == nil || c.Status != corev1.ConditionFalse || c.Reason != corev1.PodReasonUnschedulable {
		return "", false
	}
	return c.Message, true
}

// SchedNote is one message the scheduler gave a pod, and where labmate saw it.
type SchedNote struct {
	Source  string // "condition", "event", "witness"
	Message string
}

// FailedSchedulingEvents returns the FailedScheduling messages recorded for
// this very pod (same UID), oldest first.
func FailedSchedulingEvents(in Input, p *corev1.Pod) []string {
	return EventMessages(in.Snap, observe.FailedSchedulingReason, "Pod", p.Namespace, p.Name, p.UID)
}

// Event is one event recorded for an object: its newest time and message.
type Event struct {
	At      time.Time
	Message string
}

// Events returns the events with the reason recorded for the object (by
// kind, namespace and name, and uid when both sides know it), oldest
// first by their newest time.
func Events(snap *observe.Snapshot, reason, kind, namespace, name string, uid types.UID) []Event {
	var evs []Event
	for _, o := range snap.ObjectsOf("Event") {
		e, ok := o.(*corev1.Event)
		if !ok || e.Reason != reason {
			continue
		}
		io := e.InvolvedObject
		if io.Kind != kind || io.Namespace != namespace || io.Name != name || (uid != "" && io.UID != "" && io.UID != uid) {
			continue
		}
		at := e.LastTimestamp.Time
		if e.Series != nil && e.Series.LastObservedTime.After(at) {
			at = e.Series.LastObservedTime.Time
		}
		if e.EventTime.After(at) {
			at = e.EventTime.Time
		}
		evs = append(evs, Event{At: at, Message: e.Message})
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].At.Before(evs[j].At) })
	return evs
}

// EventMessages returns the messages of Events, in the same order.
func EventMessages(snap *observe.Snapshot, reason, kind, namespace, name string, uid types.UID) []string {
	evs := Events(snap, reason, kind, namespace, name, uid)
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Message
	}
	return out
}

// SchedulerNotes collects every message the scheduler is known to have
// given this pod: the live condition, FailedScheduling events, and what
// labmate remembered (only for the same pod UID). Duplicates are dropped.
func SchedulerNotes(in Input, p *corev1.Pod, witnessKey string) []SchedNote {
	var notes []SchedNote
	seen := map[string]bool{}
	add := func(source, m string) {
		m = strings.TrimSpace(m)
		if m == "" || seen[m] {
			return
		}
		seen[m] = true
		notes = append(notes, SchedNote{source, m})
	}
	if m, ok := UnschedulableNow(p); ok {
		add("condition", m)
	}
	for _, m := range FailedSchedulingEvents(in, p) {
		add("event", m)
	}
	if witnessKey != "" {
		if f, ok := in.Witness.Get(witnessKey); ok && f.UID == string(p.UID) {
			add("witness", f.Value)
		}
	}
	return notes
}

// FirstDiff returns the 1-based rune position where a and b first differ.
func FirstDiff(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < len(ra) && i < len(rb); i++ {
		if ra[i] != rb[i] {
			return i + 1
		}
	}
	return min(len(ra), len(rb)) + 1
}

// FieldCheck collects what is wrong in a manifest's fields, each with its
// line, into one result.
type FieldCheck struct {
	m        *Manifest
	msg      Lookup
	problems []string
	at       string
	expected []string
	observed []string
}

// NewFieldCheck starts a field check of values read from m (which may
// be empty when the values came from elsewhere, like a ConfigMap's data),
// its problems worded in the lab's words (msg).
func NewFieldCheck(msg Lookup, m *Manifest) *FieldCheck { return &FieldCheck{m: m, msg: msg} }

// Note records an expected and an observed value without judging them
// (the caller judges and adds a Problem).
func (fc *FieldCheck) Note(expected, observed string) {
	fc.expected = append(fc.expected, expected)
	fc.observed = append(fc.observed, observed)
}

// Observe records an observed value with no expectation of its own (a
// decoder's words behind a problem sentence).
func (fc *FieldCheck) Observe(observed string) {
	fc.observed = append(fc.observed, observed)
}

// Problems are the problem sentences so far.
func (fc *FieldCheck) Problems() []string { return fc.problems }

// ObjectFields starts the field check of a decoded manifest with the
// object's expected name and, for a namespaced kind, namespace; its
// problems are worded in the lab's words (msg).
func ObjectFields(msg Lookup, m *Manifest, obj metav1.Object, name, namespace string) *FieldCheck {
	fc := NewFieldCheck(msg, m)
	fc.Expect("metadata.name", obj.GetName(), name, "")
	if namespace != "" {
		fc.Expect("metadata.namespace", obj.GetNamespace(), namespace, "")
	}
	return fc
}

// Expect records that path should be want; when got differs it adds a
// problem (with hint appended) naming the line.
func (fc *FieldCheck) Expect(path, got, want, hint string) {
	fc.expected = append(fc.expected, path+"="+want)
	fc.observed = append(fc.observed, path+"="+OrNone(fc.msg, got))
	if got == want {
		return
	}
	if got == "" {
		fc.Problem(path, fc.msg("cluster.field.missing", "field", path, "want", want)+hint)
		return
	}
	fc.Problem(path, fc.msg("cluster.field.wrong", "field", path, "got", got, "want", want, "line", fc.m.Line(path))+hint)
}

// Problem adds a finished problem sentence about path.
func (fc *FieldCheck) Problem(path, text string) {
	if fc.at == "" {
		fc.at = fc.m.Where(path)
	}
	fc.problems = append(fc.problems, text)
}

func (fc *FieldCheck) Result(id, okText string) Result {
	exp, obs := strings.Join(fc.expected, ", "), strings.Join(fc.observed, ", ")
	if len(fc.problems) == 0 {
		return Result{ID: id, Status: Passed, Message: okText, Expected: exp, Observed: obs}
	}
	return Fail(id, strings.Join(fc.problems, " "), exp, obs, fc.at)
}

// ReportValue compares one report line with the value labmate derived.
// why says where the expected value comes from.
type ReportValue struct {
	Key, Want, Why string
	Hint           string // appended when the value is wrong
}

// whyClause is a why as the clause the sentence ends with: a why written
// as a sentence of its own ("… 입니다.") would end it twice ("..").
func whyClause(why string) string {
	return strings.TrimSuffix(strings.TrimSpace(why), ".")
}

// CheckReportValues compares every derived value with the file's lines
// and returns one result listing each difference. A key the file lacks is
// never read as right: with nothing else wrong the check waits on the
// format check (which says how to fix the file) and names the keys.
// msg is the lab's lookup.
func CheckReportValues(msg Lookup, id, rel string, byKey map[string]KVLine, values []ReportValue, okText string) Result {
	var problems, exp, obs, missing []string
	at := ""
	for _, v := range values {
		exp = append(exp, v.Key+"="+v.Want)
		l, ok := byKey[v.Key]
		if !ok {
			missing = append(missing, v.Key)
			obs = append(obs, v.Key+"="+msg("report.no_line"))
			continue
		}
		obs = append(obs, v.Key+"="+ReportShown(msg, l.Value))
		if l.Value == v.Want {
			continue
		}
		if at == "" {
			at = Where(rel, l.N)
		}
		problems = append(problems, msg("cluster.report.value_wrong", "key", v.Key, "got", ReportShown(msg, l.Value), "line", l.N, "want", v.Want, "why", whyClause(v.Why))+v.Hint)
	}
	expected, observed := strings.Join(exp, ", "), strings.Join(obs, ", ")
	switch {
	case len(problems) > 0:
		m := strings.Join(problems, " ")
		if len(missing) > 0 {
			m += msg("cluster.report.also_missing", "keys", strings.Join(missing, ", "))
		}
		return Fail(id, m, expected, observed, at)
	case len(missing) > 0:
		return Result{ID: id, Status: Waiting, Message: msg("cluster.report.keys_missing", "path", rel, "keys", strings.Join(missing, ", ")),
			Expected: expected, Observed: observed, Where: rel}
	}
	return Result{ID: id, Status: Passed, Message: okText, Expected: expected, Observed: observed}
}
