package learner

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/kube/kubefake"
)

const testNS = "class-a"

func recordObject(learner, lab string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: class.ObjectName(learner, lab), Namespace: testNS,
		Labels: map[string]string{class.LabelRecord: "true", class.LabelLearner: learner, class.LabelLab: lab}}}
}

func storedRecord(t *testing.T, cs *kubefake.Clientset, learner string) class.Record {
	t.Helper()
	cm, err := cs.CoreV1().ConfigMaps(testNS).Get(context.Background(), class.ObjectName(learner, "gpu-incident"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := class.Unmarshal([]byte(cm.Data[class.DataKey]))
	if err != nil {
		t.Fatalf("stored record: %v (%q)", err, cm.Data[class.DataKey])
	}
	return r
}

// waitFor polls cond until it holds: 30 s, for a loaded machine; it holds
// at once when the code is right.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func fastRetry() wait.Backoff {
	return wait.Backoff{Duration: 20 * time.Millisecond, Factor: 1, Steps: 1, Cap: 50 * time.Millisecond}
}

// A burst of changes costs one request per interval, and the newest
// record is the one that lands (latest wins), with labmate's field
// manager. The publisher's clock is a fake one the test steps: what is
// sent when is decided by the limiter, not by how fast this machine is.
func TestPublisherSendsLatestAtMostOncePerInterval(t *testing.T) {
	f := &feed{}
	cs := kubefake.New(recordObject("learner-01", "gpu-incident"))
	clk := testingclock.NewFakeClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	const interval = 2 * time.Second
	var sent atomic.Int64
	p := NewPublisher(PublisherConfig{Client: cs, Namespace: testNS, Interval: interval, Clock: clk,
		Identity: class.Identity{Learner: "learner-01", Lab: "gpu-incident"}, Sent: func(class.Record) { sent.Add(1) }})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.Run(ctx)
	requests := func(n int64) func() bool { return func() bool { return p.Requests() == n } }

	// The limiter's burst of two: the first two changes go out at once.
	p.Publish(Update{Report: f.report(checks.Failed, checks.Failed, checks.Failed)})
	waitFor(t, "the first send", requests(1))
	p.Publish(Update{Hints: &Hints{Step: 1, Seen: 2}})
	waitFor(t, "the second send", requests(2))

	// Then a burst of 60 changes waits for the interval: the sender
	// blocks on the clock and sends nothing meanwhile.
	sts := []checks.Status{checks.Failed, checks.Failed, checks.Failed}
	for i := range 30 {
		sts[i%3] = []checks.Status{checks.Failed, checks.Passed, checks.Waiting}[i%3]
		p.Publish(Update{Report: f.report(sts...)})
		p.Publish(Update{Hints: &Hints{Step: 1, Seen: 3 + i}})
	}
	waitFor(t, "the sender to wait for the interval", clk.HasWaiters)
	if n := p.Requests(); n != 2 {
		t.Fatalf("%d requests before the interval passed, want 2", n)
	}
	want := p.Record()

	// One interval later, one send carries the newest record.
	clk.Step(interval)
	waitFor(t, "the send after the interval", requests(3))
	// A request is counted as it starts, and the status was connected
	// since the first send: the record is read once the third send
	// returned.
	waitFor(t, "the third send to return", func() bool { return sent.Load() == 3 })
	if st := p.Status(); st.State != Connected {
		t.Fatalf("status after the send: %+v", st)
	}
	got := storedRecord(t, cs, "learner-01")
	if got.Step(1).Hints != 32 || got.Step(1).Status != want.Step(1).Status || got.Step(3).Status != want.Step(3).Status {
		t.Fatalf("stored %+v, want %+v", got.Steps, want.Steps)
	}
	cm, _ := cs.CoreV1().ConfigMaps(testNS).Get(ctx, class.ObjectName("learner-01", "gpu-incident"), metav1.GetOptions{})
	owned := false
	for _, mf := range cm.ManagedFields {
		owned = owned || (mf.Manager == class.FieldManager && mf.Operation == metav1.ManagedFieldsOperationApply)
	}
	if !owned {
		t.Fatalf("no apply entry for %q in managed fields: %+v", class.FieldManager, cm.ManagedFields)
	}
	// Nothing changed: nothing is due, and a long while later nothing
	// more was sent.
	p.Publish(Update{Hints: &Hints{Step: 1, Seen: 32}})
	if p.isDirty() {
		t.Fatal("an update that changed nothing is waiting to be sent")
	}
	clk.Step(10 * interval)
	if n := p.Requests(); n != 3 {
		t.Fatalf("an update that changed nothing was sent (%d requests, want 3)", n)
	}
}

// A class cluster that is down keeps the newest record in memory and
// says "retrying"; once it is back the newest record lands.
func TestPublisherRetriesAndDeliversLatest(t *testing.T) {
	f := &feed{}
	cs := kubefake.New(recordObject("learner-01", "gpu-incident"))
	down := goDown(cs)
	p := NewPublisher(PublisherConfig{Client: cs, Namespace: testNS, Interval: 10 * time.Millisecond, Retry: fastRetry(),
		Identity: class.Identity{Learner: "learner-01", Lab: "gpu-incident"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.Run(ctx)
	p.Publish(Update{Report: f.report(checks.Failed)})
	waitFor(t, "retrying", func() bool { return p.Status().State == Retrying && p.Status().Pending })
	p.Publish(Update{Report: f.report(checks.Passed)})
	down.Store(false)
	// A send that took its record before that Publish may land first, and
	// say connected with the newer record pending: the newest has landed
	// once nothing is pending.
	waitFor(t, "connected", func() bool { st := p.Status(); return st.State == Connected && !st.Pending })
	if st := storedRecord(t, cs, "learner-01").Step(1).Status; st != checks.Passed {
		t.Fatalf("stored status %s, want the newest (passed)", st)
	}
}

// Refusals (403, 401, a removed record) say "refused".
func TestPublisherRefused(t *testing.T) {
	f := &feed{}
	for name, err := range map[string]error{
		"forbidden":    apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "x", nil),
		"unauthorized": apierrors.NewUnauthorized("token expired"),
		"not found":    apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "x"),
	} {
		t.Run(name, func(t *testing.T) {
			cs := kubefake.New()
			cs.PrependReactor("patch", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, err })
			p := NewPublisher(PublisherConfig{Client: cs, Namespace: testNS, Interval: 10 * time.Millisecond, Retry: fastRetry(),
				Identity: class.Identity{Learner: "learner-01", Lab: "gpu-incident"}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go p.Run(ctx)
			p.Publish(Update{Report: f.report(checks.Failed)})
			select {
			case st := <-p.Statuses():
				if st.State != Refused || st.Err == nil {
					t.Fatalf("status %+v, want refused", st)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("no status in 30 s")
			}
		})
	}
}

// Publish never blocks, even with the sender stuck on a slow cluster.
func TestPublishNeverBlocks(t *testing.T) {
	f := &feed{}
	cs := kubefake.New(recordObject("learner-01", "gpu-incident"))
	release := make(chan struct{})
	cs.PrependReactor("patch", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		<-release
		return true, nil, apierrors.NewServiceUnavailable("slow")
	})
	defer close(release)
	p := NewPublisher(PublisherConfig{Client: cs, Namespace: testNS, Interval: time.Millisecond,
		Identity: class.Identity{Learner: "learner-01", Lab: "gpu-incident"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.Run(ctx)
	done := make(chan struct{})
	go func() {
		for i := range 1000 {
			p.Publish(Update{Hints: &Hints{Step: 1, Seen: i}})
			p.Publish(Update{Report: f.report(checks.Failed)})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Publish blocked behind a stuck send: 2000 calls not done in 30 s")
	}
}

// check --watch --class says on stderr when publishing fails and when
// it works again: one line each, in Korean, none while nothing changes.
func TestNarrateSaysFailureAndRecovery(t *testing.T) {
	f := &feed{}
	cs := kubefake.New(recordObject("learner-01", "gpu-incident"))
	down := goDown(cs)
	p := NewPublisher(PublisherConfig{Client: cs, Namespace: testNS, Interval: 10 * time.Millisecond, Retry: fastRetry(),
		Identity: class.Identity{Learner: "learner-01", Lab: "gpu-incident"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	said := make(lineChan, 8)
	go Narrate(ctx, p, said)
	go p.Run(ctx)
	p.Publish(Update{Report: f.report(checks.Failed)})
	if l := said.next(t); !strings.Contains(l, "올리지 못했습니다") {
		t.Fatalf("first line %q, want the failure", l)
	}
	down.Store(false)
	p.Publish(Update{Report: f.report(checks.Passed)})
	if l := said.next(t); !strings.Contains(l, "다시 올렸습니다") {
		t.Fatalf("second line %q, want the recovery", l)
	}
	select {
	case l := <-said:
		t.Errorf("a third line %q: one line per change", l)
	case <-time.After(200 * time.Millisecond):
	}
}

// goDown makes the fake class cluster refuse every record (503) until
// the returned flag is cleared.
func goDown(cs *kubefake.Clientset) *atomic.Bool {
	var down atomic.Bool
	down.Store(true)
	cs.PrependReactor("patch", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		if down.Load() {
			return true, nil, apierrors.NewServiceUnavailable("down")
		}
		return false, nil, nil
	})
	return &down
}

// lineChan is a writer whose every write a test receives.
type lineChan chan string

func (c lineChan) Write(p []byte) (int, error) {
	c <- string(p)
	return len(p), nil
}

func (c lineChan) next(t *testing.T) string {
	t.Helper()
	select {
	case l := <-c:
		return l
	case <-time.After(30 * time.Second):
		t.Fatal("nothing said in 30 s")
	}
	return ""
}
