package gpuincident

import (
	"os"
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
)

const (
	mFormat  = "merge-verdict.format"
	mMain    = "merge-verdict.main-runtimes"
	mDropIn  = "merge-verdict.dropin-runtimes"
	mCon     = "merge-verdict.conflict"
	mTable   = "merge-verdict.conflict-table"
	mLoaded  = "merge-verdict.loaded-runtimes"
	mFile    = "merge-verdict.file"
	mInputs  = "merge-verdict.inputs"
	runtimes = `plugins."io.containerd.grpc.v1.cri".containerd.runtimes`
)

func TestMergeVerdictReferencePasses(t *testing.T) {
	root := labRoot(t, nil)
	ev := evalStep(t, stepMergeVerdict, root, observeRoot(t, root))
	assertAllPassed(t, ev, 7)
	if got := fact(ev, "CONFLICT_TABLE"); !strings.Contains(got, runtimes) {
		t.Errorf("observed CONFLICT_TABLE %q", got)
	}
	if got := fact(ev, "LOADED_RUNTIMES"); !strings.Contains(got, "config dump") {
		t.Errorf("observed LOADED_RUNTIMES %q", got)
	}
}

func TestMergeVerdictWrong(t *testing.T) {
	runVariants(t, stepMergeVerdict, mergePath, []variant{
		{name: "lines out of order", fixture: "merge/wrong-order.txt",
			fail: map[string][]string{mFormat: {"키 순서가 다릅니다: DROPIN_RUNTIMES, MAIN_RUNTIMES", "MAIN_RUNTIMES, DROPIN_RUNTIMES, CONFLICT"}}},
		{name: "a line missing", fixture: "merge/missing-line.txt",
			fail: map[string][]string{
				mFormat: {"4줄입니다(5줄이어야 합니다)", "CONFLICT_TABLE 줄이 없습니다"},
				mTable:  {"CONFLICT_TABLE 줄이 없습니다", "CONFLICT_TABLE=" + runtimes},
			}},
		{name: "an extra line", fixture: "merge/extra-line.txt",
			fail: map[string][]string{mFormat: {"6줄입니다(5줄이어야 합니다)", "6번째 줄의 키 VERDICT 는 이 파일의 키가 아닙니다"}}},
		{name: "a blank line in the middle", fixture: "merge/blank-line.txt",
			fail: map[string][]string{mFormat: {"6줄입니다(5줄이어야 합니다)", "3번째 줄이 비어 있습니다"}}},
		{name: "a line without =", fixture: "merge/colon.txt",
			fail: map[string][]string{
				mFormat: {"1번째 줄에 = 가 없습니다", "MAIN_RUNTIMES: runc", "MAIN_RUNTIMES 줄이 없습니다"},
				mMain:   {"MAIN_RUNTIMES 줄이 없습니다"},
			}},
		{name: "a key twice", fixture: "merge/duplicate.txt",
			fail: map[string][]string{mFormat: {"MAIN_RUNTIMES 가 6번째 줄에 또 있습니다(처음은 1번째 줄)"}}},
		{name: "a key in lower case", fixture: "merge/key-case.txt",
			fail: map[string][]string{
				mFormat: {"키 main_runtimes 는 이 파일의 키가 아닙니다 (대소문자를 구분합니다: MAIN_RUNTIMES)"},
				mMain:   {"MAIN_RUNTIMES 줄이 없습니다"},
			}},
		{name: "spaces around =", fixture: "merge/spaces.txt",
			fail: map[string][]string{mFormat: {"1번째 줄의 = 앞뒤에 공백이 있습니다"}}},
		{name: "LOADED_RUNTIMES computed from the files", fixture: "merge/loaded-computed.txt",
			fail: map[string][]string{mLoaded: {"LOADED_RUNTIMES=nvidia,runc", "LOADED_RUNTIMES=runc", "containerd config dump", "계산하는 값이 아닙니다", "5번째 줄"}}},
		{name: "MAIN_RUNTIMES as if merged", fixture: "merge/main-merged.txt",
			fail: map[string][]string{mMain: {"적은 값 nvidia,runc", "계산한 값 runc", "런타임 테이블은 runc"}}},
		{name: "CONFLICT no", fixture: "merge/conflict-no.txt",
			fail: map[string][]string{mCon: {"적은 값 no", "계산한 값 yes", "두 파일 모두"}}},
		{name: "CONFLICT true", fixture: "merge/conflict-true.txt",
			fail: map[string][]string{mCon: {"true", "yes 또는 no"}}},
		{name: "CONFLICT_TABLE without quotes", fixture: "merge/table-unquoted.txt",
			fail: map[string][]string{mTable: {"plugins.io.containerd.grpc.v1.cri.containerd.runtimes", runtimes, "따옴표"}}},
		{name: "CONFLICT_TABLE too deep", fixture: "merge/table-too-deep.txt",
			fail: map[string][]string{mTable: {runtimes + ".nvidia", "가장 깊은 테이블은 runtimes", "통째로"}}},
		{name: "CONFLICT_TABLE too shallow", fixture: "merge/table-too-shallow.txt",
			fail: map[string][]string{mTable: {"가장 깊은 테이블"}}},
		{name: "CONFLICT_TABLE empty", fixture: "merge/table-empty.txt",
			fail: map[string][]string{mTable: {"적은 값 (비어 있음)", "CONFLICT=yes", "비워 두는 것은", runtimes}}},
		{name: "MAIN_RUNTIMES empty", fixture: "merge/main-empty.txt",
			fail: map[string][]string{mMain: {"적은 값 (비어 있음)", "계산한 값 runc"}}},
		{name: "a quoted value", fixture: "merge/quoted-value.txt",
			fail: map[string][]string{mMain: {`"runc"`, "따옴표 없이"}}},
	})
}

func TestMergeVerdictAccepts(t *testing.T) {
	for _, fx := range []string{"merge/table-literal-quotes.txt"} {
		root := labRoot(t, map[string]string{mergePath: fx})
		assertAllPassed(t, evalStep(t, stepMergeVerdict, root, observeRoot(t, root)), 7)
	}
	// CRLF line endings, with and without a final newline.
	ref := readFixture(t, reference+"/"+mergePath)
	for _, text := range []string{strings.ReplaceAll(ref, "\n", "\r\n"), strings.TrimSuffix(ref, "\n")} {
		root := labRoot(t, nil)
		writeLabFile(t, root+"/"+mergePath, []byte(text), 0o644)
		assertAllPassed(t, evalStep(t, stepMergeVerdict, root, observeRoot(t, root)), 7)
	}
}

// The verdict is derived from the learner's own files, not from the
// reference run's literals.
func TestMergeVerdictFollowsTheLearnersFiles(t *testing.T) {
	kata := map[string]string{mainConfigPath: "main-config/extra-kata.toml"}

	root := labRoot(t, kata)
	v := variant{fail: map[string][]string{mMain: {"적은 값 runc", "계산한 값 kata,runc"}}}
	assertOutcome(t, evalStep(t, stepMergeVerdict, root, observeRoot(t, root)), v)

	kata[mergePath] = "merge/main-kata-runc.txt"
	root = labRoot(t, kata)
	assertAllPassed(t, evalStep(t, stepMergeVerdict, root, observeRoot(t, root)), 7)

	kata[mergePath] = "merge/main-runc-kata.txt"
	root = labRoot(t, kata)
	v = variant{fail: map[string][]string{mMain: {"runc,kata", "kata,runc", "정렬"}}}
	assertOutcome(t, evalStep(t, stepMergeVerdict, root, observeRoot(t, root)), v)

	// A drop-in whose runtimes sit under plugins.cri defines no runtime
	// containerd would see: no conflict.
	noConflict := map[string]string{dropInPath: "dropin/v1-plugin-name.toml"}
	root = labRoot(t, noConflict)
	v = variant{fail: map[string][]string{
		mDropIn: {"적은 값 nvidia", "계산한 값 (비어 있음)", "테이블이 없습니다"},
		mCon:    {"계산한 값 no", "부딪히지 않습니다"},
		mTable:  {"비워 둡니다"},
	}}
	assertOutcome(t, evalStep(t, stepMergeVerdict, root, observeRoot(t, root)), v)

	noConflict[mergePath] = "merge/no-conflict.txt"
	root = labRoot(t, noConflict)
	assertAllPassed(t, evalStep(t, stepMergeVerdict, root, observeRoot(t, root)), 7)
}

func TestMergeVerdictWaitsForReadableInputs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replace map[string]string
		want    []string
	}{
		{"main config is not TOML", map[string]string{mainConfigPath: "main-config/unclosed-header.toml"},
			[]string{"1단계", mainConfigPath, "TOML 오류", mainConfigPath + ":7:"}},
		{"main config missing", map[string]string{mainConfigPath: ""},
			[]string{"1단계", mainConfigPath, "파일 없음"}},
		{"drop-in is binary", map[string]string{dropInPath: "dropin/binary-nul.toml"},
			[]string{"2단계", dropInPath, "텍스트가 아닌"}},
		{"both, and no merge.txt", map[string]string{mainConfigPath: "", dropInPath: "", mergePath: ""},
			[]string{"1단계", "2단계"}},
	} {
		root := labRoot(t, tc.replace)
		ev := evalStep(t, stepMergeVerdict, root, observeRoot(t, root))
		if len(ev.Checks) != 1 || ev.Checks[0].ID != mInputs || ev.Checks[0].Status != checks.Waiting {
			t.Errorf("%s: %v", tc.name, ids(ev))
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(ev.Checks[0].Message, w) {
				t.Errorf("%s: %q lacks %q", tc.name, ev.Checks[0].Message, w)
			}
		}
		if checks.Aggregate(ev.Checks) != checks.Waiting {
			t.Errorf("%s: step %s", tc.name, checks.Aggregate(ev.Checks))
		}
	}
}

func TestMergeVerdictMissingFile(t *testing.T) {
	root := labRoot(t, map[string]string{mergePath: ""})
	ev := evalStep(t, stepMergeVerdict, root, observeRoot(t, root))
	assertOutcome(t, ev, variant{others: checks.Waiting, fail: map[string][]string{mFile: {"파일이 없습니다", mergePath}}})
	// The observed panel still shows what the files say.
	if got := fact(ev, "MAIN_RUNTIMES"); !strings.Contains(got, "계산값 runc") {
		t.Errorf("observed %q", got)
	}
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A command's output redirected into merge.txt by mistake gives a short
// message, not one line per line of the file.
func TestMergeVerdictRunawayFile(t *testing.T) {
	root := labRoot(t, nil)
	writeLabFile(t, root+"/"+mergePath, []byte(strings.Repeat("noise\n", 100000)), 0o644)
	ev := evalStep(t, stepMergeVerdict, root, observeRoot(t, root))
	r := result(t, ev, mFormat)
	if r.Status != checks.Failed || len(r.Message) > 2000 || !strings.Contains(r.Message, "100000줄입니다(5줄이어야 합니다)") || !strings.Contains(r.Message, "그 밖에") {
		t.Errorf("%d bytes: %.300s", len(r.Message), r.Message)
	}
}
