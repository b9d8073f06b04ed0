package content

import (
	"slices"
	"strings"
	"testing"
)

func TestParticleReadsTheLastSyllable(t *testing.T) {
	for _, c := range []struct{ word, pair, want string }{
		{"노드", "이/가", "가"},
		{"파일", "이/가", "이"},
		{"파일", "으로/로", "로"}, // ㄹ takes 로
		{"경로", "으로/로", "로"},
		{"명령", "으로/로", "으로"},
		{"설정", "을/를", "을"},
		{"스크립트", "은/는", "는"},
		{"lab-node-0", "이/가", "이"},  // 영
		{"gpu-node-1", "으로/로", "로"}, // 일: ㄹ
		{"gpu-node-2", "은/는", "는"},  // 이
		{"3", "을/를", "을"},           // 삼
		{"4", "이/가", "가"},           // 사
		{"6", "이/가", "이"},           // 육
		{"10", "이/가", "이"},          // 십
		{"20", "과/와", "과"},          // 이십
		{"100", "을/를", "을"},         // 백
		{"1000", "이/가", "이"},        // 천
		{"120000", "이/가", "이"},      // 십이만
		{"105", "이/가", "가"},         // 백오
		{"550.54.15", "이/가", "가"},   // ...십오
		{"0", "이어야/여야", "이어야"},
		{"runc", "을/를", "를"},     // 씨
		{"kubectl", "으로/로", "로"}, // 엘
		{"kubectl", "이/가", "이"},
		{"64Gi", "이어야/여야", "여야"}, // 아이
		{"128Mi", "을/를", "를"},
		{"SystemdCgroup", "이/가", "이"},  // 씨그룹
		{"sum", "이/가", "이"},            // 엠
		{"ml-train", "은/는", "은"},       // 엔
		{"cluster", "을/를", "를"},        // 클러스터
		{"Running", "이/가", "이"},        // 러닝
		{"Unschedulable", "으로/로", "로"}, // 블
		{"runtime", "이/가", "이"},        // 타임
		{"none", "은/는", "은"},           // 논
		{"R", "이/가", "이"},              // 알
		{"GPU", "이/가", "가"},            // 유
		{"nvidia.com/gpu", "이/가", "가"},
		{"'runc'", "을/를", "를"}, // quotes are skipped
		{"out/merge.txt)", "이/가", "가"},
		{"", "이/가", "이(가)"},
		{"*", "을/를", "을(를)"},
		{"노드", "에게/한테", "에게/한테"}, // not a pair labmate knows
	} {
		if got := Particle(c.word, c.pair); got != c.want {
			t.Errorf("Particle(%q, %q) = %q, want %q", c.word, c.pair, got, c.want)
		}
	}
}

// Every word a shipped lab puts before a particle (each check's kind and
// its field paths' last segment, which messages fill as "{field} {이/가}
// {got} 입니다"), and the words of the kinds labs are written about,
// read as a Korean reader says it. A word a lab adds that this table
// does not know fails here until its reading is written down.
func TestParticleReadsTheWordsLabsUse(t *testing.T) {
	readings := map[string]string{ // word: its form of 이/가, with the reading
		"ClusterPolicy":     "가", // 클러스터폴리시
		"Deployment":        "가", // 디플로이먼트
		"Node":              "가", // 노드
		"Pod":               "가", // 파드
		"PriorityClass":     "가", // 프라이오리티클래스
		"ResourceQuota":     "가", // 리소스쿼터
		"globalDefault":     "가", // 글로벌디폴트
		"labels":            "가", // 레이블스
		"preemptionPolicy":  "가", // 프리엠션폴리시
		"spec":              "이", // 스펙
		"affinity":          "가", // 어피니티
		"containers":        "가", // 컨테이너스
		"default":           "가", // 디폴트
		"name":              "이", // 네임
		"enabled":           "가", // 이네이블드
		"hard":              "가", // 하드
		"replicas":          "가", // 레플리카스
		"nodeSelector":      "가", // 노드셀렉터
		"priorityClassName": "이", // 프라이오리티클래스네임
		"tolerations":       "가", // 톨러레이션스
		"allocatable":       "이", // 얼로케이터블
		"value":             "가", // 밸류
	}
	// Words of the kinds of labs authors write (a rollout with a
	// PodDisruptionBudget, a custom resource), and of values.
	more := map[string]string{
		"type": "이", "strategy.type": "이", "runtimeType": "이", // 타입
		"policy": "가", "node": "가", "pod": "가", // 폴리시, 노드, 파드
		"Recreate": "가", "RollingUpdate": "가", // 리크리에이트, 롤링업데이트
		"maxUnavailable": "이", "minAvailable": "이", "maxSurge": "가", // 언어베일러블, 맥스서지
		"PodDisruptionBudget": "이",                 // 버짓
		"rollout":             "이", "timeout": "이", // 롤아웃, 타임아웃
		"webhook": "이", "Job": "이", "CronJob": "이", "cgroup": "이", // 웹훅, 잡, 씨그룹
		"template": "이", "PodTemplate": "이", // 템플릿
		"check": "가", "exec": "이", // 체크, 엑섹
		"status": "가", "image": "가", "ConfigMap": "이", "DaemonSet": "이", // 스테이터스, 이미지, 맵, 셋
		"Namespace": "가", "Secret": "이", "Service": "가", "label": "이", // 시크릿, 레이블
		"readyReplicas": "가", "observedGeneration": "이", "reason": "이", // 제너레이션, 리즌
		"runtimeClassName": "이", "handler": "가", "ready": "가", "Pending": "이",
	}
	for _, id := range IDs() {
		l, err := Load(id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		for _, w := range labWords(l) {
			if _, ok := readings[w]; !ok {
				t.Errorf("%s puts %q before particles: write its reading in this table", id, w)
			}
		}
	}
	for _, table := range []map[string]string{readings, more} {
		for w, want := range table {
			if got := Particle(w, "이/가"); got != want {
				t.Errorf("Particle(%q, 이/가) = %q, want %q", w, got, want)
			}
		}
	}
}

// labWords are the kinds a lab's checks name and the last segments of
// the field paths they name.
func labWords(l *Lab) []string {
	var out []string
	add := func(m map[string]any) {
		for _, k := range []string{"kind", "field", "key"} {
			v, _ := m[k].(string)
			if i := strings.LastIndexAny(v, ".["); i >= 0 {
				v = strings.TrimSuffix(v[i+1:], "]")
			}
			if v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	for _, s := range l.Steps {
		for _, c := range s.Checks {
			add(c.Fields)
			switch rules := c.Fields["rules"].(type) {
			case []any:
				for _, r := range rules {
					if m, ok := r.(map[string]any); ok {
						add(m)
					}
				}
			case []map[string]any:
				for _, m := range rules {
					add(m)
				}
			}
		}
	}
	return out
}

func TestFillPicksParticlesAfterValues(t *testing.T) {
	for _, c := range []struct {
		t    string
		kv   []any
		want string
	}{
		{"{node} {이/가} 광고합니다", []any{"node", "lab-node-0"}, "lab-node-0 이 광고합니다"},
		{"{node} {이/가} 광고합니다", []any{"node", "lab-node-2"}, "lab-node-2 가 광고합니다"},
		{"{path}{을/를} 만드세요", []any{"path", "bin/run.sh"}, "bin/run.sh를 만드세요"},
		{"{want} {이어야/여야} 합니다", []any{"want", "64Gi"}, "64Gi 여야 합니다"},
		{"'{x}' {으로/로}", []any{"x", "kubectl"}, "'kubectl' 로"},
		{"노드 {을/를} 봅니다", nil, "노드 를 봅니다"},
		// A value is never read for pairs or placeholders.
		{"{v} {이/가}", []any{"v", "{을/를} {x}"}, "{을/를} {x} 가"},
		// {{ROOT}} is Expand's, untouched here.
		{"{{ROOT}}/k8s {을/를}", []any{"x", 1}, "{{ROOT}}/k8s 를"},
	} {
		if got := fill(c.t, c.kv); got != c.want {
			t.Errorf("fill(%q, %v) = %q, want %q", c.t, c.kv, got, c.want)
		}
	}
}

// Every message, shared and each lab's own, that puts a particle after a
// placeholder writes it as a pair the filler resolves.
func TestMessagesWriteParticlesAsPairs(t *testing.T) {
	sharedOnce.Do(loadShared)
	texts := map[string]string{}
	for k, v := range shared {
		texts["shared "+k] = v
	}
	for _, id := range IDs() {
		l, err := Load(id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		for k, v := range l.msgs {
			texts[id+" "+k] = v
		}
		for _, s := range l.Steps {
			for i, h := range s.Hints {
				texts[id+" hint "+s.ID+"/"+string(rune('1'+i))] = h
			}
		}
	}
	keys := make([]string, 0, len(texts))
	for k := range texts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, p := range FormProblems(texts[k]) {
			t.Errorf("%s: %s: %s", k, p, texts[k])
		}
	}
}

// FormProblems finds a fixed particle after a placeholder and a pair the
// filler does not know, naming each; a well-formed text has none.
func TestFormProblems(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"{path} {이/가} 없습니다", nil},
		{"{path} 가 없습니다.", []string{"{path}", "'가'"}},
		{"`{path}`를 만드세요", []string{"{path}", "'를'"}},
		{"{node} 이(가) Ready", []string{"{node}", "'이(가)'"}},
		{"{x} {이/가/는} 입니다", []string{"'이/가/는'"}},
		{"{n} {을/를} {에게/한테}", []string{"'에게/한테'", "이/가"}},
		{"kubectl patch -p '{\"a\":1}' {{ROOT}}", nil},
	} {
		got := strings.Join(FormProblems(c.text), " | ")
		if (got == "") != (c.want == nil) {
			t.Errorf("FormProblems(%q) = %q, want problems %v", c.text, got, c.want)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("FormProblems(%q) = %q, does not name %q", c.text, got, w)
			}
		}
	}
}
