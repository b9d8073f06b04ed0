package labkit

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/observe"
)

// registerForTest adds typ to the check types until the test ends.
func registerForTest(t *testing.T, typ checkType) {
	t.Helper()
	old := checkTypes
	checkTypes = append(slices.Clone(old), typ)
	t.Cleanup(func() { checkTypes = old })
}

// lineCountType is a check type only this test knows: a text file has
// exactly `lines` lines. It is written as a type of the kit is: its
// fields, its documentation, its compile and its verdict, and nothing
// else anywhere.
type lineCountType struct{}

type lineCountFields struct {
	Path  string `toml:"path"`
	Lines int    `toml:"lines"`
}

var lineCountKind = Kind{"line-count", "A text file has exactly `lines` lines.", []Field{
	{"path", true, "The file, relative to the lab root."},
	{"lines", true, "How many lines it must have."},
}, []Text{
	{"pass", []string{"path", "lines"}},
	{"fail", []string{"path", "got", "want"}},
}}

func (lineCountType) Kind() Kind     { return lineCountKind }
func (lineCountType) Vars() []string { return nil }

func (lineCountType) Compile(c *compiler) check {
	d := &lineCountCheck{base: c.base()}
	c.decode(&d.lineCountFields)
	return d
}

type lineCountCheck struct {
	base
	lineCountFields
}

func (d *lineCountCheck) Files() []string { return []string{d.Path} }
func (d *lineCountCheck) Live() bool      { return false }

func (d *lineCountCheck) Eval(in checks.Input, _ *view) (checks.Result, *checks.Fact) {
	body, bad := checks.ReadText(in, d.id, d.Path)
	if bad != nil {
		return *bad, nil
	}
	n := strings.Count(body, "\n")
	if body != "" && !strings.HasSuffix(body, "\n") {
		n++
	}
	p := checks.Shown(in, d.Path)
	if n == d.Lines {
		return checks.Pass(d.id, in.Msg(d.spec.Pass, "path", p, "lines", n)), nil
	}
	return checks.Fail(d.id, in.Msg(d.spec.Fail, "path", p, "got", n, "want", d.Lines), "", "", d.Path), nil
}

// toyLab is a lab directory whose one step uses the toy type after a
// built-in one, its texts (Korean, as a lab's are) its own.
var toyLab = map[string]string{
	"lab.toml": `id = "toy"
title = "줄 세기"
default_root = "/tmp/toy"
intro = "intro.md"

[[steps]]
number = 1
id = "hosts"
title = "호스트 목록"
body = "steps/01.md"

[[steps.checks]]
id = "exists"
type = "file"
path = "etc/hosts.txt"

[[steps.checks]]
id = "three"
type = "line-count"
path = "etc/hosts.txt"
lines = 3
needs = ["exists"]
pass = "toy.lines.ok"
fail = "toy.lines.wrong"
`,
	"messages.toml": `[toy.lines]
ok = "{path} 는 {lines}줄입니다."
wrong = "{path} 는 {got}줄입니다: {want}줄이어야 합니다."
`,
	"intro.md":    "# 줄 세기\n",
	"steps/01.md": "`{{ROOT}}/etc/hosts.txt` 에 호스트를 세 줄 쓰세요.\n",
}

// writeToyLab writes toyLab into a temporary directory, lab.toml edited
// by edit.
func writeToyLab(t *testing.T, edit func(string) string) string {
	t.Helper()
	files := maps.Clone(toyLab)
	files["lab.toml"] = edit(files["lab.toml"])
	return testfiles.Dir(t, files)
}

func keep(s string) string { return s }

// A check type is added through the registry alone: registered, a lab
// directory that names it loads, its fields are validated like every
// type's, its step reads its file, and it judges (after the built-in
// check it needs). Unregistered, the same lab names a type there is not.
func TestAToyCheckTypeJoinsThroughTheRegistry(t *testing.T) {
	t.Run("registered", func(t *testing.T) {
		registerForTest(t, lineCountType{})
		fieldsMatchDocs(t, lineCountType{})
		if !strings.Contains(Reference(), "### `type = \"line-count\"`\n\nA text file has exactly `lines` lines.") {
			t.Error("the reference does not document the registered type")
		}

		lab, err := OpenDir(writeToyLab(t, keep))
		if err != nil {
			t.Fatal(err)
		}
		if len(lab.Problems) > 0 {
			t.Fatalf("problems: %v", lab.Problems)
		}
		if got := lab.Steps[0].Files; !slices.Equal(got, []string{"etc/hosts.txt"}) {
			t.Errorf("step files %v", got)
		}
		if lab.ReadsCluster(1) {
			t.Error("a file-only step reads the cluster")
		}
		store := observe.NewStore()
		eval := func(body string, present bool) checks.Result {
			t.Helper()
			f := &observe.FileObs{Path: "etc/hosts.txt", State: observe.FileMissing}
			if present {
				f = &observe.FileObs{Path: "etc/hosts.txt", State: observe.FilePresent, Content: []byte(body), Size: int64(len(body)), Mode: 0o644}
			}
			store.Apply(observe.Observation{Time: time.Now(), File: f})
			ev := lab.Steps[0].Eval(checks.Input{Lab: lab.Text, Snap: store.Snapshot(), Root: "/lab", Witness: &checks.Witness{}})
			rs := map[string]checks.Result{}
			for _, r := range ev.Checks {
				rs[r.ID] = r
			}
			return rs["hosts.three"]
		}
		if r := eval("", false); r.Status != checks.Waiting {
			t.Errorf("without its file: %s %q, want it waiting for the check it needs", r.Status, r.Message)
		}
		if r := eval("a\nb\n", true); r.Status != checks.Failed || r.Message != "/lab/etc/hosts.txt 는 2줄입니다: 3줄이어야 합니다." {
			t.Errorf("two lines: %s %q", r.Status, r.Message)
		}
		if r := eval("a\nb\nc", true); r.Status != checks.Passed || r.Message != "/lab/etc/hosts.txt 는 3줄입니다." {
			t.Errorf("three lines: %s %q", r.Status, r.Message)
		}
	})

	t.Run("validated", func(t *testing.T) {
		registerForTest(t, lineCountType{})
		lineOf := func(text string) string {
			i := slices.IndexFunc(strings.Split(toyLab["lab.toml"], "\n"), func(l string) bool { return l == text })
			return "lab.toml:" + strconv.Itoa(i+1) + ":"
		}
		// A key no type reads keeps the lab from loading, at its line.
		_, err := OpenDir(writeToyLab(t, func(s string) string { return strings.Replace(s, "lines = 3", "line = 3", 1) }))
		if err == nil || !strings.Contains(err.Error(), lineOf("lines = 3")+"1: ") || !strings.Contains(err.Error(), "steps.checks.line") {
			t.Errorf("a misspelt field: %v", err)
		}
		// Another type's field, and its own required one missing, are
		// problems of the check, at its line.
		lab, err := OpenDir(writeToyLab(t, func(s string) string { return strings.Replace(s, "lines = 3", "executable = true", 1) }))
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, p := range lab.Problems {
			all = append(all, p.Error())
		}
		joined := strings.Join(all, "\n")
		for _, want := range []string{lineOf(`id = "three"`) + "1: 1단계 검사 three", "executable 은 line-count 검사가 읽지 않는 필드입니다", "line-count 검사에는 lines 가 있어야 합니다"} {
			if !strings.Contains(joined, want) {
				t.Errorf("problems do not say %q:\n%s", want, joined)
			}
		}
		// A value of the wrong type keeps the lab from loading.
		if _, err := OpenDir(writeToyLab(t, func(s string) string { return strings.Replace(s, "lines = 3", `lines = "3"`, 1) })); err == nil || !strings.Contains(err.Error(), lineOf("lines = 3")) {
			t.Errorf("a string for lines: %v", err)
		}
	})

	t.Run("unregistered", func(t *testing.T) {
		lab, err := OpenDir(writeToyLab(t, func(s string) string { return strings.Replace(s, "lines = 3\n", "", 1) }))
		if err != nil {
			t.Fatal(err)
		}
		if len(lab.Problems) != 1 || !strings.Contains(lab.Problems[0].Msg, "검사 종류 line-count 는 없습니다") {
			t.Errorf("problems %v, want the one unknown type", lab.Problems)
		}
	})
}
