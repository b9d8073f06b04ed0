package learner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/doctor"
	"github.com/labhub/labmate/kube"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// doctor --class: a file that is no class kubeconfig fails, a class
// cluster that is down warns (the lab still works).
func TestDoctorClassFinding(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "x")
	os.WriteFile(bad, []byte("apiVersion: v1\nkind: Config\n"), 0o600)
	finding := func(path string, labs ...string) doctor.Finding {
		var l *Learner
		conn, err := kube.Open(Kubeconfig(path))
		if err == nil {
			l, err = New(conn, path)
		}
		return DoctorFinding(context.Background(), path, l, err, labs)
	}
	if f := finding(bad, "gpu-incident"); f.Verdict != "fail" || f.Fix == "" {
		t.Fatalf("bad file: %+v", f)
	}
	if f := finding(learnerKubeconfig(t, "https://127.0.0.1:1"), "gpu-incident", "driver-reboot"); f.Verdict != "warn" || !strings.Contains(f.Detail, "127.0.0.1:1") {
		t.Fatalf("class down: %+v", f)
	}
}

// learnerKubeconfig is a learner's class kubeconfig for server.
func learnerKubeconfig(t *testing.T, server string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["class"] = &clientcmdapi.Cluster{Server: server, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["learner-01"] = &clientcmdapi.AuthInfo{Token: "t"}
	cfg.Contexts["learner-01"] = &clientcmdapi.Context{Cluster: "class", AuthInfo: "learner-01", Namespace: "workshop"}
	cfg.CurrentContext = "learner-01"
	path := filepath.Join(t.TempDir(), "learner-01.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
