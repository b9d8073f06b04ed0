package checks

import (
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/keyscan"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/observe"
)

// A key thousands of parts deep costs the line index no more than its
// length: the index records at most maxKeyDepth prefixes of each key.
func TestKeyLinesDeepKeyIsLinear(t *testing.T) {
	measure := func(depth int) uint64 {
		key := strings.Repeat("a.", depth) + "a = 1\n"
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		lines, _ := keyLines([]byte(key))
		runtime.ReadMemStats(&after)
		if len(lines) != maxKeyDepth || lines["a"] != 1 {
			t.Fatalf("depth %d: %d paths recorded", depth, len(lines))
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := measure(1000), measure(10000)
	// Ten times deeper: about ten times the bytes, never a hundred.
	if large > 20*small+1<<20 {
		t.Errorf("depth 1000: %d bytes, depth 10000: %d bytes", small, large)
	}
}

// The cap: six problems worded, the rest counted; the line count always
// comes first.
func TestParseKeyValuesCapsProblems(t *testing.T) {
	_, problems := ParseKeyValues(content.Msg, strings.Repeat("noise\n", 50), []string{"A", "B"}, false)
	got := problems.String()
	parts := strings.Split(got, "; ")
	// count + 6 worded + "more"
	if len(parts) != 1+maxProblems+1 {
		t.Fatalf("%d parts: %q", len(parts), got)
	}
	if parts[0] != "50줄입니다(2줄이어야 합니다)" {
		t.Errorf("first %q", parts[0])
	}
	// 50 lines without '=', 2 missing keys: 52 problems, 6 worded.
	if parts[len(parts)-1] != "그 밖에 46가지" {
		t.Errorf("last %q", parts[len(parts)-1])
	}
}

// Every message key the primitives use is a shared one (content/*.toml):
// they serve every lab.
func TestMessageKeysAreShared(t *testing.T) {
	keys := keyscan.Keys(t, ".", regexp.MustCompile(`^(files|report|cluster|labkit)\.[a-z0-9_.]+[a-z0-9_]$`))
	for k, at := range keys {
		if !content.HasMsg(k) {
			t.Errorf("%s: message %q is not in content/*.toml", at, k)
		}
	}
	for _, s := range []observe.ClusterState{observe.ClusterOff, observe.ClusterConnecting, observe.ClusterSynced, observe.ClusterUnreachable, observe.ClusterError} {
		if !content.HasMsg("cluster.state." + string(s)) {
			t.Errorf("no shared text for cluster state %s", s)
		}
	}
	if len(keys) < 80 {
		t.Fatalf("found only %d keys: the scan is broken", len(keys))
	}
}

// EventMessages picks the events of one reason recorded for one object,
// oldest first: a cluster-scoped one too (its events name no namespace),
// and with a UID only that very object's.
func TestEventMessages(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	ev := func(name, kind, ns, obj, uid, reason, message string, at time.Time) *corev1.Event {
		return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Reason: reason, Message: message,
			InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: ns, Name: obj, UID: types.UID(uid)}, LastTimestamp: metav1.NewTime(at)}
	}
	snap := &observe.Snapshot{Objects: map[observe.ObjectKey]kruntime.Object{}}
	for _, e := range []*corev1.Event{
		ev("a", "Node", "", "n0", "n-uid", "Rebooted", "later", t0.Add(time.Minute)),
		ev("b", "Node", "", "n0", "n-uid", "Rebooted", "first", t0),
		ev("c", "Node", "", "n0", "old-uid", "Rebooted", "an earlier node's", t0),
		ev("d", "Node", "", "n1", "", "Rebooted", "another node's", t0),
		ev("e", "Node", "", "n0", "", "NodeReady", "another reason", t0),
		ev("f", "Pod", "default", "n0", "", "Rebooted", "a pod's", t0),
	} {
		snap.Objects[observe.ObjectKey{Kind: "Event", Namespace: e.Namespace, Name: e.Name}] = e
	}
	if got := EventMessages(snap, "Rebooted", "Node", "", "n0", "n-uid"); !slices.Equal(got, []string{"first", "later"}) {
		t.Errorf("node n0: %q", got)
	}
	if got := EventMessages(snap, "Rebooted", "Node", "", "n0", ""); len(got) != 3 {
		t.Errorf("node n0 of any UID: %q", got)
	}
}

// A report's why written as a sentence of its own ends the value's
// sentence once, not twice.
func TestReportWhyEndsTheSentenceOnce(t *testing.T) {
	byKey := map[string]KVLine{"SLOTS": {Key: "SLOTS", Value: "4", N: 1}}
	for _, why := range []string{"노드가 광고하는 값입니다.", "노드가 광고하는 값입니다"} {
		r := CheckReportValues(content.Msg, "r", "out/report.txt", byKey, []ReportValue{{Key: "SLOTS", Want: "8", Why: why}}, "ok")
		if strings.Contains(r.Message, "..") || !strings.Contains(r.Message, "노드가 광고하는 값입니다.") {
			t.Errorf("why %q: %q", why, r.Message)
		}
	}
}

// A lab may reword a shared text: the words a primitive adds of its own
// (the "none" word, a missing field) come through the lab's lookup it is
// handed, never the shared catalogue behind its back.
func TestPrimitivesWordThroughTheLab(t *testing.T) {
	lab, err := content.LoadDir(testfiles.Dir(t, map[string]string{
		"lab.toml":      "id = \"reworded\"\ntitle = \"t\"\n",
		"messages.toml": "[cluster]\nnone = \"아무것도 없음\"\n[cluster.field]\nmissing = \"{field} 가 비었습니다 (실습의 말)\"\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Lab: lab}
	fc := NewFieldCheck(in.Msg, &Manifest{})
	fc.Expect("spec.x", "", "1", "")
	r := fc.Result("c", "ok")
	if !strings.Contains(r.Observed, "spec.x=아무것도 없음") || !strings.Contains(r.Message, "spec.x 가 비었습니다 (실습의 말)") {
		t.Errorf("observed %q, message %q: the lab's words did not reach the primitive", r.Observed, r.Message)
	}
	if got := JoinOr(in.Msg, nil, ", "); got != content.Msg("files.none") {
		t.Errorf("JoinOr of nothing = %q", got)
	}
}
