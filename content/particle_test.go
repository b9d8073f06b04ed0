package content

import (
	"regexp"
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

// bareParticle is a placeholder followed by a particle written as one
// form: "{node} 가" reads "lab-node-0 가". Such a message must write the
// pair ("{node} {이/가}") so the filler picks the form; the old "은(는)"
// fallbacks are banned after a placeholder too.
var bareParticle = regexp.MustCompile(`\{[a-z_]+\}[` + "`" + `'"\])]*\s?(?:이|가|을|를|은|는|과|와|으로|로|이나|이라|이어야|여야|이었|였|은\(는\)|이\(가\)|을\(를\)|과\(와\)|\(으\)로)(?:[\s.,:;)'"]|$)`)

// pairToken is a {A/B} the filler would resolve; each must be a known pair.
var pairToken = regexp.MustCompile(`\{[^{}a-zA-Z_ ]+/[^{}a-zA-Z_ ]+\}`)

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
	known := Particles()
	for _, k := range keys {
		v := texts[k]
		if m := bareParticle.FindString(v); m != "" {
			t.Errorf("%s: %q puts a fixed particle after a placeholder; write the pair ({이/가}, {을/를}, ...): %s", k, strings.TrimSpace(m), v)
		}
		for _, p := range pairToken.FindAllString(v, -1) {
			if !slices.Contains(known, strings.Trim(p, "{}")) {
				t.Errorf("%s: particle pair %s is not one the filler knows (%v)", k, p, known)
			}
		}
	}
}
