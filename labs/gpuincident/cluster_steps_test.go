package gpuincident

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

var clusterSteps = []checks.Step{stepRuntimeClassPending, stepAdvertiseGPU, stepTimeSlicing, stepRolloutStall}

// assertSteps checks the status of steps 5-8: the first `done` passed,
// the rest not.
func assertSteps(t *testing.T, c *labCluster, when string, done int) {
	t.Helper()
	for _, s := range clusterSteps {
		ev := c.eval(s)
		got := checks.Aggregate(ev.Checks)
		if s.Number <= done && got != checks.Passed {
			t.Errorf("%s: step %d is %s, want passed: %v", when, s.Number, got, failing(ev))
		}
		if s.Number > done && got == checks.Passed {
			t.Errorf("%s: step %d passed before its last action", when, s.Number)
		}
	}
}

func failing(ev checks.StepEval) []string {
	var out []string
	for _, r := range ev.Checks {
		if r.Status != checks.Passed {
			out = append(out, r.ID+"="+string(r.Status)+": "+r.Message)
		}
	}
	return out
}

func TestClusterReferenceRun(t *testing.T) {
	c := newLabCluster(t)
	assertSteps(t, c, "empty lab", 4)
	for _, s := range clusterSteps {
		if st := c.status(s); st != checks.Failed {
			t.Errorf("empty lab: step %d is %s, want failed", s.Number, st)
		}
	}
	c.stage5()
	assertSteps(t, c, "after step 5", 5)
	c.stage6()
	assertSteps(t, c, "after step 6", 6)
	c.stage7()
	assertSteps(t, c, "after step 7", 7)
	c.stage8Ready()
	assertSteps(t, c, "step 8 before the update", 7)
	if r := result(t, c.eval(stepRolloutStall), "rollout-stall.was-ready"); r.Status != checks.Passed {
		t.Errorf("was-ready before the update: %s %s", r.Status, r.Message)
	}
	c.stage8Update()
	assertSteps(t, c, "after step 8", 8)

	// The observed views show the live objects the checks used.
	ev5 := c.eval(stepRuntimeClassPending)
	if v := fact(ev5, "PodScheduled"); !strings.Contains(v, "True") {
		t.Errorf("step 5 PodScheduled fact = %q", v)
	}
	if v := fact(ev5, "labmate 가 기억한 사실"); v != refSchedMsg {
		t.Errorf("step 5 witness fact = %q", v)
	}
	ev6 := c.eval(stepAdvertiseGPU)
	if v := fact(ev6, "lab-node-0 nvidia.com/gpu"); v != "capacity=4, allocatable=4" {
		t.Errorf("step 6 node fact = %q", v)
	}
	if v := fact(ev6, "lab-node-1 nvidia.com/gpu"); v != "capacity=20, allocatable=20" {
		t.Errorf("step 6 lab-node-1 fact = %q", v)
	}
	if v := fact(c.eval(stepTimeSlicing), "replicas (클러스터)"); v != "5" {
		t.Errorf("step 7 replicas fact = %q", v)
	}
	ev8 := c.eval(stepRolloutStall)
	if v := fact(ev8, "v1.16.2 파드"); !strings.HasPrefix(v, "2: lab-node-1 (Ready), lab-node-2 (Ready)") {
		t.Errorf("step 8 old pods fact = %q", v)
	}
	if v := fact(ev8, "v1.17.0 파드"); !strings.Contains(v, "lab-node-0 (Unschedulable") || !strings.Contains(v, "Insufficient memory") {
		t.Errorf("step 8 new pods fact = %q", v)
	}
	if v := fact(ev8, "데몬셋 status"); !strings.Contains(v, "desired=3") || !strings.Contains(v, "updated=1") || !strings.Contains(v, "ready=2") {
		t.Errorf("step 8 status fact = %q", v)
	}
}

// Each step is not green before its last action.
func TestClusterStepsNeedTheirLastAction(t *testing.T) {
	t.Run("5 without unscheduled.txt", func(t *testing.T) {
		c := newLabCluster(t)
		c.stage5()
		c.removeFile(unscheduledPath)
		wantFail(t, c, stepRuntimeClassPending, "runtimeclass-pending.unscheduled-file", "파일이 없습니다")
	})
	t.Run("6 without the table", func(t *testing.T) {
		c := newLabCluster(t)
		c.stage5()
		c.stage6()
		c.removeFile(nodeGPUPath)
		wantFail(t, c, stepAdvertiseGPU, "advertise-gpu.table-file", "node-gpu.txt")
	})
	t.Run("7 before lab-node-1 is raised", func(t *testing.T) {
		c := newLabCluster(t)
		c.stage5()
		c.stage6()
		c.stage7()
		c.put(labNode("lab-node-1", ""))
		wantFail(t, c, stepTimeSlicing, "time-slicing.node", "lab-node-1", "20", "4 × ConfigMap 의 replicas 5")
	})
	t.Run("8 without rollout.txt", func(t *testing.T) {
		c := newLabCluster(t)
		c.allStages()
		c.removeFile(rolloutPath)
		wantFail(t, c, stepRolloutStall, "rollout-stall.report-format", "rollout.txt")
	})
}

// wantFail evaluates a step and requires check id to fail with every word.
func wantFail(t *testing.T, c *labCluster, s checks.Step, id string, words ...string) checks.StepEval {
	t.Helper()
	ev := c.eval(s)
	r := result(t, ev, id)
	if r.Status != checks.Failed {
		t.Errorf("%s: %s, want failed: %s", id, r.Status, r.Message)
	}
	for _, w := range words {
		if !strings.Contains(r.Message, w) {
			t.Errorf("%s: message does not name %q: %s", id, w, r.Message)
		}
	}
	if st := checks.Aggregate(ev.Checks); st == checks.Passed {
		t.Errorf("step %d passed with %s failing", s.Number, id)
	}
	return ev
}

func wantStatus(t *testing.T, c *labCluster, s checks.Step, id string, want checks.Status, words ...string) checks.Result {
	t.Helper()
	r := result(t, c.eval(s), id)
	if r.Status != want {
		t.Errorf("%s: %s, want %s: %s", id, r.Status, want, r.Message)
	}
	for _, w := range words {
		if !strings.Contains(r.Message, w) {
			t.Errorf("%s: message does not name %q: %s", id, w, r.Message)
		}
	}
	return r
}

func TestRuntimeClassPendingWrongTurns(t *testing.T) {
	cases := []struct {
		name  string
		setup func(c *labCluster)
		id    string
		words []string
	}{
		{"RuntimeClass with another handler", func(c *labCluster) {
			c.file(runtimeClassPath, "wrong/runtimeclass-other-handler.yaml")
			c.put(nvidiaRuntimeClass("runc"))
		}, "runtimeclass-pending.rc-fields", []string{"handler", "runc", "nvidia", "5번째 줄"}},
		{"live RuntimeClass with another handler", func(c *labCluster) {
			c.put(nvidiaRuntimeClass("runc"))
		}, "runtimeclass-pending.rc-live", []string{"handler 가 runc", "지우고 다시"}},
		{"file handler changed after applying", func(c *labCluster) {
			c.file(runtimeClassPath, "wrong/runtimeclass-other-handler.yaml")
		}, "runtimeclass-pending.rc-fields", []string{"runc"}},
		{"RuntimeClass v1beta1", func(c *labCluster) {
			c.file(runtimeClassPath, "wrong/runtimeclass-v1beta1.yaml")
		}, "runtimeclass-pending.rc-file", []string{"node.k8s.io/v1 RuntimeClass", "node.k8s.io/v1beta1", "1번째 줄"}},
		{"RuntimeClass missing in the cluster", func(c *labCluster) {
			c.del("RuntimeClass", "", "nvidia")
		}, "runtimeclass-pending.rc-live", []string{"RuntimeClass nvidia 가 없습니다", "kubectl apply -f /root/gpuop/k8s/runtimeclass.yaml"}},
		{"pod without runtimeClassName (file)", func(c *labCluster) {
			c.file(gpuPodPath, "wrong/gpu-pod-no-runtimeclassname.yaml")
		}, "runtimeclass-pending.pod-fields", []string{"spec.runtimeClassName 이 없습니다", "nvidia"}},
		{"pod without runtimeClassName (live)", func(c *labCluster) {
			c.file(gpuPodPath, "wrong/gpu-pod-no-runtimeclassname.yaml")
			p := unschedulable(gpuPod("pod-1"), refSchedMsg)
			p.Spec.RuntimeClassName = nil
			c.put(p)
		}, "runtimeclass-pending.pod-live", []string{"runtimeClassName 이 (없음)", "kubectl delete pod"}},
		{"pod live without runtimeClassName, file right", func(c *labCluster) {
			p := unschedulable(gpuPod("pod-1"), refSchedMsg)
			p.Spec.RuntimeClassName = nil
			c.put(p)
		}, "runtimeclass-pending.pod-live", []string{"파일에는 nvidia, 클러스터에는 (없음)"}},
		{"GPU in requests only", func(c *labCluster) {
			c.file(gpuPodPath, "wrong/gpu-pod-requests-only.yaml")
		}, "runtimeclass-pending.pod-fields", []string{"requests 에만"}},
		{"unknown field", func(c *labCluster) {
			c.file(gpuPodPath, "wrong/gpu-pod-unknown-field.yaml")
		}, "runtimeclass-pending.pod-file", []string{"spec.runtimeClass", "7번째 줄"}},
		{"bad quantity", func(c *labCluster) {
			c.file(gpuPodPath, "wrong/gpu-pod-bad-quantity.yaml")
		}, "runtimeclass-pending.pod-file", []string{"limits[nvidia.com/gpu] (14번째 줄)", "수량이 아닙니다", "128Mi"}},
		{"wrong kind", func(c *labCluster) {
			c.file(gpuPodPath, "wrong/gpu-pod-wrong-kind.yaml")
		}, "runtimeclass-pending.pod-file", []string{"v1 Pod", "v1 Deployment", "2번째 줄"}},
		{"broken YAML", func(c *labCluster) {
			c.file(gpuPodPath, "wrong/broken.yaml")
		}, "runtimeclass-pending.pod-file", []string{"YAML 로 읽을 수 없습니다", "9번째 줄", "같은 칸에서 시작"}},
		{"two documents", func(c *labCluster) {
			c.file(gpuPodPath, "wrong/multi-doc.yaml")
		}, "runtimeclass-pending.pod-file", []string{"문서가 2개"}},
		{"binary", func(c *labCluster) {
			c.file(gpuPodPath, "wrong/binary.yaml")
		}, "runtimeclass-pending.pod-file", []string{"텍스트 파일이 아닙니다"}},
		{"missing pod file", func(c *labCluster) {
			c.removeFile(gpuPodPath)
		}, "runtimeclass-pending.pod-file", []string{"파일이 없습니다", "/root/gpuop/k8s/gpu-pod.yaml"}},
		{"unscheduled.txt paraphrased", func(c *labCluster) {
			c.file(unscheduledPath, "wrong/unscheduled-paraphrased.txt")
		}, "runtimeclass-pending.unscheduled-live", []string{"스케줄러의 message 와 다릅니다", "0/3 nodes available: insufficient", refSchedMsg}},
		{"unscheduled.txt with the phase", func(c *labCluster) {
			c.file(unscheduledPath, "wrong/unscheduled-pending.txt")
		}, "runtimeclass-pending.unscheduled-file", []string{"Pending", "phase"}},
		{"unscheduled.txt one line", func(c *labCluster) {
			c.file(unscheduledPath, "wrong/unscheduled-one-line.txt")
		}, "runtimeclass-pending.unscheduled-file", []string{"두 줄", "1줄"}},
		{"namespace missing", func(c *labCluster) {
			c.del("Namespace", "", "gpu-lab")
		}, "runtimeclass-pending.namespace", []string{"kubectl create namespace gpu-lab"}},
		{"pod deleted", func(c *labCluster) {
			c.del("Pod", "gpu-lab", "cuda-probe")
		}, "runtimeclass-pending.pod-live", []string{"cuda-probe 가 없습니다"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newLabCluster(t)
			c.stage5()
			tc.setup(c)
			wantFail(t, c, stepRuntimeClassPending, tc.id, tc.words...)
		})
	}
}

// stage5Forgotten is step 5 done with its past gone: the scheduler's
// event expired and labmate witnessed nothing.
func stage5Forgotten(t *testing.T) *labCluster {
	c := newLabCluster(t)
	c.stage5()
	c.del("Event", "gpu-lab", "cuda-probe.1")
	c.witness = checks.Witness{}
	return c
}

// The pending evidence: live, from events, or remembered, always for the
// pod's UID; a later step's change keeps step 5 green, deleting the pod
// does not.
func TestRuntimeClassPendingEvidence(t *testing.T) {
	t.Run("event only", func(t *testing.T) {
		c := newLabCluster(t)
		c.stage5()
		// labmate started after step 6: the live condition is gone, the
		// scheduler's event remains.
		c.witness = checks.Witness{}
		c.put(running(gpuPod("pod-1"), "lab-node-0"))
		wantStatus(t, c, stepRuntimeClassPending, "runtimeclass-pending.unschedulable", checks.Passed, "FailedScheduling 이벤트")
		wantStatus(t, c, stepRuntimeClassPending, "runtimeclass-pending.unscheduled-live", checks.Passed)
	})
	t.Run("witness outlives the event and a restart", func(t *testing.T) {
		c := newLabCluster(t)
		c.stage5()
		c.eval(stepRuntimeClassPending)
		c.stage6()
		c.del("Event", "gpu-lab", "cuda-probe.1") // events expire after an hour
		raw, err := json.Marshal(c.witness)
		if err != nil {
			t.Fatal(err)
		}
		c.witness = checks.Witness{}
		if err := json.Unmarshal(raw, &c.witness); err != nil {
			t.Fatal(err)
		}
		if st := c.status(stepRuntimeClassPending); st != checks.Passed {
			t.Errorf("step 5 after restart: %s %v", st, failing(c.eval(stepRuntimeClassPending)))
		}
	})
	t.Run("no evidence for a pod that was scheduled at once", func(t *testing.T) {
		c := stage5Forgotten(t)
		c.put(boundAfter(running(gpuPod("pod-1"), "lab-node-0"), c.now, 2*time.Second))
		wantFail(t, c, stepRuntimeClassPending, "runtimeclass-pending.unschedulable", "한 번도 Unschedulable", "lab-node-0")
		wantStatus(t, c, stepRuntimeClassPending, "runtimeclass-pending.unscheduled-live", checks.Waiting)
	})
	// A grader runs `labmate check` the next day on a fresh state dir:
	// the events expired, labmate never saw the pod Pending. The binding
	// time and the learner's file are the evidence left; the message can
	// no longer be verified, which is unknown, never failed.
	t.Run("events expired, nothing witnessed, pod bound late", func(t *testing.T) {
		c := stage5Forgotten(t)
		c.put(boundAfter(running(gpuPod("pod-1"), "lab-node-0"), c.now.Add(-25*time.Hour), 4*time.Minute))
		wantStatus(t, c, stepRuntimeClassPending, "runtimeclass-pending.unschedulable", checks.Passed, "4분 뒤", "Unschedulable")
		wantStatus(t, c, stepRuntimeClassPending, "runtimeclass-pending.unscheduled-live", checks.Unknown, "한 시간", "강사")
		if v := fact(c.eval(stepRuntimeClassPending), "스케줄된 시각"); v != "만들어지고 4분 뒤 스케줄됨" {
			t.Errorf("binding fact = %q", v)
		}
		if st := c.status(stepRuntimeClassPending); st != checks.Unknown {
			t.Errorf("step 5: %s, want unknown: %v", st, failing(c.eval(stepRuntimeClassPending)))
		}
		// The file's claim is part of the evidence.
		c.file(unscheduledPath, "wrong/unscheduled-pending.txt")
		wantStatus(t, c, stepRuntimeClassPending, "runtimeclass-pending.unschedulable", checks.Waiting, "unscheduled.txt")
		if st := c.status(stepRuntimeClassPending); st != checks.Failed {
			t.Errorf("step 5 with a wrong file: %s", st)
		}
	})
	t.Run("a gap under the threshold is no evidence", func(t *testing.T) {
		c := stage5Forgotten(t)
		c.put(boundAfter(running(gpuPod("pod-1"), "lab-node-0"), c.now, pendingGapMin-time.Second))
		wantFail(t, c, stepRuntimeClassPending, "runtimeclass-pending.unschedulable", "한 번도 Unschedulable")
	})
	t.Run("recreated pod does not inherit the old pod's past", func(t *testing.T) {
		c := newLabCluster(t)
		c.stage5()
		c.eval(stepRuntimeClassPending)
		c.stage6()
		c.del("Pod", "gpu-lab", "cuda-probe")
		if st := c.status(stepRuntimeClassPending); st != checks.Failed {
			t.Errorf("step 5 with its pod deleted: %s", st)
		}
		c.put(running(gpuPod("pod-2"), "lab-node-0"))
		wantFail(t, c, stepRuntimeClassPending, "runtimeclass-pending.unschedulable", "한 번도")
		if st := c.status(stepAdvertiseGPU); st != checks.Passed {
			t.Errorf("step 6 with a recreated running pod: %s", st)
		}
	})
	t.Run("scheduler has not decided yet", func(t *testing.T) {
		c := stage5Forgotten(t)
		c.put(gpuPod("pod-1"))
		wantStatus(t, c, stepRuntimeClassPending, "runtimeclass-pending.unschedulable", checks.Waiting)
	})
	// While the pod is Pending its live condition is the scheduler's
	// message; once it runs, any FailedScheduling message for it will do.
	t.Run("an earlier message of this pod", func(t *testing.T) {
		c := newLabCluster(t)
		pod := c.stage5()
		const earlier = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
		c.put(failedScheduling(pod, "cuda-probe.0", earlier, c.now.Add(-10*time.Minute)))
		c.content(unscheduledPath, []byte("Unschedulable\n"+earlier+"\n"))
		wantFail(t, c, stepRuntimeClassPending, "runtimeclass-pending.unscheduled-live", refSchedMsg, "PodScheduled 조건", "예전")
		c.put(running(gpuPod("pod-1"), "lab-node-0"))
		wantStatus(t, c, stepRuntimeClassPending, "runtimeclass-pending.unscheduled-live", checks.Passed)
	})
}

func TestAdvertiseGPUWrongTurns(t *testing.T) {
	cases := []struct {
		name  string
		setup func(c *labCluster)
		id    string
		words []string
	}{
		{"node table missing a node", func(c *labCluster) {
			c.file(nodeGPUPath, "wrong/node-gpu-missing-node.txt")
		}, "advertise-gpu.table-file", []string{"lab-node-2 줄이 없습니다"}},
		{"lab-node-0 row wrong", func(c *labCluster) {
			c.file(nodeGPUPath, "wrong/node-gpu-node0-wrong.txt")
		}, "advertise-gpu.table-file", []string{"lab-node-0 의 광고량이 40"}},
		{"lab-node-1 says 20 before it advertises", func(c *labCluster) {
			c.file(nodeGPUPath, "wrong/node-gpu-node1-20.txt")
		}, "advertise-gpu.table-live", []string{"lab-node-1", "파일에는 20, 클러스터의 allocatable 에는 (없음)"}},
		{"node not patched", func(c *labCluster) {
			c.put(labNode("lab-node-0", ""), unschedulable(gpuPod("pod-1"), refSchedMsg))
		}, "advertise-gpu.node", []string{"lab-node-0", "capacity=(없음)", "allocatable=(없음)", "--subresource=status"}},
		{"only allocatable patched", func(c *labCluster) {
			n := labNode("lab-node-0", "4")
			delete(n.Status.Capacity, gpuResource)
			c.put(n)
		}, "advertise-gpu.node", []string{"capacity=(없음)"}},
		{"pending without GPUs", func(c *labCluster) {
			c.put(labNode("lab-node-0", ""), unschedulable(gpuPod("pod-1"), refSchedMsg))
		}, "advertise-gpu.pod", []string{"Pending", "Insufficient nvidia.com/gpu"}},
		{"pod on another node", func(c *labCluster) {
			c.put(running(gpuPod("pod-1"), "lab-node-2"))
		}, "advertise-gpu.pod", []string{"lab-node-2"}},
		{"pod deleted", func(c *labCluster) {
			c.del("Pod", "gpu-lab", "cuda-probe")
		}, "advertise-gpu.pod", []string{"지워졌습니다"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newLabCluster(t)
			c.stage5()
			c.stage6()
			tc.setup(c)
			wantFail(t, c, stepAdvertiseGPU, tc.id, tc.words...)
		})
	}
	t.Run("scheduler retrying", func(t *testing.T) {
		c := newLabCluster(t)
		c.stage5()
		c.stage6()
		c.put(unschedulable(gpuPod("pod-1"), refSchedMsg))
		wantStatus(t, c, stepAdvertiseGPU, "advertise-gpu.pod", checks.Waiting, "기다립니다")
	})
	t.Run("lab-node-1 at 20 after step 7 is accepted", func(t *testing.T) {
		c := newLabCluster(t)
		c.stage5()
		c.stage6()
		c.stage7()
		c.file(nodeGPUPath, "wrong/node-gpu-node1-20.txt")
		wantStatus(t, c, stepAdvertiseGPU, "advertise-gpu.table-live", checks.Passed)
	})
}

func TestTimeSlicingWrongTurns(t *testing.T) {
	cases := []struct {
		name  string
		setup func(c *labCluster)
		id    string
		words []string
	}{
		{"slots.txt with guaranteed memory 8", func(c *labCluster) {
			c.file(slotsPath, "wrong/slots-guaranteed-8.txt")
		}, "time-slicing.slots-values", []string{"VRAM_GUARANTEED_PER_SLOT_GIB=8", "5번째 줄", "0 이어야", "나눈 값"}},
		{"slots.txt out of order", func(c *labCluster) {
			c.file(slotsPath, "wrong/slots-order.txt")
		}, "time-slicing.slots-format", []string{"순서", "REPLICAS, PHYSICAL_GPUS"}},
		{"replicas as a string", func(c *labCluster) {
			c.file(timeSlicingPath, "wrong/time-slicing-replicas-string.yaml")
		}, "time-slicing.cm-fields", []string{"replicas", "따옴표 없이"}},
		{"misspelt failRequestsGreaterThanOne", func(c *labCluster) {
			c.file(timeSlicingPath, "wrong/time-slicing-typo.yaml")
		}, "time-slicing.cm-fields", []string{"failRequestGreaterThanOne"}},
		{"replicas 4 in file and cluster", func(c *labCluster) {
			c.file(timeSlicingPath, "wrong/time-slicing-replicas-4.yaml")
			c.put(timeSlicingConfigMap(c.t, "wrong/time-slicing-replicas-4.yaml"))
		}, "time-slicing.cm-fields", []string{"replicas 가 4"}},
		{"file changed, not applied", func(c *labCluster) {
			c.file(timeSlicingPath, "wrong/time-slicing-replicas-4.yaml")
		}, "time-slicing.cm-live", []string{"파일에는", "nvidia.com/gpu×4", "클러스터에는", "nvidia.com/gpu×5"}},
		{"ConfigMap not applied", func(c *labCluster) {
			c.del("ConfigMap", "gpu-operator", "time-slicing-config")
		}, "time-slicing.cm-live", []string{"time-slicing-config 가 없습니다"}},
		{"lab-node-1 at 16", func(c *labCluster) {
			c.put(labNode("lab-node-1", "16"))
		}, "time-slicing.node", []string{"capacity=16", "allocatable=16", "20"}},
		{"ADVERTISED not what lab-node-1 says", func(c *labCluster) {
			c.put(labNode("lab-node-1", "16"))
		}, "time-slicing.slots-live", []string{"ADVERTISED=20", "16"}},
		{"REPLICAS not the cluster's", func(c *labCluster) {
			cm := timeSlicingConfigMap(c.t, "wrong/time-slicing-replicas-4.yaml")
			c.put(cm)
		}, "time-slicing.slots-live", []string{"REPLICAS=5", "4 여야"}},
		{"broken slots.txt", func(c *labCluster) {
			c.content(slotsPath, []byte("PHYSICAL_GPUS 4\n"))
		}, "time-slicing.slots-format", []string{"= 가 없습니다", "7줄이어야"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newLabCluster(t)
			c.stage5()
			c.stage6()
			c.stage7()
			tc.setup(c)
			wantFail(t, c, stepTimeSlicing, tc.id, tc.words...)
		})
	}
}

func TestRolloutStallWrongTurns(t *testing.T) {
	cases := []struct {
		name  string
		setup func(c *labCluster)
		id    string
		words []string
	}{
		{"rollout.txt with READY=3", func(c *labCluster) {
			c.file(rolloutPath, "wrong/rollout-ready-3.txt")
		}, "rollout-stall.report-live", []string{"READY=3", "3번째 줄", "2 여야", "numberReady"}},
		{"updated without the memory change", func(c *labCluster) {
			ds := withStatus(toolkitDaemonSet("ds-1", newImage, oldMemory, 2), 3, 3, 3, 3)
			c.put(ds)
			c.del("Pod", "gpu-operator", "nvidia-container-toolkit-lab-node-0-v1.17.0")
			for _, n := range labNodes {
				c.del("Pod", "gpu-operator", "nvidia-container-toolkit-"+n+"-v1.16.2")
				c.put(toolkitPod(ds, n, newImage, oldMemory, ""))
			}
			c.file(toolkitDSPath, "wrong/toolkit-ds-no-memory-change.yaml")
		}, "rollout-stall.stalled", []string{"끝까지", "UPDATED 3/3", "128Mi", "64Gi"}},
		{"file updated without the memory change", func(c *labCluster) {
			c.file(toolkitDSPath, "wrong/toolkit-ds-no-memory-change.yaml")
		}, "rollout-stall.ds-fields", []string{"v1.17.0", "128Mi", "64Gi"}},
		{"file updated, cluster not", func(c *labCluster) {
			c.file(toolkitDSPath, "right/k8s/toolkit-ds-updated.yaml")
			ds := withStatus(toolkitDaemonSet("ds-1", oldImage, oldMemory, 1), 3, 3, 3, 3)
			c.put(ds)
		}, "rollout-stall.ds-live", []string{"적용하세요"}},
		{"maxUnavailable 2 in the file", func(c *labCluster) {
			c.file(toolkitDSPath, "wrong/toolkit-ds-max-2.yaml")
		}, "rollout-stall.ds-fields", []string{"maxUnavailable", "2", "1 이어야"}},
		{"DaemonSet deleted", func(c *labCluster) {
			c.del("DaemonSet", "gpu-operator", "nvidia-container-toolkit")
		}, "rollout-stall.ds-live", []string{"nvidia-container-toolkit 이 없습니다"}},
		{"OLD_IMAGE_PODS off", func(c *labCluster) {
			c.content(rolloutPath, []byte("DESIRED=3\nUPDATED=1\nREADY=2\nOLD_IMAGE_PODS=3\nMAX_UNAVAILABLE=1\nBLOCKER=insufficient-memory\n"))
		}, "rollout-stall.report-live", []string{"OLD_IMAGE_PODS=3", "v1.16.2"}},
		{"another blocker", func(c *labCluster) {
			c.content(rolloutPath, []byte("DESIRED=3\nUPDATED=1\nREADY=2\nOLD_IMAGE_PODS=2\nMAX_UNAVAILABLE=1\nBLOCKER=insufficient-cpu\n"))
		}, "rollout-stall.report-live", []string{"BLOCKER=insufficient-cpu", "insufficient-memory", "Insufficient memory"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newLabCluster(t)
			c.allStages()
			tc.setup(c)
			wantFail(t, c, stepRolloutStall, tc.id, tc.words...)
		})
	}
	t.Run("not updated yet", func(t *testing.T) {
		c := newLabCluster(t)
		c.stage5()
		c.stage6()
		c.stage7()
		c.stage8Ready()
		wantFail(t, c, stepRolloutStall, "rollout-stall.stalled", "v1.16.2", "64Gi")
	})
	t.Run("pods not yet Ready on v1.16.2", func(t *testing.T) {
		c := newLabCluster(t)
		c.stage5()
		ds := withStatus(toolkitDaemonSet("ds-1", oldImage, oldMemory, 1), 3, 3, 3, 1)
		c.file(toolkitDSPath, "right/k8s/toolkit-ds.yaml")
		c.put(ds, toolkitPod(ds, "lab-node-0", oldImage, oldMemory, ""))
		wantStatus(t, c, stepRolloutStall, "rollout-stall.was-ready", checks.Waiting, "1개만")
	})
}

// Whether all pods were Ready on v1.16.2: witnessed for this DaemonSet,
// else inferred from what the stalled rollout left, never from another
// DaemonSet's past.
func TestRolloutStallWasReady(t *testing.T) {
	t.Run("witnessed", func(t *testing.T) {
		c := newLabCluster(t)
		c.allStages()
		if f, ok := c.witness.Get(witnessToolkitReady); !ok || f.Value != "3" || f.UID != "ds-1" {
			t.Fatalf("witness = %+v %v", f, ok)
		}
		wantStatus(t, c, stepRolloutStall, "rollout-stall.was-ready", checks.Passed, "labmate 가")
	})
	t.Run("inferred", func(t *testing.T) {
		c := newLabCluster(t)
		c.stage5()
		c.stage6()
		c.stage7()
		c.file(toolkitDSPath, "right/k8s/toolkit-ds.yaml")
		ds := withStatus(toolkitDaemonSet("ds-1", newImage, newMemory, 2), 3, 3, 1, 2)
		c.put(ds, toolkitPod(ds, "lab-node-1", oldImage, oldMemory, ""), toolkitPod(ds, "lab-node-2", oldImage, oldMemory, ""),
			toolkitPod(ds, "lab-node-0", newImage, newMemory, memSchedMsg))
		c.file(rolloutPath, "right/out/rollout.txt")
		wantStatus(t, c, stepRolloutStall, "rollout-stall.was-ready", checks.Passed, "추정")
		if st := c.status(stepRolloutStall); st != checks.Passed {
			t.Errorf("step 8 on inference: %s %v", st, failing(c.eval(stepRolloutStall)))
		}
	})
	t.Run("recreated DaemonSet does not inherit the witness", func(t *testing.T) {
		c := newLabCluster(t)
		c.allStages()
		ds := withStatus(toolkitDaemonSet("ds-2", newImage, newMemory, 1), 3, 3, 1, 1)
		c.put(ds, toolkitPod(ds, "lab-node-1", oldImage, oldMemory, ""))
		p := toolkitPod(ds, "lab-node-2", oldImage, oldMemory, "")
		p.Status.Conditions = nil
		c.put(p)
		wantFail(t, c, stepRolloutStall, "rollout-stall.was-ready", "근거가 없습니다")
	})
}

// The connection state decides the live checks; the file checks of the
// same steps still run.
func TestClusterStatesGateLiveChecks(t *testing.T) {
	cases := []struct {
		name  string
		state observe.ClusterState
		err   string
		want  checks.Status
		words []string
		not   []string // what the message must not say
		// refusals are the structured form of err for ClusterError;
		// the message is worded from them, never parsed from err.
		refusals []observe.Refusal
	}{
		{"off", observe.ClusterOff, "", checks.Unknown, []string{"kubeconfig 를 찾지 못했습니다", "labmate sandbox up", "--kubeconfig"}, nil, nil},
		{"disabled", observe.ClusterOff, observe.ClusterDisabled, checks.Unknown, []string{"--no-cluster", "껐습니다"},
			[]string{"kubeconfig 를 찾지", "disabled"}, nil},
		{"connecting", observe.ClusterConnecting, "pods in gpu-lab: the server is currently unable to handle the request", checks.Waiting,
			[]string{"받아 오는 중", "unable to handle"}, nil, nil},
		{"unreachable", observe.ClusterUnreachable, "dial tcp 127.0.0.1:6443: connect: connection refused", checks.Unknown,
			[]string{"닿지 않습니다", "connection refused", "통과로 치지 않습니다"}, nil, nil},
		{"forbidden", observe.ClusterError,
			`list pods in gpu-lab: 403 Forbidden (pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "gpu-lab"); ` +
				`list pods in gpu-operator: 403 Forbidden (pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "gpu-operator"); ` +
				`watch runtimeclasses.node.k8s.io: 403 Forbidden (runtimeclasses.node.k8s.io is forbidden: User "bob" cannot watch resource "runtimeclasses")`,
			checks.Error, []string{"네임스페이스 gpu-lab, gpu-operator 의 pods 를 list", "클러스터 전체의 runtimeclasses.node.k8s.io 를 watch", "권한", "labmate lab rbac gpu-incident"},
			[]string{"is forbidden", "받아 오는 중"}, []observe.Refusal{
				{Verb: "list", Resource: "pods", Namespace: "gpu-lab", Code: 403},
				{Verb: "list", Resource: "pods", Namespace: "gpu-operator", Code: 403},
				{Verb: "watch", Resource: "runtimeclasses.node.k8s.io", Code: 403},
			}},
		{"unauthorized", observe.ClusterError, "list nodes: 401 Unauthorized (Unauthorized)", checks.Error,
			[]string{"자격 증명", "401"}, nil, []observe.Refusal{{Verb: "list", Resource: "nodes", Code: 401}}},
		{"resource type not served", observe.ClusterError, "list runtimeclasses.node.k8s.io: 404 NotFound (the server could not find the requested resource)", checks.Error,
			[]string{"runtimeclasses.node.k8s.io", "제공하지 않습니다"}, nil,
			[]observe.Refusal{{Verb: "list", Resource: "runtimeclasses.node.k8s.io", Code: 404}}},
		{"refusal in a form labmate does not know", observe.ClusterError, "something odd", checks.Error,
			[]string{"거절", "something odd"}, nil, nil},
	}
	gates := map[int]string{5: "runtimeclass-pending.cluster", 6: "advertise-gpu.cluster", 7: "time-slicing.cluster", 8: "rollout-stall.cluster"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newLabCluster(t)
			c.allStages() // everything right and in the store
			c.state(tc.state, tc.err, tc.refusals...)
			for _, s := range clusterSteps {
				ev := c.eval(s)
				if st := checks.Aggregate(ev.Checks); st != tc.want {
					t.Errorf("step %d: %s, want %s", s.Number, st, tc.want)
				}
				r := result(t, ev, gates[s.Number])
				if r.Status != tc.want {
					t.Errorf("%s: %s", r.ID, r.Status)
				}
				for _, w := range tc.words {
					if !strings.Contains(r.Message, w) {
						t.Errorf("%s: message does not name %q: %s", r.ID, w, r.Message)
					}
				}
				for _, w := range tc.not {
					if strings.Contains(r.Message, w) {
						t.Errorf("%s: message says %q: %s", r.ID, w, r.Message)
					}
				}
				for _, r := range ev.Checks {
					if r.ID != gates[s.Number] && r.Status != checks.Passed {
						t.Errorf("file check %s: %s: %s", r.ID, r.Status, r.Message)
					}
				}
			}
			// A wrong file still fails while the cluster is away.
			c.file(slotsPath, "wrong/slots-guaranteed-8.txt")
			wantFail(t, c, stepTimeSlicing, "time-slicing.slots-values", "VRAM_GUARANTEED_PER_SLOT_GIB=8")
		})
	}
}

// Objects with fields missing, or of an unexpected type, never crash a
// check and never pass one.
func TestClusterChecksOnIncompleteObjects(t *testing.T) {
	c := newLabCluster(t)
	c.allStages()
	c.put(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "lab-node-0"}})
	c.put(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-lab", Name: "cuda-probe"}})
	c.put(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-operator", Name: "time-slicing-config"}})
	c.put(&nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "nvidia"}})
	c.put(&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-operator", Name: "nvidia-container-toolkit", UID: "ds-3"}})
	c.put(&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-lab", Name: "odd"}, Reason: "FailedScheduling"})
	c.put(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "gpu-operator", Name: "orphan"}})
	for _, s := range clusterSteps {
		if st := c.status(s); st == checks.Passed {
			t.Errorf("step %d passed on empty objects", s.Number)
		}
	}
	wantFail(t, c, stepRuntimeClassPending, "runtimeclass-pending.rc-live", "handler 가 (없음)")
	wantFail(t, c, stepAdvertiseGPU, "advertise-gpu.node", "capacity=(없음)")
	wantFail(t, c, stepTimeSlicing, "time-slicing.cm-live", "data.any 가 없습니다")
	wantFail(t, c, stepRolloutStall, "rollout-stall.stalled")

	// A store entry of another type reads as absent.
	c.store.Apply(observe.Observation{Object: &observe.ObjectObs{Op: observe.OpUpsert, Kind: "Pod", Namespace: "gpu-lab", Name: "cuda-probe",
		Object: &unstructured.Unstructured{}}})
	wantFail(t, c, stepRuntimeClassPending, "runtimeclass-pending.pod-live", "없습니다")
}

// The reference answers shipped in content pass the file checks.
func TestContentReferenceManifestsPass(t *testing.T) {
	c := newLabCluster(t)
	c.allStages()
	for rel, ref := range map[string]string{
		runtimeClassPath: "runtimeclass.yaml", gpuPodPath: "gpu-pod.yaml",
		timeSlicingPath: "time-slicing.yaml", toolkitDSPath: "toolkit-ds.yaml",
	} {
		c.file(rel, "../../../../content/labs/gpu-incident/reference/k8s/"+ref)
	}
	c.file(slotsPath, "../../../../content/labs/gpu-incident/reference/out/slots.txt")
	for _, s := range clusterSteps {
		if st := c.status(s); st != checks.Passed {
			t.Errorf("step %d with content's reference files: %s %v", s.Number, st, failing(c.eval(s)))
		}
	}
}

func TestClusterScope(t *testing.T) {
	lab, err := content.Load(ID)
	if err != nil {
		t.Fatal(err)
	}
	if ns, nodes := lab.Cluster.Namespaces, lab.WatchedNodes(); strings.Join(ns, ",") != "gpu-lab,gpu-operator" || strings.Join(nodes, ",") != "lab-node-0,lab-node-1,lab-node-2" {
		t.Errorf("scope = %v %v", ns, nodes)
	}
	// Every namespace and node the checks name is one labmate watches.
	for _, ns := range []string{labNamespace, operatorNamespace} {
		if !slices.Contains(lab.Cluster.Namespaces, ns) {
			t.Errorf("the checks read namespace %s, which the lab does not watch", ns)
		}
	}
	for _, n := range append(labNodes, advertisingNode, timeSlicedNode) {
		if !slices.Contains(lab.WatchedNodes(), n) {
			t.Errorf("the checks read node %s, which the lab does not watch", n)
		}
	}
}

// Bad input of any shape never crashes the manifest decoder.
func FuzzDecodeManifest(f *testing.F) {
	for _, s := range []string{"", "apiVersion: v1\nkind: Pod\n", "- a\n- b", "a: [", "apiVersion: v1\nkind: Pod\nspec: {containers: 3}",
		"\x00\x01", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - resources: {limits: {nvidia.com/gpu: x}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st := observe.NewStore()
		st.Apply(observe.Observation{File: &observe.FileObs{Path: gpuPodPath, State: observe.FilePresent, Content: []byte(s)}})
		p, m, r := checks.DecodeManifest[corev1.Pod](checks.Input{Lab: text(), Snap: st.Snapshot()}, "x", gpuPodPath, "v1", "Pod")
		if (p == nil) != (m == nil) || (p == nil) == (r.Status == checks.Passed) {
			t.Errorf("decoded %v, manifest %v, result %s", p != nil, m != nil, r.Status)
		}
	})
}
