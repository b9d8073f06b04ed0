package labkit

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/observe"
)

// predicateLab is a lab whose one manifest check has a rule that names
// a step's predicate, itself reading the lab's, and a twin rule with the
// same condition written out.
func predicateLab(t *testing.T, edit func(string) string) string {
	t.Helper()
	return testfiles.Dir(t, map[string]string{
		"lab.toml": edit(`id = "preds"
title = "이름 붙인 식"
default_root = "/tmp/preds"
intro = "intro.md"

[predicates]
on_ssd = "has(object.spec.nodeSelector) && object.spec.nodeSelector[?'disk'].orValue('') == 'ssd'"
sees_nodes = "cluster.node('n1') != null"

[[steps]]
number = 1
id = "pod"
title = "파드"
body = "steps/01.md"

[steps.predicates]
web_on_ssd = "on_ssd && object.metadata.name == 'web' && object.spec.containers[0].image.startsWith('nginx')"

[[steps.checks]]
id = "named"
type = "manifest"
path = "pod.yaml"
api_version = "v1"
kind = "Pod"

[[steps.checks.rules]]
expr = "web_on_ssd"
fail = "preds.no"

[[steps.checks]]
id = "inline"
type = "manifest"
path = "pod.yaml"
api_version = "v1"
kind = "Pod"

[[steps.checks.rules]]
expr = "(has(object.spec.nodeSelector) && object.spec.nodeSelector[?'disk'].orValue('') == 'ssd') && object.metadata.name == 'web' && object.spec.containers[0].image.startsWith('nginx')"
fail = "preds.no"
`),
		"messages.toml": "[preds]\nno = \"아닙니다.\"\n",
		"intro.md":      "# 이름 붙인 식\n",
		"steps/01.md":   "파드\n",
	})
}

// lineOf is "lab.toml:N:" for the line of lab.toml that begins with
// prefix.
func lineOf(t *testing.T, dir, prefix string) string {
	t.Helper()
	lab, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(strings.Split(string(lab.Text.TOML), "\n"), func(l string) bool { return strings.HasPrefix(l, prefix) })
	if i < 0 {
		t.Fatalf("no line begins %q", prefix)
	}
	return "lab.toml:" + strconv.Itoa(i+1) + ":"
}

// A rule that names a predicate decides exactly as the rule with it
// written out: on a match, a mismatch, and absent fields (the absence
// inside the predicate is the whole rule's).
func TestANamedPredicateDecidesAsWrittenOut(t *testing.T) {
	lab, err := OpenDir(predicateLab(t, keep))
	if err != nil {
		t.Fatal(err)
	}
	if len(lab.Problems) > 0 {
		t.Fatalf("problems: %v", lab.Problems)
	}
	store := observe.NewStore()
	pod := func(name, selector, image string) string {
		s := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\nspec:\n"
		if selector != "" {
			s += "  nodeSelector:\n    disk: " + selector + "\n"
		}
		if image != "" {
			s += "  containers:\n  - name: c\n    image: " + image + "\n"
		}
		return s
	}
	for _, body := range []string{
		pod("web", "ssd", "nginx:1"),
		pod("web", "hdd", "nginx:1"),
		pod("db", "ssd", "nginx:1"),
		pod("web", "", "nginx:1"),
		pod("web", "ssd", ""),
		pod("web", "ssd", "redis"),
	} {
		store.Apply(observe.Observation{Time: time.Now(), File: &observe.FileObs{Path: "pod.yaml", State: observe.FilePresent, Content: []byte(body), Size: int64(len(body)), Mode: 0o644}})
		ev := lab.Steps[0].Eval(checks.Input{Lab: lab.Text, Snap: store.Snapshot(), Root: "/lab", Witness: &checks.Witness{}})
		rs := map[string]checks.Result{}
		for _, r := range ev.Checks {
			rs[r.ID] = r
		}
		named, inline := rs["pod.named"], rs["pod.inline"]
		if named.Status != inline.Status || named.Message != inline.Message {
			t.Errorf("%s\nnamed: %s %q\ninline: %s %q", body, named.Status, named.Message, inline.Status, inline.Message)
		}
	}
	// Both verdicts were seen: the table above tells them apart.
	body := pod("web", "ssd", "nginx:1")
	store.Apply(observe.Observation{Time: time.Now(), File: &observe.FileObs{Path: "pod.yaml", State: observe.FilePresent, Content: []byte(body), Size: int64(len(body)), Mode: 0o644}})
	if ev := lab.Steps[0].Eval(checks.Input{Lab: lab.Text, Snap: store.Snapshot(), Root: "/lab", Witness: &checks.Witness{}}); ev.Checks[0].Status != checks.Passed {
		t.Errorf("the matching pod: %s %q", ev.Checks[0].Status, ev.Checks[0].Message)
	}
}

// A predicate is type-checked when the lab compiles: one that does not
// compile is a problem at its definition's line, used or not; one used
// where its variables are not seen is a problem of the using check that
// names the predicate and its line; a name CEL or a variable keeps, or a
// step's that hides the lab's, is refused at its line.
func TestAPredicateIsCheckedAtItsDefinition(t *testing.T) {
	problems := func(dir string) string {
		t.Helper()
		lab, err := OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, p := range lab.Problems {
			all = append(all, p.Error())
		}
		return strings.Join(all, "\n")
	}
	for _, c := range []struct {
		name, old, new, line string
		want                 []string
	}{
		{"does not compile", `sees_nodes = "cluster.node('n1') != null"`, `sees_nodes = "object.spec.nodeName =="`, "sees_nodes =", []string{"이름 붙인 식 sees_nodes 를 쓸 수 없습니다"}},
		{"a wrong type", `sees_nodes = "cluster.node('n1') != null"`, `sees_nodes = "cluster.node(1)"`, "sees_nodes =", []string{"이름 붙인 식 sees_nodes 를 쓸 수 없습니다", "node"}},
		{"a reserved name", `sees_nodes = `, `exists = `, "exists =", []string{"이름 붙인 식의 이름 exists 는 쓸 수 없습니다"}},
		{"a variable's name", `sees_nodes = `, `object = `, "object =", []string{"object 는 검사 식의 변수 이름입니다"}},
		{"hides the lab's", `web_on_ssd = `, `on_ssd = `, "on_ssd = \"on_ssd", []string{"on_ssd 는 실습 전체의 [predicates] 에 이미 있습니다"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := predicateLab(t, func(s string) string { return strings.Replace(s, c.old, c.new, 1) })
			got := problems(dir)
			at := lineOf(t, dir, c.line)
			if !strings.Contains(got, at) {
				t.Errorf("no problem at %s:\n%s", at, got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems do not say %q:\n%s", w, got)
				}
			}
		})
	}
	t.Run("used where cluster is not seen", func(t *testing.T) {
		dir := predicateLab(t, func(s string) string {
			return strings.Replace(s, `expr = "web_on_ssd"`, `expr = "web_on_ssd && sees_nodes"`, 1)
		})
		got := problems(dir)
		def := strings.TrimSuffix(strings.TrimPrefix(lineOf(t, dir, "sees_nodes ="), "lab.toml:"), ":")
		for _, w := range []string{lineOf(t, dir, `expr = "web_on_ssd && sees_nodes"`), "이름 붙인 식 sees_nodes 를 이 검사에서 쓸 수 없습니다(정의: lab.toml " + def + "번째 줄)"} {
			if !strings.Contains(got, w) {
				t.Errorf("problems do not say %q:\n%s", w, got)
			}
		}
	})
}

// lab eval reads the lab's named predicates as a rule does.
func TestEvalReadsTheLabsPredicates(t *testing.T) {
	lab, err := OpenDir(predicateLab(t, keep))
	if err != nil {
		t.Fatal(err)
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  nodeSelector:\n    disk: ssd\n  containers:\n  - name: c\n    image: nginx\n"
	for data, want := range map[string]string{pod: "true", strings.Replace(pod, "ssd", "hdd", 1): "false"} {
		got, err := lab.Eval(EvalInput{Expr: "on_ssd", Type: "manifest", File: "pod.yaml", Data: []byte(data)})
		if err != nil || got.Text != want {
			t.Errorf("on_ssd on\n%s= %q, %v; want %s", data, got.Text, err, want)
		}
	}
}

// lab eval with a step reads that step's predicates too, as a rule of
// it does; without one, the step's names are not there; a step the lab
// does not have is said.
func TestEvalReadsAStepsPredicates(t *testing.T) {
	lab, err := OpenDir(predicateLab(t, keep))
	if err != nil {
		t.Fatal(err)
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  nodeSelector:\n    disk: ssd\n  containers:\n  - name: c\n    image: nginx\n"
	for data, want := range map[string]string{pod: "true", strings.Replace(pod, "nginx", "redis", 1): "false"} {
		got, err := lab.Eval(EvalInput{Expr: "web_on_ssd", Type: "manifest", File: "pod.yaml", Data: []byte(data), Step: 1})
		if err != nil || got.Text != want {
			t.Errorf("web_on_ssd of step 1 on\n%s= %q, %v; want %s", data, got.Text, err, want)
		}
	}
	if _, err := lab.Eval(EvalInput{Expr: "web_on_ssd", Type: "manifest", File: "pod.yaml", Data: []byte(pod)}); err == nil || !strings.Contains(err.Error(), "web_on_ssd") {
		t.Errorf("without a step, a step's predicate evaluated: %v", err)
	}
	if _, err := lab.Eval(EvalInput{Expr: "true", Step: 2}); err == nil || !strings.Contains(err.Error(), "2단계") {
		t.Errorf("step 2 of a lab of one: %v", err)
	}
}
