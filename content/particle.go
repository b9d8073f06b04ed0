package content

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Korean particles after a value. A message writes the pair, and the
// filler picks the form that fits what stands before it:
//
//	"{node} {이/가} Ready 입니다"  ->  "lab-node-0 이 Ready 입니다"
//	"{path} {을/를} 만드세요"      ->  "out/merge.txt 를 만드세요"
//
// Written here rather than taken from a library: the small Go josa
// packages read only Hangul, and labmate's values are mostly names,
// paths and numbers, read by their Korean reading (0 영, 10 십, L 엘).

// particles maps each pair a message may write to its two forms: after a
// final consonant (받침), and after a vowel.
var particles = map[string][2]string{
	"이/가":        {"이", "가"},
	"을/를":        {"을", "를"},
	"은/는":        {"은", "는"},
	"과/와":        {"과", "와"},
	"으로/로":       {"으로", "로"},
	"이나/나":       {"이나", "나"},
	"이라/라":       {"이라", "라"},
	"이라는/라는":     {"이라는", "라는"},
	"이어야/여야":     {"이어야", "여야"},
	"이었습니다/였습니다": {"이었습니다", "였습니다"},
}

// Particles lists the pairs a message may write ("이/가", ...), sorted.
func Particles() []string {
	out := make([]string, 0, len(particles))
	for p := range particles {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// final is the final consonant (종성) of how word ends when read aloud in
// Korean: 0 for none, 8 for ㄹ (the jongseong index), another positive
// number for any other; -1 when it cannot be told (empty, a symbol).
func final(word string) int {
	r := []rune(strings.TrimRightFunc(word, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`'"`+"`"+`)]}>.,:;!?`, r)
	}))
	if len(r) == 0 {
		return -1
	}
	last := r[len(r)-1]
	switch {
	case last >= 0xAC00 && last <= 0xD7A3: // a Hangul syllable
		return int(last-0xAC00) % 28
	case last >= '0' && last <= '9':
		return numberFinal(r)
	case unicode.IsLetter(last) && last < unicode.MaxASCII:
		if f, ok := wordFinal(r); ok {
			return f
		}
		return letterFinal[unicode.ToLower(last)]
	}
	return -1
}

// wordEndings are the ends of lowercase English words a Korean reader
// hears differently from the last letter's name: cluster 클러스터 (no
// final), Running 러닝 (ㅇ), Unschedulable 블 (ㄹ), runtime 타임 (ㅁ),
// none 논 (ㄴ).
var wordEndings = []struct {
	end   string
	final int
}{
	{"er", noFinal}, {"or", noFinal}, {"ar", noFinal}, {"ur", noFinal}, {"ir", noFinal},
	{"ng", finalNG}, {"le", finalL}, {"me", finalM}, {"ne", finalN},
}

// wordReadings are English words, also as the end of a longer one
// (runtimeType, webhook, SystemdCgroup, timeout), whose Korean reading
// ends unlike their spelling's rules say: type 타입, group 그룹,
// template 템플릿, hook 훅, rollout 아웃, check 체크.
var wordReadings = []struct {
	word  string
	final int
}{
	{"type", finalB}, {"group", finalB}, {"template", finalS}, {"hook", finalG}, {"out", finalS}, {"check", noFinal},
}

// wordFinal reads r's end as an English word when its last two runes are
// lowercase Latin letters; an acronym (GPU, R) is read letter by letter.
func wordFinal(r []rune) (int, bool) {
	if len(r) < 2 || !isLower(r[len(r)-1]) || !isLower(r[len(r)-2]) {
		return 0, false
	}
	word := strings.ToLower(string(r[len(r)-lettersAtEnd(r):]))
	for _, w := range wordReadings {
		if strings.HasSuffix(word, w.word) {
			return w.final, true
		}
	}
	tail := string(r[len(r)-2:])
	for _, w := range wordEndings {
		if tail == w.end {
			return w.final, true
		}
	}
	// A short vowel before b, p, t, c or ck closes the syllable: job 잡,
	// Map 맵, DaemonSet 셋, kubelet 릿, spec 스펙, rack 랙 (but root
	// 루트, script 트, runc 씨).
	short := len(r) < 3 || !isVowel(r[len(r)-3])
	closed := isVowel(r[len(r)-2]) && short
	switch last := r[len(r)-1]; {
	case tail == "ck":
		return finalG, true
	case closed && (last == 'p' || last == 'b'):
		return finalB, true
	case closed && last == 't':
		return finalS, true
	case closed && last == 'c':
		return finalG, true
	}
	return 0, false
}

// lettersAtEnd counts the Latin letters r ends with.
func lettersAtEnd(r []rune) int {
	n := 0
	for n < len(r) && unicode.IsLetter(r[len(r)-1-n]) && r[len(r)-1-n] < unicode.MaxASCII {
		n++
	}
	return n
}

func isVowel(r rune) bool { return strings.ContainsRune("aeiou", unicode.ToLower(r)) }

func isLower(r rune) bool { return r >= 'a' && r <= 'z' }

// Jongseong indexes of the finals a reading can end in.
const (
	noFinal = 0
	finalG  = 1  // ㄱ: 육, 백, 억
	finalN  = 4  // ㄴ: 엔, 천, 만
	finalL  = 8  // ㄹ: 일, 칠, 팔, 엘, 알
	finalM  = 16 // ㅁ: 삼, 엠
	finalB  = 17 // ㅂ: 십
	finalS  = 19 // ㅅ: 셋
	finalNG = 21 // ㅇ: 영
)

// digitFinal is each digit's reading's final: 영 일 이 삼 사 오 육 칠 팔 구.
var digitFinal = [10]int{finalNG, finalL, noFinal, finalM, noFinal, noFinal, finalG, finalL, finalL, noFinal}

// letterFinal is each Latin letter's Korean name's final: 엘 and 알 end in
// ㄹ, 엠 in ㅁ, 엔 in ㄴ; every other name (에이, 비, 씨, ...) in a vowel.
var letterFinal = map[rune]int{'l': finalL, 'm': finalM, 'n': finalN, 'r': finalL}

// numberFinal reads the run of digits r ends with as a number: its last
// non-zero digit, or the unit its trailing zeros make (10 십, 100 백,
// 1000 천, 10000 만, 10^8 억, 10^12 조); 0 alone is 영.
func numberFinal(r []rune) int {
	i := len(r)
	for i > 0 && r[i-1] >= '0' && r[i-1] <= '9' {
		i--
	}
	digits := strings.TrimLeft(string(r[i:]), "0")
	if digits == "" {
		return finalNG
	}
	zeros := len(digits) - len(strings.TrimRight(digits, "0"))
	if last := digits[len(digits)-zeros-1]; zeros == 0 {
		return digitFinal[last-'0']
	}
	switch {
	case zeros == 1:
		return finalB // 십
	case zeros == 2:
		return finalG // 백
	case zeros == 3:
		return finalN // 천
	case zeros < 8:
		return finalN // 만
	case zeros < 12:
		return finalG // 억
	}
	return noFinal // 조
}

// Particle returns the form of pair ("이/가", "을/를", ...) that follows
// word: "lab-node-0" 이, "runc" 를, "kubectl" 로. An unknown pair is
// returned as written; a word whose reading cannot be told gets both
// forms ("이(가)").
func Particle(word, pair string) string {
	forms, ok := particles[pair]
	if !ok {
		return pair
	}
	switch f := final(word); {
	case f < 0:
		return forms[0] + "(" + forms[1] + ")"
	case f == 0, f == finalL && forms[0] == "으로":
		return forms[1]
	}
	return forms[0]
}

// bareParticle is a placeholder followed by a particle written as one
// form: "{node} 가" reads "lab-node-0 가". Such a message must write the
// pair ("{node} {이/가}") so the filler picks the form; the old "은(는)"
// fallbacks are banned after a placeholder too.
var bareParticle = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(\{[a-z_]+\})[` + "`" + `'"\])]*\s?(이|가|을|를|은|는|과|와|으로|로|이나|이라|이어야|여야|이었|였|은\(는\)|이\(가\)|을\(를\)|과\(와\)|\(으\)로)(?:[\s.,:;)'"]|$)`)
})

// pairToken is a {A/B} the filler would resolve; each must be a known pair.
var pairToken = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[^{}a-zA-Z_ ]+/[^{}a-zA-Z_ ]+\}`) })

// FormProblems says, in Korean, what is wrong with the form of a message
// text whoever fills it: a particle written in one fixed form right after
// a placeholder (it reads wrong for half the values), a particle pair the
// filler does not know. A text no declarative check shows (a Go lab's)
// can be checked for nothing more.
func FormProblems(t string) []string {
	var out []string
	for _, m := range bareParticle().FindAllStringSubmatch(t, -1) {
		out = append(out, Msg("content.form.bare_particle", "placeholder", m[1], "particle", m[2]))
	}
	for _, p := range pairToken().FindAllString(t, -1) {
		if _, ok := particles[strings.Trim(p, "{}")]; !ok {
			out = append(out, Msg("content.form.unknown_pair", "pair", strings.Trim(p, "{}"), "pairs", strings.Join(Particles(), ", ")))
		}
	}
	return out
}
