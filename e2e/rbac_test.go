package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/labhub/labmate/doctor"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// The roles `labmate lab rbac` prints are enough and no more: applied for
// a ServiceAccount on the sandbox, that account's `labmate check --json`
// equals the admin's, and it may not read what the lab does not declare.
func TestLabRBACIsEnough(t *testing.T) {
	kubeconfig := sandboxtest.Start(t)
	cs := sandboxtest.Client(t)
	cfg := sandboxtest.Conn(t).Config()
	sandboxtest.LockLab(t)
	bin := buildLabmate(t)
	kit, err := labkit.Open("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start := sandbox.Start{Namespaces: kit.Text.Cluster.Namespaces, Nodes: sandboxtest.Options().Nodes, Wipe: kit.Wipe()}
	reset := func() {
		if err := sandbox.Reset(ctx, sandboxtest.Conn(t), start); err != nil {
			t.Fatal(err)
		}
	}
	reset()
	t.Cleanup(func() {
		_ = cs.CoreV1().ServiceAccounts("default").Delete(ctx, "labmate-reader", metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoles().Delete(ctx, "labmate-gpu-incident", metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoleBindings().Delete(ctx, "labmate-gpu-incident", metav1.DeleteOptions{})
		reset()
	})
	// The learner's step 5 makes the lab's namespaces (a Role lives in
	// one) and a pod; a RuntimeClass the live checks read too.
	for _, ns := range kit.Text.Cluster.Namespaces {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	if _, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "labmate-reader"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	roles, err := exec.Command(bin, "lab", "rbac", "gpu-incident", "--serviceaccount", "default:labmate-reader").Output()
	if err != nil {
		t.Fatalf("lab rbac: %v", err)
	}
	kubectl := filepath.Join(sandboxtest.Options().ResolvedBinDir(), "kubectl")
	apply := exec.Command(kubectl, "--kubeconfig", kubeconfig, "--context", sandbox.Context(sandboxtest.Options()), "apply", "-f", "-")
	apply.Stdin = bytes.NewReader(roles)
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	tok, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, "labmate-reader", &authv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reader := readerKubeconfig(t, cfg, tok.Status.Token)

	root := t.TempDir()
	check := func(kc, ctxName string) engine.Report {
		t.Helper()
		args := []string{"check", "--json", "--lab", "gpu-incident", "--root", root, "--state-dir", t.TempDir(), "--kubeconfig", kc}
		if ctxName != "" {
			args = append(args, "--context", ctxName)
		}
		out, _ := exec.Command(bin, args...).Output()
		var rep engine.Report
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("check --json: %v\n%s", err, out)
		}
		return rep
	}
	admin := check(kubeconfig, sandbox.Context(sandboxtest.Options()))
	limited := check(reader, "")
	if admin.Cluster.State != "synced" || limited.Cluster.State != "synced" {
		t.Fatalf("cluster states: admin %s, reader %s (%s)", admin.Cluster.State, limited.Cluster.State, limited.Cluster.Err)
	}
	if !reflect.DeepEqual(admin.Steps, limited.Steps) {
		for i := range admin.Steps {
			if !reflect.DeepEqual(admin.Steps[i], limited.Steps[i]) {
				t.Errorf("step %d differs:\nadmin  %+v\nreader %+v", admin.Steps[i].Number, admin.Steps[i], limited.Steps[i])
			}
		}
	}
	// doctor asks the API server the same and agrees; an account with
	// no role is told what it may not read.
	if f := doctorAccess(t, bin, reader); f.Verdict != "ok" {
		t.Errorf("doctor's access finding for the reader: %+v", f)
	}
	if _, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "labmate-nobody"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().ServiceAccounts("default").Delete(ctx, "labmate-nobody", metav1.DeleteOptions{})
	})
	none, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, "labmate-nobody", &authv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f := doctorAccess(t, bin, readerKubeconfig(t, cfg, none.Status.Token)); f.Verdict != "fail" || !strings.Contains(f.Detail, "watch pods in gpu-lab") || !strings.Contains(f.Fix, "labmate lab rbac gpu-incident") {
		t.Errorf("doctor's access finding for an account with no role: %+v", f)
	}
	rconn, err := kube.Open(kube.Options{Path: reader, Only: true})
	if err != nil {
		t.Fatal(err)
	}
	rcs, err := rconn.Typed()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rcs.CoreV1().Secrets("gpu-lab").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the reader may list secrets, which the lab does not watch: %v", err)
	}
	if _, err := rcs.AppsV1().Deployments("gpu-lab").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the reader may list deployments, which the lab does not watch: %v", err)
	}
	if _, err := rcs.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the reader may list every node, not only the lab's: %v", err)
	}
}

// doctorAccess is `labmate doctor --json`'s access finding.
func doctorAccess(t *testing.T, bin, kubeconfig string) doctor.Finding {
	t.Helper()
	out, _ := exec.Command(bin, "doctor", "--json", "--lab", "gpu-incident", "--kubeconfig", kubeconfig, "--state-dir", t.TempDir()).Output()
	var res doctor.Result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	for _, f := range res.Findings {
		if f.ID == "access" {
			return f
		}
	}
	t.Fatalf("doctor has no access finding: %s", out)
	return doctor.Finding{}
}

// readerKubeconfig writes a kubeconfig for the sandbox's server with a
// bearer token.
func readerKubeconfig(t *testing.T, cfg *rest.Config, token string) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["sandbox"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData, CertificateAuthority: cfg.CAFile}
	kc.AuthInfos["reader"] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts["reader"] = &clientcmdapi.Context{Cluster: "sandbox", AuthInfo: "reader"}
	kc.CurrentContext = "reader"
	p := filepath.Join(t.TempDir(), "reader.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, p); err != nil {
		t.Fatal(err)
	}
	return p
}
