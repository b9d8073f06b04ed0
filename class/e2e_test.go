package class_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// initClass runs class.Init on the e2e sandbox into a fresh namespace,
// deleted when the test ends.
func initClass(t testing.TB, learners []string) (kubernetes.Interface, string, []class.LearnerFile) {
	t.Helper()
	kubeconfig := sandboxtest.Start(t)
	cfg, _, err := class.LoadAdmin(kubeconfig, "", "", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := class.Clientset(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := "class-e2e-" + rand.String(6)
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	files, err := class.Init(ctx, class.InitConfig{Client: cs, Server: cfg, Namespace: ns, Learners: learners,
		Labs: []string{"gpu-incident"}, OutDir: t.TempDir(), TokenTTL: time.Hour})
	if err != nil {
		t.Fatalf("init: %v", err)
	}
	return cs, ns, files
}

// A learner's generated kubeconfig can patch their own record (through
// the real publisher) and nothing else: another learner's record, a new
// object, a read of the class are all refused with 403.
func TestLearnerCredentialsReachOnlyTheirOwnRecordE2E(t *testing.T) {
	cs, ns, files := initClass(t, []string{"ana", "bo"})
	if files[0].Legacy {
		t.Log("the API server issued no bound token; init fell back to a token Secret")
	}
	if fi, err := os.Stat(files[0].Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig %s: %v %v", files[0].Path, fi, err)
	}
	ana, err := class.LoadLearner(files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if ana.ID != "ana" || ana.Namespace != ns {
		t.Fatalf("learner from kubeconfig: %+v", ana)
	}
	acs, err := class.Clientset(ana.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Own record, through the real publisher.
	pub := class.NewPublisher(class.PublisherConfig{Client: acs, Namespace: ns, Interval: 100 * time.Millisecond,
		Identity: class.Identity{Learner: "ana", Name: "아나", Lab: "gpu-incident", Labmate: "test"}})
	go pub.Run(ctx)
	first := labrun.Next(nil, engine.Report{Ready: true, Steps: []engine.StepResult{{Number: 1, Status: checks.Passed}, {Number: 2, Status: checks.Failed}}})
	pub.Publish(class.Update{Report: &first})
	deadline := time.Now().Add(30 * time.Second)
	for pub.Status().State != class.Connected {
		if time.Now().After(deadline) {
			t.Fatalf("publisher status %+v", pub.Status())
		}
		time.Sleep(50 * time.Millisecond)
	}
	got, err := class.List(ctx, cs, ns, "gpu-incident")
	if err != nil || len(got.Records) != 2 || got.Records[0].Name != "아나" || got.Records[0].Step(2).Status != checks.Failed {
		t.Fatalf("class after ana's publish: %+v, %v", got, err)
	}

	// Someone else's record: 403, by apply and by get.
	other := corev1ac.ConfigMap(class.ObjectName("bo", "gpu-incident"), ns).WithData(map[string]string{class.DataKey: "{}"})
	_, err = acs.CoreV1().ConfigMaps(ns).Apply(ctx, other, metav1.ApplyOptions{FieldManager: class.FieldManager, Force: true})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("ana writing bo's record: %v, want 403", err)
	}
	if _, err := acs.CoreV1().ConfigMaps(ns).Get(ctx, class.ObjectName("bo", "gpu-incident"), metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("ana reading bo's record: %v, want 403", err)
	}
	if _, err := acs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("ana listing the class: %v, want 403", err)
	}
	newObj := corev1ac.ConfigMap("ana-extra", ns).WithData(map[string]string{"x": "y"})
	if _, err := acs.CoreV1().ConfigMaps(ns).Apply(ctx, newObj, metav1.ApplyOptions{FieldManager: class.FieldManager}); !apierrors.IsForbidden(err) {
		t.Fatalf("ana creating an object: %v, want 403", err)
	}
	if _, err := acs.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("ana reading outside the class: %v, want 403", err)
	}
	// bo's record is untouched.
	got, _ = class.List(ctx, cs, ns, "gpu-incident")
	if len(got.Records[1].Steps) != 0 {
		t.Fatalf("bo's record changed: %+v", got.Records[1])
	}

	// Init again: idempotent, the records stay as they are.
	cfg, _, _ := class.LoadAdmin(sandboxtest.Start(t), "", "", 30*time.Second)
	if _, err := class.Init(ctx, class.InitConfig{Client: cs, Server: cfg, Namespace: ns, Learners: []string{"ana", "bo"},
		Labs: []string{"gpu-incident"}, OutDir: filepath.Join(t.TempDir(), "again")}); err != nil {
		t.Fatalf("second init: %v", err)
	}
	got, _ = class.List(ctx, cs, ns, "gpu-incident")
	if got.Records[0].Step(2) == nil {
		t.Fatal("a second init reset ana's record")
	}
	_ = fmt.Sprint
}
