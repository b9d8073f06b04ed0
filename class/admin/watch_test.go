package admin

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/kube/kubefake"
)

// refused is what client-go returns when nothing listens at the server.
func refused() error {
	return &url.Error{Op: "Get", URL: "https://10.0.0.1:6443/api/v1/namespaces/workshop/configmaps",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
}

// outage is a fake class cluster that can go away: while down, lists and
// new watches fail with fail(); going down ends the watches open. Its
// watches send nothing: what changes while it is away is seen by the
// list after its return.
type outage struct {
	mu      sync.Mutex
	down    atomic.Bool
	fail    func() error
	watches []*watch.RaceFreeFakeWatcher
}

func (o *outage) install(cs *kubefake.Clientset) {
	cs.PrependReactor("list", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		if o.down.Load() {
			return true, nil, o.fail()
		}
		return false, nil, nil
	})
	cs.PrependWatchReactor("configmaps", func(k8stesting.Action) (bool, watch.Interface, error) {
		if o.down.Load() {
			return true, nil, o.fail()
		}
		fw := watch.NewRaceFreeFake()
		o.mu.Lock()
		o.watches = append(o.watches, fw)
		o.mu.Unlock()
		return true, fw, nil
	})
}

// touch sends a change on the open watches. A watch that saw an event
// is no "very short watch" to client-go's reflector, which then, as
// after a real watch that ran a while, watches again without listing:
// a refused watch it retries silently.
func (o *outage) touch(obj runtime.Object) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, w := range o.watches {
		w.Modify(obj)
	}
}

// stop takes the cluster away: its open watches end.
func (o *outage) stop(fail func() error) {
	o.fail = fail
	o.down.Store(true)
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, w := range o.watches {
		w.Stop()
	}
	o.watches = nil
}

func record(learner string) *corev1.ConfigMap {
	raw, _ := class.Marshal(class.NewRecord(class.Identity{Learner: learner, Lab: "gpu-incident"}))
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: class.ObjectName(learner, "gpu-incident"), Namespace: "workshop",
		Labels: map[string]string{class.LabelRecord: "true"}}, Data: map[string]string{class.DataKey: string(raw)}}
}

// next waits for a class that ok accepts.
func next(t *testing.T, classes <-chan class.Class, what string, ok func(class.Class) bool) class.Class {
	t.Helper()
	deadline := time.After(30 * time.Second)
	var last class.Class
	for {
		select {
		case c := <-classes:
			if ok(c) {
				return c
			}
			last = c
		case <-deadline:
			t.Fatalf("no class %s in 30 s; the last: link %q err %v synced %v records %d", what, last.Link, last.Err, last.Synced, len(last.Records))
		}
	}
}

func learnersOf(c class.Class) []string {
	var out []string
	for _, r := range c.Records {
		out = append(out, r.Learner)
	}
	return out
}

// The class cluster goes away: the watch says so at once (Lost, since
// when) and keeps the records; it comes back: a probe finds it and a new
// informer lists, so the class is current again with what changed
// meanwhile, without waiting out client-go's backoff.
func TestWatchSaysLostAndIsCurrentWhenTheClusterReturns(t *testing.T) {
	cs := kubefake.New(record("ana"))
	var o outage
	o.install(cs)
	clk := testingclock.NewFakeClock(t0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	classes := Watch(ctx, WatchConfig{Client: cs, Namespace: "workshop", Clock: clk})
	next(t, classes, "synced", func(c class.Class) bool { return c.Synced && c.Link == class.Current && len(c.Records) == 1 })

	o.touch(record("ana"))
	next(t, classes, "after a change", func(c class.Class) bool { return c.Synced && c.Link == class.Current })
	clk.Step(time.Minute)
	o.stop(refused)
	lost := next(t, classes, "lost", func(c class.Class) bool { return c.Link == class.Lost })
	if !lost.StaleSince.Equal(t0.Add(time.Minute)) || len(lost.Records) != 1 || lost.Err == nil {
		t.Fatalf("lost class: since %v, %d records, err %v", lost.StaleSince, len(lost.Records), lost.Err)
	}
	// Still away when the probe asks: still lost, still since then.
	waitTimer(t, clk)
	clk.Step(ProbeLost)
	waitTimer(t, clk)

	// Back, with a learner added meanwhile.
	if err := cs.Tracker().Add(record("bo")); err != nil {
		t.Fatal(err)
	}
	o.down.Store(false)
	clk.Step(ProbeLost)
	back := next(t, classes, "current again", func(c class.Class) bool { return c.Link == class.Current && len(c.Records) == 2 })
	if back.Err != nil || !back.StaleSince.IsZero() || !slices.Equal(learnersOf(back), []string{"ana", "bo"}) {
		t.Fatalf("class after the return: err %v since %v learners %v", back.Err, back.StaleSince, learnersOf(back))
	}
}

// waitTimer waits until the watch armed its probe.
func waitTimer(t *testing.T, clk *testingclock.FakeClock) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !clk.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatal("the watch armed no probe in 30 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Credentials the class cluster refuses (a learner's kubeconfig, an
// account without rights on the namespace) are Denied, not a connection
// that comes back.
func TestWatchSaysDeniedForRefusedCredentials(t *testing.T) {
	cs := kubefake.New(record("ana"))
	var o outage
	o.install(cs)
	o.stop(func() error {
		return apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no"))
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	classes := Watch(ctx, WatchConfig{Client: cs, Namespace: "workshop", Clock: testingclock.NewFakeClock(t0)})
	c := next(t, classes, "denied", func(c class.Class) bool { return c.Link == class.Denied })
	if c.Synced || len(c.Records) != 0 {
		t.Errorf("a class never read shows %d records (synced %v)", len(c.Records), c.Synced)
	}
}

// A typo: a namespace without a class, or a lab the class has no
// records of, is an error naming what there is, never an empty class.
func TestListRefusesANamespaceWithoutAClassAndAnUnknownLab(t *testing.T) {
	cs := kubefake.New(record("ana"),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "workshop", Labels: map[string]string{class.LabelClass: "true"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "class-b", Labels: map[string]string{class.LabelClass: "true"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	ctx := context.Background()
	if c, err := List(ctx, cs, "workshop", ""); err != nil || len(c.Records) != 1 {
		t.Fatalf("the class: %v %v", c, err)
	}
	_, err := List(ctx, cs, "worksop", "")
	var none NoClass
	if !errors.As(err, &none) || !slices.Equal(none.Others, []string{"class-b", "workshop"}) {
		t.Fatalf("a typo'd namespace: %v", err)
	}
	_, err = List(ctx, cs, "workshop", "gpu-incidnet")
	var nolab NoLab
	if !errors.As(err, &nolab) || !slices.Equal(nolab.Have, []string{"gpu-incident"}) {
		t.Fatalf("a typo'd lab: %v", err)
	}
	// A namespace the instructor may not read (a namespace's admin who
	// typed another) is said as such, naming what they may see.
	cs.PrependReactor("list", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetNamespace() != "elsewhere" {
			return false, nil, nil
		}
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no"))
	})
	_, err = List(ctx, cs, "elsewhere", "")
	var denied NoClass
	if !errors.As(err, &denied) || !denied.Denied || !slices.Equal(denied.Others, []string{"class-b", "workshop"}) ||
		!strings.Contains(err.Error(), "elsewhere") || !strings.Contains(err.Error(), "workshop") {
		t.Fatalf("a namespace the instructor may not read: %v", err)
	}
	for _, e := range []error{none, nolab, denied} {
		if msg := e.Error(); !hangul(msg) {
			t.Errorf("not Korean: %q", msg)
		}
	}
}

func hangul(s string) bool {
	for _, r := range s {
		if r >= 0xAC00 && r <= 0xD7A3 {
			return true
		}
	}
	return false
}
