package checks_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/internal/textguard"
	"github.com/labhub/labmate/observe"
)

const podHead = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\nspec:\n"

// A manifest the decoders refuse is explained in Korean, with the field
// and the line, and says what to write; the decoder's own words are only
// what labmate observed.
func TestDecoderErrorsAreExplained(t *testing.T) {
	for _, c := range []struct {
		name, body string
		words      []string // in the message
		observed   string   // in Observed: the decoder's words
	}{
		{"tolerations as a mapping", "  tolerations:\n    key: nvidia.com/gpu\n    operator: Exists\n  containers: []\n",
			[]string{"spec.tolerations (7번째 줄)", "매핑(키: 값)", "목록(- 항목)", "- 로 시작하는"}, "cannot unmarshal object"},
		{"port as a string", "  containers:\n    - name: a\n      ports:\n        - containerPort: \"80\"\n",
			[]string{"spec.containers[0].ports[0].containerPort (10번째 줄)", "문자열", "정수", "따옴표 없이"}, "cannot unmarshal string"},
		{"second container's port", "  containers:\n    - name: a\n      ports:\n        - containerPort: 80\n    - name: b\n      ports:\n        - containerPort: \"81\"\n",
			[]string{"spec.containers[1].ports[0].containerPort (13번째 줄)"}, "cannot unmarshal string"},
		{"nodeSelector value a number", "  nodeSelector:\n    gpu: 1\n  containers: []\n",
			[]string{"spec.nodeSelector[gpu] (8번째 줄)", "숫자", "문자열", "따옴표로 감싸세요"}, "cannot unmarshal number"},
		{"bad quantity", "  containers:\n    - name: a\n      resources:\n        limits:\n          nvidia.com/gpu: one\n",
			[]string{"spec.containers[0].resources.limits[nvidia.com/gpu] (11번째 줄)", "one 은 수량이 아닙니다", "128Mi"}, "quantities must match"},
		{"tab indentation", "\tcontainers: []\n",
			[]string{"7번째 줄", "탭 문자", "스페이스"}, "found character that cannot start any token"},
		{"misaligned key", "  containers:\n    - name: a\n     image: b\n",
			[]string{"8번째 줄", "같은 칸에서 시작"}, "did not find expected '-' indicator"},
		{"key without an indent", "  containers:\n  - name: a\n   image: b\n",
			[]string{"8번째 줄", "들여쓰기를 맞추세요"}, "did not find expected key"},
		{"value after a value", "  containers:\n    - name: a: b\n",
			[]string{"8번째 줄", "안쪽 키는 다음 줄로"}, "mapping values are not allowed"},
		{"unclosed list", "  containers: [\n",
			[]string{"닫히지 않았습니다"}, "did not find expected"},
		{"duplicate key", "  containers: []\n  containers: []\n",
			[]string{"8번째 줄", "두 번"}, "already set in map"},
		{"list on the key's line", "  containers: - name: a\n",
			[]string{"7번째 줄", "- 는 키 아래 줄"}, "block sequence entries are not allowed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			snap := observe.NewStore().Snapshot()
			snap.Files["k8s/p.yaml"] = observe.FileObs{Path: "k8s/p.yaml", State: observe.FilePresent, Content: []byte(podHead + c.body)}
			in := checks.Input{Snap: snap, Root: "/lab"}
			var pod corev1.Pod
			m, r := checks.DecodeManifestInto(in, "p", "k8s/p.yaml", "v1", "Pod", &pod)
			if m != nil || r.Status != checks.Failed {
				t.Fatalf("decoded: %+v", r)
			}
			for _, w := range c.words {
				if !strings.Contains(r.Message, w) {
					t.Errorf("message lacks %q: %s", w, r.Message)
				}
			}
			if bad := textguard.DecoderWords.FindString(r.Message); bad != "" {
				t.Errorf("message has the decoder's %q: %s", bad, r.Message)
			}
			if !strings.Contains(r.Observed, c.observed) {
				t.Errorf("observed %q lacks the decoder's words %q", r.Observed, c.observed)
			}
		})
	}
}
