package admin

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/kube/kubefake"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// fakeClass is a fake API server that issues bound tokens (a JWT whose
// claims say when it ends, as the API server's do) for ttl.
func fakeClass(t *testing.T) *kubefake.Clientset {
	t.Helper()
	cs := kubefake.New()
	cs.PrependReactor("create", "serviceaccounts", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "token" {
			return false, nil, nil
		}
		tr := a.(k8stesting.CreateAction).GetObject().(*authenticationv1.TokenRequest)
		exp := t0.Add(time.Duration(*tr.Spec.ExpirationSeconds) * time.Second)
		claims := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"exp":%d,"sub":"x"}`, exp.Unix()))
		tr.Status = authenticationv1.TokenRequestStatus{Token: "h." + claims + ".s", ExpirationTimestamp: metav1.NewTime(exp)}
		return true, tr, nil
	})
	return cs
}

func initConfig(cs *kubefake.Clientset, dir string, learners []Entry, labs ...string) InitConfig {
	return InitConfig{Conn: kubefake.NewConn(cs, nil), Namespace: "workshop", Learners: learners, Labs: labs,
		OutDir: dir, TokenTTL: 48 * time.Hour, Now: func() time.Time { return t0 }}
}

func count(n int) []Entry {
	var out []Entry
	for _, id := range LearnersFromCount(n) {
		out = append(out, Entry{ID: id})
	}
	return out
}

func mustInit(t *testing.T, cfg InitConfig) (Plan, Result) {
	t.Helper()
	ctx := context.Background()
	p, err := PlanInit(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Apply(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	return p, res
}

func configMapNames(t *testing.T, cs *kubefake.Clientset) []string {
	t.Helper()
	l, err := cs.CoreV1().ConfigMaps("workshop").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range l.Items {
		out = append(out, o.Name)
	}
	slices.Sort(out)
	return out
}

// A new class: init makes the namespace, the class object, for each
// learner an account, a record, a Role and a kubeconfig, and names the
// one built-in lab in the lab object, so that `labmate --class FILE`
// opens it. What it did is said in Korean; nothing needed asking.
func TestInitANewClass(t *testing.T) {
	cs := fakeClass(t)
	dir := t.TempDir()
	p, res := mustInit(t, initConfig(cs, dir, count(3), "gpu-incident"))
	if p.NeedsConfirm() || p.Existing || p.NamespaceExists || len(p.Add) != 3 {
		t.Fatalf("plan of a new class: %+v", p)
	}
	if res.NamespaceOf.Created != 1 || res.Learners.Created != 3 || res.Records.Created != 3 || res.Roles.Created != 3 || res.Kubeconfigs.Created != 3 {
		t.Errorf("result %+v", res)
	}
	if want := []string{"labmate-class", "labmate-lab", "learner-01.gpu-incident", "learner-02.gpu-incident", "learner-03.gpu-incident"}; !slices.Equal(configMapNames(t, cs), want) {
		t.Errorf("objects %v, want %v", configMapNames(t, cs), want)
	}
	lab, err := cs.CoreV1().ConfigMaps("workshop").Get(context.Background(), class.LabObject, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := class.ReadLabObject(lab); err != nil || !a.Builtin || a.ID != "gpu-incident" || len(lab.BinaryData) != 0 {
		t.Errorf("the lab object of a built-in lab: %+v %v", a, err)
	}
	if !res.Expires.Equal(t0.Add(48 * time.Hour)) {
		t.Errorf("tokens end %v, want %v", res.Expires, t0.Add(48*time.Hour))
	}
	text := strings.Join(res.Lines(dir, t0), "\n")
	for _, want := range []string{"새로 만들었습니다", "학습자 3명 (계정): 새로 3", "새로 3", "gpu-incident", "2일 뒤"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}

// Run again as it was: nothing to ask, everything kept, the learners'
// kubeconfigs too (they may have them already); with Reissue, new
// tokens in the same files.
func TestInitAgainKeepsTheClass(t *testing.T) {
	cs := fakeClass(t)
	dir := t.TempDir()
	cfg := initConfig(cs, dir, count(2), "gpu-incident")
	mustInit(t, cfg)
	before, _ := os.ReadFile(filepath.Join(dir, "learner-01.kubeconfig"))
	p, res := mustInit(t, cfg)
	if p.NeedsConfirm() || !p.Existing || len(p.Keep) != 2 || len(p.Add) != 0 {
		t.Fatalf("plan of the same class again: %+v", p)
	}
	if res.Learners.Kept != 2 || res.Records.Kept != 2 || res.Roles.Kept != 2 || res.Kubeconfigs.Kept != 2 || res.Kubeconfigs.Changed != 0 || !res.LabKept {
		t.Errorf("result %+v", res)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "learner-01.kubeconfig")); string(after) != string(before) {
		t.Error("a kept kubeconfig was rewritten")
	}
	cfg.Reissue = true
	if _, res := mustInit(t, cfg); res.Kubeconfigs.Changed != 2 {
		t.Errorf("--reissue: %+v, want both written again", res.Kubeconfigs)
	}
	// More learners: the new ones are added, nothing asked.
	cfg.Reissue = false
	p, res = mustInit(t, initConfig(cs, dir, count(4), "gpu-incident"))
	if p.NeedsConfirm() || len(p.Add) != 2 || res.Kubeconfigs.Created != 2 {
		t.Errorf("growing the class: plan %+v result %+v", p, res)
	}
}

// Another lab for a running class, or fewer learners: the plan asks
// first and says what goes; applied, nothing stale stays (records of
// the old lab, the removed learners' accounts, Roles and kubeconfigs).
func TestInitChangingAClassAsksAndLeavesNothingStale(t *testing.T) {
	cs := fakeClass(t)
	dir := t.TempDir()
	mustInit(t, initConfig(cs, dir, count(4), "gpu-incident"))
	// learner-02 joined: their record has a step.
	joined, _ := class.Marshal(class.Record{Schema: class.Schema, Learner: "learner-02", Name: "x", Lab: "gpu-incident",
		Steps: []class.StepRecord{{Number: 1, Status: "passed"}}})
	o, _ := cs.CoreV1().ConfigMaps("workshop").Get(context.Background(), "learner-02.gpu-incident", metav1.GetOptions{})
	o.Data[class.DataKey] = string(joined)
	if _, err := cs.CoreV1().ConfigMaps("workshop").Update(context.Background(), o, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	p, err := PlanInit(context.Background(), initConfig(cs, dir, count(2), "driver-reboot"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.NeedsConfirm() || !p.LabsChanged() || !slices.Equal(p.Remove, []string{"learner-03", "learner-04"}) || len(p.DropRecords) != 4 || p.DropJoined != 1 {
		t.Fatalf("plan: confirm %v labs changed %v remove %v drop %v joined %d", p.NeedsConfirm(), p.LabsChanged(), p.Remove, p.DropRecords, p.DropJoined)
	}
	said := strings.Join(p.Changes(), "\n")
	for _, want := range []string{"gpu-incident 에서 driver-reboot", "학습자 2명을 뺍니다: learner-03, learner-04", "기록 4개", "진행한 것 1개"} {
		if !strings.Contains(said, want) {
			t.Errorf("the question lacks %q:\n%s", want, said)
		}
	}
	res, err := Apply(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"labmate-class", "labmate-lab", "learner-01.driver-reboot", "learner-02.driver-reboot"}; !slices.Equal(configMapNames(t, cs), want) {
		t.Errorf("objects after the change %v, want %v", configMapNames(t, cs), want)
	}
	if res.Learners.Deleted != 2 || res.Records.Deleted != 4 || res.Roles.Changed != 2 || res.Kubeconfigs.Deleted != 2 {
		t.Errorf("result %+v", res)
	}
	for _, id := range []string{"learner-03", "learner-04"} {
		if _, err := cs.CoreV1().ServiceAccounts("workshop").Get(context.Background(), id, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s's account: %v, want gone", id, err)
		}
		if _, err := cs.RbacV1().Roles("workshop").Get(context.Background(), RoleName(id), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s's Role: %v, want gone", id, err)
		}
		if _, err := os.Stat(filepath.Join(dir, id+".kubeconfig")); !os.IsNotExist(err) {
			t.Errorf("%s's kubeconfig: %v, want gone", id, err)
		}
	}
	role, _ := cs.RbacV1().Roles("workshop").Get(context.Background(), RoleName("learner-01"), metav1.GetOptions{})
	if got := role.Rules[0].ResourceNames; !slices.Equal(got, []string{"learner-01.driver-reboot"}) {
		t.Errorf("learner-01's Role names %v", got)
	}
	lab, _ := cs.CoreV1().ConfigMaps("workshop").Get(context.Background(), class.LabObject, metav1.GetOptions{})
	if a := class.LabMeta(lab); a.ID != "driver-reboot" {
		t.Errorf("the lab object names %q, want driver-reboot", a.ID)
	}
	// Several labs: the lab object that named one goes.
	p, err = PlanInit(context.Background(), initConfig(cs, dir, count(2), "driver-reboot", "gpu-quota"))
	if err != nil || p.LabObject != LabDelete {
		t.Fatalf("plan for two labs: %v %v", p.LabObject, err)
	}
	if _, err := Apply(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(configMapNames(t, cs), class.LabObject) {
		t.Error("the lab object of one lab stayed in a class of two")
	}
}

// A namespace's admin (who may read the namespace but not create one)
// sets a class up in it; without the namespace and without the right to
// create it, init says so in Korean.
func TestInitInANamespaceGivenToTheInstructor(t *testing.T) {
	forbidden := func(verb string) k8stesting.ReactionFunc {
		return func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, "workshop", fmt.Errorf("cannot %s", verb))
		}
	}
	cs := fakeClass(t)
	if err := cs.Tracker().Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "workshop"}}); err != nil {
		t.Fatal(err)
	}
	cs.PrependReactor("create", "namespaces", forbidden("create"))
	p, res := mustInit(t, initConfig(cs, t.TempDir(), count(2), "gpu-incident"))
	if !p.NamespaceExists || res.NamespaceOf.Kept != 1 || res.Learners.Created != 2 {
		t.Errorf("plan %+v result %+v", p, res)
	}

	none := fakeClass(t)
	none.PrependReactor("create", "namespaces", forbidden("create"))
	p, err := PlanInit(context.Background(), initConfig(none, t.TempDir(), count(2), "gpu-incident"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Apply(context.Background(), p)
	var denied NamespaceDenied
	if !errors.As(err, &denied) || !denied.Create || !strings.Contains(err.Error(), "만들 권한도 없습니다") {
		t.Errorf("init where the namespace is missing and cannot be made: %v", err)
	}
}

func TestParseTTL(t *testing.T) {
	for in, want := range map[string]time.Duration{"2d": 48 * time.Hour, "1d12h": 36 * time.Hour, "36h": 36 * time.Hour, "90m": 90 * time.Minute, "10m": 10 * time.Minute} {
		if got, err := ParseTTL(in); err != nil || got != want {
			t.Errorf("ParseTTL(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"5m": "10분 이상", "2x": "예: 8h", "": "10분 이상", "-1h": "예:", "d": "예:"} {
		_, err := ParseTTL(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTTL(%q): %v, want an error with %q", in, err, want)
		}
	}
}

func TestTokenExpiry(t *testing.T) {
	jwt := func(claims string) string { return "h." + base64.RawURLEncoding.EncodeToString([]byte(claims)) + ".s" }
	if got, ok := TokenExpiry(jwt(`{"exp":1796000000}`)); !ok || got.Unix() != 1796000000 {
		t.Errorf("a bound token: %v %v", got, ok)
	}
	if got, ok := TokenExpiry(jwt(`{"sub":"x"}`)); !ok || !got.IsZero() {
		t.Errorf("a legacy token: %v %v", got, ok)
	}
	if _, ok := TokenExpiry("not a jwt"); ok {
		t.Error("not a JWT read as one")
	}
}
