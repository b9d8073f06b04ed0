package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/admin"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// initClass runs class.Init on the e2e sandbox into a fresh namespace,
// deleted when the test ends.
func initClass(t testing.TB, learners []string, labs ...string) (kube.Interface, string, []admin.LearnerFile) {
	t.Helper()
	conn, err := kube.Open(admin.Kubeconfig(sandboxtest.Start(t), ""))
	if err != nil {
		t.Fatal(err)
	}
	conn = conn.Within(30 * time.Second)
	cs, err := conn.Typed()
	if err != nil {
		t.Fatal(err)
	}
	ns := "class-e2e-" + rand.String(6)
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if len(labs) == 0 {
		labs = []string{"gpu-incident"}
	}
	files, err := admin.Init(ctx, admin.InitConfig{Conn: conn, Namespace: ns, Learners: learners,
		Labs: labs, OutDir: t.TempDir(), TokenTTL: time.Hour})
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
	ana, err := openLearner(files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if ana.ID != "ana" || ana.Namespace != ns {
		t.Fatalf("learner from kubeconfig: %+v", ana)
	}
	acs, err := ana.Conn.Typed()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Own record, through the real publisher.
	pub := learner.NewPublisher(learner.PublisherConfig{Client: acs, Namespace: ns, Interval: 100 * time.Millisecond,
		Identity: class.Identity{Learner: "ana", Name: "아나", Lab: "gpu-incident", Labmate: "test"}})
	go pub.Run(ctx)
	first := labrun.Next(nil, engine.Report{Ready: true, Steps: []engine.StepResult{{Number: 1, Status: checks.Passed}, {Number: 2, Status: checks.Failed}}})
	pub.Publish(learner.Update{Report: &first})
	deadline := time.Now().Add(30 * time.Second)
	for pub.Status().State != learner.Connected {
		if time.Now().After(deadline) {
			t.Fatalf("publisher status %+v", pub.Status())
		}
		time.Sleep(50 * time.Millisecond)
	}
	got, err := admin.List(ctx, cs, ns, "gpu-incident")
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
	got, _ = admin.List(ctx, cs, ns, "gpu-incident")
	if len(got.Records[1].Steps) != 0 {
		t.Fatalf("bo's record changed: %+v", got.Records[1])
	}

	// Init again: idempotent, the records stay as they are.
	conn, _ := kube.Open(admin.Kubeconfig(sandboxtest.Start(t), ""))
	if _, err := admin.Init(ctx, admin.InitConfig{Conn: conn.Within(30 * time.Second), Namespace: ns, Learners: []string{"ana", "bo"},
		Labs: []string{"gpu-incident"}, OutDir: filepath.Join(t.TempDir(), "again")}); err != nil {
		t.Fatalf("second init: %v", err)
	}
	got, _ = admin.List(ctx, cs, ns, "gpu-incident")
	if got.Records[0].Step(2) == nil {
		t.Fatal("a second init reset ana's record")
	}
	_ = fmt.Sprint
}

// The forged-record case, with a learner's own generated kubeconfig: RBAC
// lets learner-01 patch only their own record objects, and through one of
// them they claim to be learner-02, on a made-up lab of 300 characters,
// with step 1 passed, and patch the object's labels too. The export still
// lists every learner once per lab under the object's name, and the forged
// entry is flagged with no step at all.
func TestForgedRecordIsFlaggedE2E(t *testing.T) {
	learners, labs := []string{"learner-01", "learner-02"}, []string{"gpu-incident", "driver-reboot"}
	cs, ns, files := initClass(t, learners, labs...)
	l01, err := openLearner(files[0].Path)
	if err != nil || l01.ID != "learner-01" {
		t.Fatalf("learner-01's kubeconfig: %+v, %v", l01, err)
	}
	lcs, err := l01.Conn.Typed()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	forged, err := class.Marshal(class.Record{Schema: class.Schema, Learner: "learner-02", Name: "learner-02",
		Lab: strings.Repeat("x", 300), Labmate: "v1.0.0", Updated: time.Now().UTC(),
		Steps: []class.StepRecord{{Number: 1, Status: checks.Passed}}})
	if err != nil {
		t.Fatal(err)
	}
	own := class.ObjectName("learner-01", "driver-reboot")
	obj := corev1ac.ConfigMap(own, ns).WithData(map[string]string{class.DataKey: string(forged)}).
		WithLabels(map[string]string{class.LabelLearner: "learner-02", class.LabelLab: "gpu-incident"})
	if _, err := lcs.CoreV1().ConfigMaps(ns).Apply(ctx, obj, metav1.ApplyOptions{FieldManager: class.FieldManager, Force: true}); err != nil {
		t.Fatalf("learner-01 writing their own record: %v", err)
	}
	// The same into learner-02's object is refused: the name is what RBAC binds.
	other := corev1ac.ConfigMap(class.ObjectName("learner-02", "driver-reboot"), ns).WithData(map[string]string{class.DataKey: string(forged)})
	if _, err := lcs.CoreV1().ConfigMaps(ns).Apply(ctx, other, metav1.ApplyOptions{FieldManager: class.FieldManager, Force: true}); !apierrors.IsForbidden(err) {
		t.Fatalf("learner-01 writing learner-02's record: %v, want 403", err)
	}

	c, err := admin.List(ctx, cs, ns, "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := class.WriteJSON(&out, c); err != nil {
		t.Fatal(err)
	}
	var exp class.Export
	if err := json.Unmarshal(out.Bytes(), &exp); err != nil {
		t.Fatalf("export JSON: %v\n%s", err, out.String())
	}
	seen := map[string]int{}
	for _, l := range exp.Learners {
		seen[l.Learner+"/"+l.Lab]++
		forgedEntry := l.Learner == "learner-01" && l.Lab == "driver-reboot"
		if forgedEntry != (l.Flag == class.Forged) {
			t.Errorf("%s/%s: flag %q", l.Learner, l.Lab, l.Flag)
		}
		for _, s := range l.Steps {
			if s.Status == checks.Passed {
				t.Errorf("%s/%s: step %d passed in the export", l.Learner, l.Lab, s.Number)
			}
		}
		if forgedEntry && (len(l.Steps) != 0 || l.Name != "learner-01") {
			t.Errorf("the forged entry keeps content: %+v", l)
		}
	}
	for _, learner := range learners {
		for _, lab := range labs {
			if n := seen[learner+"/"+lab]; n != 1 {
				t.Errorf("%s/%s is listed %d times, want once:\n%s", learner, lab, n, out.String())
			}
		}
	}
	if len(exp.Learners) != len(learners)*len(labs) {
		t.Errorf("%d entries, want %d:\n%s", len(exp.Learners), len(learners)*len(labs), out.String())
	}
}

// openLearner opens a learner's class kubeconfig as the command line's
// factory does.
func openLearner(path string) (*learner.Learner, error) {
	conn, err := kube.Open(learner.Kubeconfig(path))
	if err != nil {
		return nil, err
	}
	return learner.New(conn, path)
}
