package checkcmd

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/classcmd"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/labstore"
)

// classLearner is one learner's machine: their class kubeconfig, their
// own data (installed labs) and state directories, their lab root.
type classLearner struct {
	id, file, data, state, root string
}

// check runs `labmate check --class FILE --root ROOT --json` as this
// learner: no lab named, so the class's lab opens.
func (l classLearner) check(t *testing.T) (int, engine.Report, string) {
	t.Helper()
	l.use(t)
	code, out, errOut := clitest.NewTestFactory(t).WithKubeconfigs().Run(NewCmd, "--class", l.file, "--root", l.root, "--json", "--state-dir", l.state)
	var rep engine.Report
	if code != cli.ExitUsage {
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: check --json: %v\n%s\n%s", l.id, err, out, errOut)
		}
	}
	return code, rep, errOut
}

func (l classLearner) use(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", l.data)
	t.Setenv("XDG_STATE_HOME", l.state)
}

// labServer is a class cluster that carries *obj as its lab object
// (read at each request; nil: it never answers) and refuses everything else (the learner's
// record too: check says so and goes on).
func labServer(t *testing.T, obj *atomic.Pointer[corev1.ConfigMap]) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/workshop/configmaps/"+class.LabObject {
			if obj.Load() == nil { // a slow class cluster: no answer
				<-r.Context().Done()
				return
			}
			raw, _ := json.Marshal(obj.Load())
			_, _ = w.Write(raw)
			return
		}
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func labObject(t *testing.T, dir string) *corev1.ConfigMap {
	t.Helper()
	b, err := labstore.Pack(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: class.LabObject, Namespace: "workshop", Annotations: map[string]string{
			class.AnnotationLabID: "nginx-conf", class.AnnotationLabVersion: "1.0.0", class.AnnotationLabSum: labstore.Sum(b)}},
		BinaryData: map[string][]byte{class.LabArchiveKey: b},
	}
}

// Offline afterwards: once the class's lab is installed, a tampered object
// is refused and the installed copy opens, saying why; so it does with
// the class cluster gone. A learner with no copy cannot open it.
func TestClassLabOfflineAndTampered(t *testing.T) {
	l := classLearner{id: "learner-01", data: t.TempDir(), state: t.TempDir(), root: t.TempDir()}
	good := labObject(t, testfiles.Dir(t, labkittest.VersionedFileLab("1.0.0", "")))
	var served atomic.Pointer[corev1.ConfigMap]
	served.Store(good)
	srv := labServer(t, &served)
	l.file = clitest.ClassKubeconfig(t, srv.URL)
	code, rep, errOut := l.check(t)
	if code != cli.ExitFail || len(rep.Steps) != 2 || len(rep.Problems) != 0 {
		t.Fatalf("first start: exit %d, steps %d, problems %q\n%s", code, len(rep.Steps), rep.Problems, errOut)
	}
	if !strings.Contains(errOut, "교실에 보내지 못했습니다") {
		t.Errorf("a refused record is not said on stderr: %q", errOut)
	}

	bad := good.DeepCopy()
	bad.BinaryData[class.LabArchiveKey][100] ^= 1
	served.Store(bad)
	code, rep, _ = l.check(t)
	if probs := strings.Join(rep.Problems, "\n"); code != cli.ExitFail || len(rep.Steps) != 2 ||
		!strings.Contains(probs, "손상되었거나 바뀌었습니다") || !strings.Contains(probs, "전에 받아 둔 실습 nginx-conf 1.0.0") {
		t.Fatalf("tampered: exit %d, problems %q", code, rep.Problems)
	}
	fresh := l
	fresh.data = t.TempDir()
	if code, _, errOut := fresh.check(t); code != cli.ExitUsage || !strings.Contains(errOut, "손상되었거나 바뀌었습니다") {
		t.Fatalf("tampered, nothing installed before: exit %d\n%s", code, errOut)
	}

	// A class cluster that does not answer costs the learner with a copy
	// a few seconds, not a hang.
	served.Store(nil)
	start := time.Now()
	code, rep, errOut = l.check(t)
	// The kept copy's bound (classlab.FetchTimeoutKept), not the full one a learner
	// without a copy waits: the line between them, not a speed target.
	if took := time.Since(start); code != cli.ExitFail || len(rep.Steps) != 2 || took >= classlab.FetchTimeout {
		t.Fatalf("slow class cluster: exit %d after %v, problems %q\n%s", code, took, rep.Problems, errOut)
	}
	served.Store(bad)

	// preview opens the same lab and shows its version in the record.
	l.use(t)
	code, stdout, errOut := clitest.NewTestFactory(t).WithKubeconfigs().Run(classcmd.NewCmd, "preview", "--class", l.file, "--root", l.root)
	var rec class.Record
	if err := json.Unmarshal([]byte(stdout), &rec); err != nil || code != cli.ExitOK || rec.Lab != "nginx-conf" || rec.LabVersion != "1.0.0" {
		t.Fatalf("class preview --class: exit %d, %v, %+v\n%s", code, err, rec, errOut)
	}

	srv.Close()
	code, rep, errOut = l.check(t)
	if code != cli.ExitFail || len(rep.Steps) != 2 || !strings.Contains(strings.Join(rep.Problems, "\n"), "전에 받아 둔 실습 nginx-conf 1.0.0") {
		t.Fatalf("offline: exit %d, problems %q\n%s", code, rep.Problems, errOut)
	}
	if e := kube.ClientEnglish(strings.Join(rep.Problems, "\n") + errOut); e != "" {
		t.Errorf("the client's English %q reaches the learner: %q %q", e, rep.Problems, errOut)
	}
}
