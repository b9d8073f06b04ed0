package labkit

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/labmate/observe"
)

// textLab is the kit-demo lab with every message its checks may name (by
// their types' Texts, and the rules') set to a text of its own: a marker
// and every placeholder the type declares for it. With checkFail unset
// the checks name no `fail` of their own, so their rules' texts show.
func textLab(t *testing.T, checkFail bool) (*Lab, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, "testdata/kit-demo", dir)
	raw, err := os.ReadFile(filepath.Join(dir, "lab.toml"))
	if err != nil {
		t.Fatal(err)
	}
	markers := map[string]string{} // key -> marker
	var msgs strings.Builder
	name := func(id string, parts ...string) string {
		key := "t." + id + "." + strings.Join(parts, ".")
		marker := "«" + id + "/" + strings.Join(parts, "/") + "»"
		markers[key] = marker
		return key
	}
	declare := func(key string, tx Text) {
		body := markers[key]
		for _, p := range tx.Placeholders {
			body += " {" + p + "}"
		}
		if tx.Field == "hint" {
			body = " " + body
		}
		fmt.Fprintf(&msgs, "%q = %q\n", key, body)
	}
	var out []string
	id, rules := "", 0
	drop := regexp.MustCompile(`^(pass|fail|expect|hint|missing) = `)
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case drop.MatchString(line):
			continue
		case strings.HasPrefix(line, `id = "`) && len(out) > 0 && out[len(out)-1] == "[[steps.checks]]":
			id, rules = strings.Trim(strings.TrimPrefix(line, "id = "), `"`), 0
		case strings.HasPrefix(line, "why = "):
			key := name(id, "why")
			declare(key, Text{Field: "why"})
			line = `why = { WIDGETS = "` + key + `" }`
		}
		out = append(out, line)
		switch {
		case strings.HasPrefix(line, `type = "`) && id != "":
			typ := typeNamed(strings.Trim(strings.TrimPrefix(line, "type = "), `"`))
			for _, tx := range append(slices.Clone(commonTexts), typ.Kind().Texts...) {
				if tx.Field == "why" || tx.Field == "fail" && !checkFail {
					continue
				}
				key := name(id, tx.Field)
				declare(key, tx)
				out = append(out, fmt.Sprintf("%s = %q", tx.Field, key))
			}
		case line == "[[steps.checks.rules]]":
			for _, tx := range ruleTexts {
				key := name(id, fmt.Sprint("rule", rules), tx.Field)
				declare(key, tx)
				out = append(out, fmt.Sprintf("%s = %q", tx.Field, key))
			}
			rules++
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "lab.toml"), []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "messages.toml"), []byte(msgs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	lab, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lab.Problems {
		t.Errorf("authoring problem: %v", p)
	}
	return lab, markers
}

// Each check type fills, in every message it shows, the placeholders its
// Texts declare: the kit-demo lab, with every message a text of all of
// them, is taken through each check's failures and passes, and no
// placeholder is left unfilled, while every such message is shown at
// least once (the walk covers them all, so this test can fail).
func TestTypesFillThePlaceholdersTheyDeclare(t *testing.T) {
	shown := map[string]bool{}
	all := map[string]string{}
	for _, checkFail := range []bool{true, false} {
		lab, markers := textLab(t, checkFail)
		for k, m := range markers {
			all[k] = m
		}
		d := &demo{t: t, lab: lab, store: observe.NewStore(), now: newDemo(t).now}
		d.store.Apply(observe.Observation{Time: d.now, Cluster: &observe.ClusterObs{State: observe.ClusterSynced, Server: "https://127.0.0.1:6443"}})
		see := func(step int) {
			for _, r := range d.eval(step) {
				for _, s := range []string{r.Message, r.Expected, r.Observed, r.Where} {
					for k, m := range markers {
						if strings.Contains(s, m) {
							shown[k] = true
						}
					}
				}
			}
		}
		// Step 1: each file and field wrong in each way, then right.
		see(1)
		d.file("bin/run.sh", "#!/bin/sh\n", 0o644)
		d.file("etc/app.toml", "[server]\nname = \"x\"\n", 0o644)
		d.file("etc/values.yaml", "spec:\n  other: 1\n", 0o644)
		see(1)
		d.file("etc/app.toml", "[server]\nname = \"x\"\n[server.\"listen.tcp\"]\nenabled = false\n", 0o644)
		d.file("etc/values.yaml", "spec:\n  replicas: 2\n", 0o644)
		see(1)
		d.file("etc/app.toml", "[server]\nname = \"x\"\n[server.\"listen.tcp\"]\nenabled = true\n", 0o644)
		see(1)
		d.stepOneDone()
		see(1)
		// Step 2: nothing there, then each object wrong, then right.
		see(2)
		d.file("k8s/pod.yaml", strings.Replace(podYAML, "%s", "b", 1), 0o644)
		d.put("Node", node("1"))
		d.put("Pod", pod("a", corev1.PodPending, "u1"))
		d.file("out/report.txt", "NODE=demo-node-0\nWIDGETS=3\nPHASE=Pending\n", 0o644)
		see(2)
		d.file("k8s/pod.yaml", strings.Replace(podYAML, "%s", "a", 1), 0o644)
		d.put("Node", node("2"))
		d.put("Pod", pod("a", corev1.PodRunning, "u1"))
		d.file("out/report.txt", "NODE=demo-node-0\nWIDGETS=2\nPHASE=Running\n", 0o644)
		see(2)
		if left := lab.Text.Unfilled(); len(left) > 0 {
			t.Errorf("checkFail=%v: placeholders left unfilled: %v", checkFail, left)
		}
	}
	for k, m := range all {
		if !shown[k] {
			t.Errorf("%s (%s) was never shown: the walk misses a verdict that shows it", k, m)
		}
	}
	if len(all) < 20 {
		t.Fatalf("only %d texts: the lab lost its checks", len(all))
	}
}

// A message whose text has a placeholder the check does not fill there
// (`{gto}` for `{got}`) is an authoring error at the field that names it,
// naming the key and where its text is, even when no case would show it;
// so is a message field the type never shows.
func TestMessagesAreHeldToTheirPlaceholders(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/kit-demo", dir)
	edit := func(name, old, new string) {
		t.Helper()
		p := filepath.Join(dir, name)
		raw, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(raw), old) {
			t.Fatalf("%s has no %q (%v)", name, old, err)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(raw), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("messages.toml", "[demo.node]\n", "[demo.node]\ntypo = \"{gto} 개입니다\"\nunused = \"쓰이지 않음\"\n")
	edit("lab.toml", "key = \"spec.replicas\"\n", "key = \"spec.replicas\"\nfail = \"demo.node.typo\"\n")
	edit("lab.toml", "fail = \"demo.pod.differs\"\n", "fail = \"demo.pod.differs\"\nexpect = \"demo.node.typo\"\n")
	edit("lab.toml", "api_version = \"v1\"\n", "api_version = \"v1\"\nexpect = \"demo.node.unused\"\n")
	lab, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "lab.toml"))
	lineOf := func(text string) int {
		return slices.Index(strings.Split(string(raw), "\n"), text) + 1
	}
	for _, c := range []struct {
		check, line string
		says        []string
	}{
		{"검사 replicas", `fail = "demo.node.typo"`, []string{"demo.node.typo", "messages.toml:11:1", "{gto}", "{got}", "{where}"}},
		{"검사 pod-live", `expect = "demo.node.typo"`, []string{"demo.node.typo", "{gto}", "rules.expect", "{field}"}},
		{"검사 pod-file", `expect = "demo.node.unused"`, []string{"expect 메시지는 manifest 검사가 보여 주지 않습니다", "pass, fail"}},
	} {
		p := problemOf(t, lab, c.check)
		if want := lineOf(c.line); p.Line != want || p.Col != 1 {
			t.Errorf("%s: problem at %d:%d, want the line %q (%d:1): %v", c.check, p.Line, p.Col, c.line, want, p)
		}
		for _, w := range c.says {
			if !strings.Contains(p.Msg, w) {
				t.Errorf("%s: %q does not say %q", c.check, p.Msg, w)
			}
		}
	}
	if !lab.ShowsText("demo.pod.selector") || !lab.ShowsText("demo.node.typo") || lab.ShowsText("demo.node.unused") {
		t.Error("ShowsText does not tell the texts a check shows (a field its type does not show is not one)")
	}
}

// `expect` on a field check is shown as 기대, with the key and the value
// wanted, in TOML and YAML alike.
func TestFieldCheckShowsItsExpect(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/kit-demo", dir)
	raw, _ := os.ReadFile(filepath.Join(dir, "lab.toml"))
	lab := strings.Replace(string(raw), "equals = true\n", "equals = true\nexpect = \"demo.expect.field\"\n", 1)
	lab = strings.Replace(lab, "equals = 3\n", "equals = 3\nexpect = \"demo.expect.field\"\n", 1)
	msgs, _ := os.ReadFile(filepath.Join(dir, "messages.toml"))
	if err := os.WriteFile(filepath.Join(dir, "lab.toml"), []byte(lab), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "messages.toml"), append(msgs, "\n[demo.expect]\nfield = \"{key} 는 {want}\"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	d := demoOf(t, dir)
	d.file("etc/app.toml", "[server]\nname = \"demo-1\"\n[server.\"listen.tcp\"]\nenabled = false\n", 0o644)
	d.file("etc/values.yaml", "spec:\n  replicas: 2\n", 0o644)
	rs := d.eval(1)
	if got := rs["files.mode"].Expected; got != `server."listen.tcp".enabled 는 true` {
		t.Errorf("TOML field: expected %q", got)
	}
	if got := rs["files.replicas"].Expected; got != "spec.replicas 는 3" {
		t.Errorf("YAML field: expected %q", got)
	}
}
