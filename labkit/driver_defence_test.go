package labkit_test

import (
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/observe"
)

const podYAML = `apiVersion: v1
kind: Pod
metadata:
  name: NAME
  namespace: ml-train
spec:
SPEC  containers:
    - name: train
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        limits:
          nvidia.com/gpu: 1
`

// driverFile judges one manifest with the driver-reboot step that reads
// it, and returns its file check. naive requests no GPU (it reaches one
// through the NVIDIA runtime), so its pod is written without the limit.
func driverFile(t *testing.T, step int, rel, name, spec string) checks.Result {
	t.Helper()
	body := strings.Replace(strings.Replace(podYAML, "NAME", name, 1), "SPEC", spec, 1)
	if name == "naive" {
		body = strings.Replace(body, gpuLimit, "", 1)
	}
	return driverFileBody(t, step, rel, body)
}

const gpuLimit = "      resources:\n        limits:\n          nvidia.com/gpu: 1\n"

// driverFileBody judges the manifest body with the step that reads rel.
func driverFileBody(t *testing.T, step int, rel, body string) checks.Result {
	t.Helper()
	var lab *labkit.Lab
	for _, l := range labkittest.Installed(t) {
		if l.ID() == "driver-reboot" {
			lab = l
		}
	}
	st := observe.NewStore()
	st.Apply(observe.Observation{Time: time.Now(), File: &observe.FileObs{Path: rel, State: observe.FilePresent, Content: []byte(body), Size: int64(len(body)), Mode: 0o644}})
	s := lab.Steps[step-1]
	ev := s.Eval(checks.Input{Lab: lab.Text, Snap: st.Snapshot(), Root: "/root/gpudrv", Witness: &checks.Witness{}})
	for _, r := range ev.Checks {
		if r.ID == s.ID+".file" {
			return r
		}
	}
	t.Fatalf("step %d has no file check among %+v", step, ev.Checks)
	return checks.Result{}
}

// The checks judge the defence, not the manifest's shape (LAB-SPEC,
// driver-reboot facts): a keyless Exists toleration tolerates the GPU
// taint; nodeSelector and a single required term are equal defences;
// a pod that selects only the hardware label has no driver defence;
// trainer-b must carry what trainer-a must.
func TestDriverRebootJudgesTheDefence(t *testing.T) {
	required := "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n          - matchExpressions:\n              - key: gpu.example.com/driver-version\n                operator: In\n                values: [\"550.54.15\"]\n"
	selector := "  nodeSelector:\n    gpu.example.com/driver-version: \"550.54.15\"\n"
	hardware := "  nodeSelector:\n    feature.node.kubernetes.io/pci-10de.present: \"true\"\n"
	keyless := "  tolerations:\n    - operator: Exists\n"
	keyed := "  tolerations:\n    - key: nvidia.com/gpu\n      operator: Exists\n      effect: NoSchedule\n"
	orAlways := "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n          - matchExpressions:\n              - key: gpu.example.com/driver-version\n                operator: In\n                values: [\"550.54.15\"]\n          - matchExpressions:\n              - key: kubernetes.io/os\n                operator: In\n                values: [linux]\n"
	for _, c := range []struct {
		name     string
		step     int
		rel, pod string
		spec     string
		want     checks.Status
		words    []string
	}{
		{"required term, keyless toleration", 2, "k8s/trainer-a.yaml", "trainer-a", required + keyless, checks.Passed, nil},
		{"nodeSelector is the same defence", 2, "k8s/trainer-a.yaml", "trainer-a", selector + keyed, checks.Passed, nil},
		{"a term ORed with one that always matches", 2, "k8s/trainer-a.yaml", "trainer-a", orAlways + keyed, checks.Failed, []string{"필수 조건으로 요구하지 않습니다"}},
		{"hardware label only", 2, "k8s/trainer-a.yaml", "trainer-a", hardware + keyed, checks.Failed, []string{"하드웨어 라벨"}},
		{"trainer-b without toleration", 3, "k8s/trainer-b.yaml", "trainer-b", selector, checks.Failed, []string{"toleration"}},
		{"trainer-b without the requirement", 3, "k8s/trainer-b.yaml", "trainer-b", keyed, checks.Failed, []string{"필수 조건으로 요구하지 않습니다"}},
		{"trainer-b as trainer-a", 3, "k8s/trainer-b.yaml", "trainer-b", required + keyless, checks.Passed, nil},
		{"naive selecting only the hardware", 4, "k8s/naive.yaml", "naive", hardware + keyed, checks.Passed, nil},
		{"naive with the driver selector", 4, "k8s/naive.yaml", "naive", selector + keyed, checks.Failed, []string{"드라이버 라벨을 요구합니다"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := driverFile(t, c.step, c.rel, c.pod, c.spec)
			if r.Status != c.want {
				t.Errorf("%s: %s (%s), want %s", r.ID, r.Status, r.Message, c.want)
			}
			for _, w := range c.words {
				if !strings.Contains(r.Message, w) {
					t.Errorf("%s: %q lacks %q", r.ID, r.Message, w)
				}
			}
		})
	}
}

// naive is the pod the driver label alone guards: one that requests a
// GPU is kept off a rebooted node by the advertisement already, and
// step 4 refuses it.
func TestDriverRebootNaiveRequestsNoGPU(t *testing.T) {
	hardware := "  nodeSelector:\n    feature.node.kubernetes.io/pci-10de.present: \"true\"\n  tolerations:\n    - key: nvidia.com/gpu\n      operator: Exists\n"
	body := strings.Replace(strings.Replace(podYAML, "NAME", "naive", 1), "SPEC", hardware, 1)
	if !strings.Contains(body, gpuLimit) {
		t.Fatal("the pod template no longer requests a GPU")
	}
	r := driverFileBody(t, 4, "k8s/naive.yaml", body)
	if r.Status != checks.Failed || !strings.Contains(r.Message, "nvidia.com/gpu 를 요청합니다") {
		t.Errorf("%s: %s (%s), want failed naming the GPU request", r.ID, r.Status, r.Message)
	}
	if r = driverFileBody(t, 4, "k8s/naive.yaml", strings.Replace(body, gpuLimit, "", 1)); r.Status != checks.Passed {
		t.Errorf("%s without the GPU request: %s (%s)", r.ID, r.Status, r.Message)
	}
}
