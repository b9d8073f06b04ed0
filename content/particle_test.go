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
		{"SystemdCgroup", "이/가", "가"},  // 피
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
