package admin_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/admin"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// namespaceAdmin is an instructor who was given `admin` on one existing
// namespace of a shared cluster (a RoleBinding to the admin ClusterRole
// there) and nothing cluster-wide: a ServiceAccount's token, as a
// cluster's owner hands one out.
func namespaceAdmin(t *testing.T, ctx context.Context, ns string) kube.Conn {
	t.Helper()
	path := filepath.Join(t.TempDir(), "teacher.kubeconfig")
	sandboxtest.NamespaceAdmin(t, ctx, ns, path)
	conn, err := kube.Open(admin.Kubeconfig(path, ""))
	if err != nil {
		t.Fatal(err)
	}
	tcs, err := conn.Typed()
	if err != nil {
		t.Fatal(err)
	}
	// Nothing cluster-wide: the teacher may not make a namespace.
	if _, err := tcs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns + "-x"}}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("the namespace's admin creating a namespace: %v, want 403", err)
	}
	return conn.Within(30 * time.Second)
}

// A namespace's admin runs a whole class in their namespace: init (the
// namespace found, not made), a learner publishing with the kubeconfig
// init wrote, the export, a re-run with another lab that asks first and
// leaves nothing of the old lab, a typo'd namespace said as such, and the
// end of the class, after which the learner's token is refused.
func TestNamespaceAdminRunsAClassE2E(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sandboxtest.Start(t)
	ns := "class-nsadmin-" + rand.String(6)
	conn := namespaceAdmin(t, ctx, ns)
	tcs, err := conn.Typed()
	if err != nil {
		t.Fatal(err)
	}
	learners := []admin.Entry{{Name: "김지민"}, {Name: "이서준"}}
	cfg := admin.InitConfig{Conn: conn, Namespace: ns, Learners: learners, Labs: []string{"gpu-incident"}, OutDir: t.TempDir(), TokenTTL: time.Hour}
	p, err := admin.PlanInit(ctx, cfg)
	if err != nil {
		t.Fatalf("plan as the namespace's admin: %v", err)
	}
	res, err := admin.Apply(ctx, p)
	if err != nil {
		t.Fatalf("init as the namespace's admin: %v", err)
	}
	if res.NamespaceOf.Kept != 1 || res.Learners.Created != 2 || len(res.Files) != 2 || res.Expires.IsZero() {
		t.Fatalf("init: %+v", res)
	}

	// learner-01 (김지민) publishes with the kubeconfig init wrote.
	lconn, err := kube.Open(learner.Kubeconfig(res.Files[0].Path))
	if err != nil {
		t.Fatal(err)
	}
	l, err := learner.New(lconn, res.Files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	lcs, err := l.Conn.Typed()
	if err != nil {
		t.Fatal(err)
	}
	pub := learner.NewPublisher(learner.PublisherConfig{Client: lcs, Namespace: ns, Interval: 100 * time.Millisecond,
		Identity: class.Identity{Learner: l.ID, Lab: "gpu-incident", Labmate: "test"}})
	pctx, stopPub := context.WithCancel(ctx)
	go pub.Run(pctx)
	u := labrun.Next(nil, engine.Report{Ready: true, Steps: []engine.StepResult{{Number: 1, Status: checks.Passed}, {Number: 2, Status: checks.Failed}}})
	pub.Publish(learner.Update{Report: &u})
	deadline := time.Now().Add(30 * time.Second)
	for pub.Status().State != learner.Connected {
		if time.Now().After(deadline) {
			t.Fatalf("publisher: %+v", pub.Status())
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopPub()
	c, err := admin.List(ctx, tcs, ns, "")
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Records[0]; r.Shown() != "김지민" || r.Step(1) == nil || r.Step(1).Status != checks.Passed {
		t.Fatalf("the class as the namespace's admin reads it: %+v", c.Records)
	}

	// A typo'd namespace is said, never an empty class: the namespace's
	// admin may not list namespaces, so none is named.
	var none admin.NoClass
	if _, err := admin.List(ctx, tcs, ns+"x", ""); !errors.As(err, &none) && !apierrors.IsForbidden(err) {
		t.Fatalf("a typo'd namespace: %v", err)
	}

	// init again with another lab asks first, and once applied leaves no
	// record or lab object of the old lab.
	cfg.Labs = []string{"driver-reboot"}
	if _, err := admin.Init(ctx, cfg); !errors.As(err, new(admin.Unconfirmed)) || !strings.Contains(err.Error(), "gpu-incident 에서 driver-reboot") {
		t.Fatalf("init with another lab without a question: %v", err)
	}
	p, err = admin.PlanInit(ctx, cfg)
	if err != nil || !p.NeedsConfirm() || p.DropJoined != 1 {
		t.Fatalf("plan of another lab: %+v %v", p, err)
	}
	if _, err := admin.Apply(ctx, p); err != nil {
		t.Fatal(err)
	}
	cms, err := tcs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range cms.Items {
		if strings.Contains(o.Name, "gpu-incident") || o.Name == class.LabObject && class.LabMeta(&o).ID != "driver-reboot" {
			t.Errorf("left after the change of lab: %s %v", o.Name, o.Annotations)
		}
	}

	// The end: the learner's token no longer writes.
	plan, err := admin.PlanEnd(ctx, tcs, ns)
	if err != nil || len(plan.Learners) != 2 {
		t.Fatalf("plan of the end: %+v %v", plan, err)
	}
	if _, err := admin.End(ctx, tcs, plan, 0); err != nil {
		t.Fatal(err)
	}
	_, err = lcs.CoreV1().ConfigMaps(ns).Get(ctx, class.ObjectName(l.ID, "driver-reboot"), metav1.GetOptions{})
	if !apierrors.IsUnauthorized(err) && !apierrors.IsForbidden(err) {
		t.Fatalf("the learner's token after the end: %v, want 401 or 403", err)
	}
	if _, err := admin.PlanEnd(ctx, tcs, ns); !errors.As(err, new(admin.NoClass)) {
		t.Fatalf("the namespace after the end: %v, want no class", err)
	}
}
