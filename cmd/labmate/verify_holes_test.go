package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
)

// labWith is thirdLab with edits: each old string (which must be there)
// of a file replaced by new, a file given whole when old is "".
func labWith(t *testing.T, edits ...[3]string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for k, v := range thirdLab {
		files[k] = v
	}
	for _, e := range edits {
		name, old, new := e[0], e[1], e[2]
		if old == "" {
			files[name] += new
			continue
		}
		if !strings.Contains(files[name], old) {
			t.Fatalf("%s has no %q", name, old)
		}
		files[name] = strings.Replace(files[name], old, new, 1)
	}
	return files
}

// lineOf is the 1-based line of text in body, or fails.
func lineOf(t *testing.T, body, text string) int {
	t.Helper()
	i := slices.IndexFunc(strings.Split(body, "\n"), func(l string) bool { return strings.Contains(l, text) })
	if i < 0 {
		t.Fatalf("no %q in\n%s", text, body)
	}
	return i + 1
}

// rowsOf are the table's rows that start with mark (✓, ✗, -).
func rowsOf(table, mark string) []string {
	var out []string
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, mark+" ") {
			out = append(out, line)
		}
	}
	return out
}

// A placeholder typo in a message no case shows is found anyway, before
// anything runs: at the key that names it in lab.toml, with the key and
// its line in messages.toml. A particle after a placeholder written in one
// form, in a message no check shows, is found too (the message row).
func TestVerifyHoldsEveryMessageOfTheLab(t *testing.T) {
	files := labWith(t,
		[3]string{"lab.toml", `hint = "nginx.port.hint"`, `hint = "nginx.port.hint"` + "\nexpect = \"nginx.port.expect\""},
		[3]string{"messages.toml", "", "expect = \"{key} {은/는} 따옴표 없는 정수 {wnat}\"\n"},
	)
	code, out, errOut := runStreams("lab", "verify", writeLab(t, files))
	failed := failedRows(out)
	if code != cli.ExitFail || len(failed) != 1 {
		t.Fatalf("exit %d, failing rows %q\n%s\n%s", code, failed, out, errOut)
	}
	at := "lab.toml:" + strconv.Itoa(lineOf(t, files["lab.toml"], "expect = ")) + ":1"
	msgAt := "messages.toml:" + strconv.Itoa(lineOf(t, files["messages.toml"], "{wnat}")) + ":1"
	for _, want := range []string{"실습 정의", at, "nginx.port.expect", msgAt, "{wnat}", "{want}"} {
		if !strings.Contains(failed[0], want) {
			t.Errorf("the failing row does not say %q: %s", want, failed[0])
		}
	}
	if strings.Contains(out, "참고 풀이") {
		t.Errorf("a lab that does not compile was run:\n%s", out)
	}

	files = labWith(t, [3]string{"messages.toml", "", "[nginx.spare]\nunused = \"{path} 가 없습니다\"\n"})
	code, out, _ = runStreams("lab", "verify", writeLab(t, files))
	failed = failedRows(out)
	msgAt = "messages.toml:" + strconv.Itoa(lineOf(t, files["messages.toml"], "unused =")) + ":1"
	if code != cli.ExitFail || len(failed) != 1 || !strings.Contains(failed[0], "메시지 형식") || !strings.Contains(failed[0], "nginx.spare.unused ("+msgAt+")") {
		t.Fatalf("exit %d, failing rows %q\n%s", code, failed, out)
	}
	// The thirdLab itself: its messages all shown by its checks.
	code, out, _ = runStreams("lab", "verify", writeLab(t, thirdLab))
	if code != cli.ExitOK || !strings.Contains(out, "메시지 2개 모두 보여 주는 검사가 채우는 자리표시자와 맞춰 봄") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// A check or step ID misspelt in verify.toml is an authoring error at its
// line and column, before any case runs: not a wrong answer that was not
// refused, not a step without data.
func TestVerifyRefusesMisspeltIDs(t *testing.T) {
	files := labWith(t,
		[3]string{"verify.toml", `check = "exists"`, `check = "exist"`},
		[3]string{"verify.toml", `id = "config"`, `id = "confg"`},
	)
	started := time.Now()
	code, out, errOut := runStreams("lab", "verify", writeLab(t, files))
	failed := failedRows(out)
	if code != cli.ExitFail || len(failed) != 2 {
		t.Fatalf("exit %d, failing rows %q\n%s\n%s", code, failed, out, errOut)
	}
	body := files["verify.toml"]
	for i, want := range [][]string{
		{"verify.toml:" + strconv.Itoa(lineOf(t, body, `check = "exist"`)) + ":1", "not-executable", "exist", "1단계", "exists"},
		{"verify.toml:" + strconv.Itoa(lineOf(t, body, `id = "confg"`)) + ":1", "confg", "script, config"},
	} {
		for _, w := range want {
			if !strings.Contains(failed[i], w) {
				t.Errorf("row %d does not say %q: %s", i, w, failed[i])
			}
		}
	}
	if strings.Contains(out, "참고 풀이") || strings.Contains(out, "자료 없음") {
		t.Errorf("cases ran (%s):\n%s", time.Since(started), out)
	}
}

// A broken reference in a file-only lab is known as soon as its files
// settled, not after the whole timeout; the cases after it say they were
// not tried because that step's solution did not pass (not a cascade of
// failures of their own), and no row ends in a dangling label.
func TestVerifyStopsAtABrokenReferenceAtOnce(t *testing.T) {
	files := labWith(t,
		[3]string{"verify.toml", "timeout_seconds = 30", "timeout_seconds = 60"},
		// The reference has no server.tls: step 2's solution cannot pass.
		[3]string{"lab.toml", "needs = [\"port\"]\n", "needs = [\"port\"]\n\n[[steps.checks]]\nid = \"tls\"\ntype = \"field\"\npath = \"etc/site.toml\"\nkey = \"server.tls\"\nequals = true\n"},
		[3]string{"lab.toml", "", "\n[[steps]]\nnumber = 3\nid = \"extra\"\ntitle = \"하나 더\"\nbody = \"steps/02.md\"\n\n[[steps.checks]]\nid = \"exists\"\ntype = \"file\"\npath = \"etc/extra.toml\"\n"},
		[3]string{"verify.toml", "", "\n[[steps]]\nid = \"extra\"\nsolve.write = [{ path = \"etc/extra.toml\", content = \"x = 1\\n\" }]\n\n[[steps.wrong]]\ncase = \"elsewhere\"\nwrite = [{ path = \"etc/other.toml\", content = \"x = 1\\n\" }]\n"},
	)
	started := time.Now()
	code, out, errOut := runStreams("lab", "verify", writeLab(t, files))
	took := time.Since(started)
	failed := failedRows(out)
	if code != cli.ExitFail || len(failed) != 1 || !strings.Contains(failed[0], "참고 풀이") || strings.Fields(failed[0])[1] != "2" {
		t.Fatalf("exit %d, failing rows %q, want step 2's solution alone\n%s\n%s", code, failed, out, errOut)
	}
	// The step's timeout is 60 s: a verdict that waited for it would take
	// that long; one decided when the files settled takes seconds.
	if took > 50*time.Second {
		t.Errorf("the proof took %s: a file-only verdict waited for the timeout", took)
	}
	untried := rowsOf(out, "-")
	if len(untried) != 2 {
		t.Fatalf("rows not tried %q, want step 3's two cases:\n%s", untried, out)
	}
	for _, r := range untried {
		if strings.Fields(r)[1] != "3" || !strings.Contains(r, "시도하지 않음: 2단계의 참고 풀이가 통과하지 않음") {
			t.Errorf("row %q does not say it was not tried for step 2", r)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasSuffix(strings.TrimSpace(line), ":") {
			t.Errorf("a row ends in a dangling label: %q", line)
		}
	}
}

// Messages name the lab's default root, the path a learner sees, not the
// proof's temporary one; the progress lines go to stderr only when it is
// a terminal or --progress asks (the table has every case); several edits
// of one file in one action apply in order, each on the one before.
func TestVerifyShowsTheLabsRootOnceAndEditsInOrder(t *testing.T) {
	files := labWith(t,
		[3]string{"verify.toml", `message = ["chmod +x"]`, `message = ["chmod +x", "/root/nginx/bin/reload.sh"]`},
		[3]string{"verify.toml", "", `
[[steps.wrong]]
case = "two-edits"
edit = [{ path = "etc/site.toml", old = "port = 8080", new = "port = 9090" },
        { path = "etc/site.toml", old = "www.example.com", new = "localhost" },
        { path = "etc/site.toml", old = "port = 9090", new = "port = 9091" }]
check = "port"
message = ["9091"]
`},
	)
	dir := writeLab(t, files)
	code, out, errOut := runStreams("lab", "verify", dir)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, "labmate-verify-") || !strings.Contains(out, "/root/nginx/bin/reload.sh") {
		t.Errorf("the table names the proof's temporary root, or not the lab's:\n%s", out)
	}
	if strings.Contains(errOut, "오답 not-executable") {
		t.Errorf("progress lines on a stderr that is not a terminal:\n%s", errOut)
	}
	code, out, errOut = runStreams("lab", "verify", dir, "--progress")
	if code != cli.ExitOK || !strings.Contains(errOut, "✓ 1 오답 not-executable") || !strings.Contains(out, "✓  1") && !strings.Contains(out, "오답 not-executable") {
		t.Errorf("--progress: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// A lab's start/ is what a lab root starts with, for the learner as for
// the proof: check (and the TUI, wired the same way) lays it out in the
// root, only where nothing is, and the proof starts from it too.
func TestStartFilesAreLaidOutForTheLearner(t *testing.T) {
	files := labWith(t, [3]string{"lab.toml", `intro = "intro.md"`, `intro = "intro.md"` + "\nstart = \"start\""})
	files["start/etc/site.toml"] = "[server]\nport = 80\n"
	files["start/bin/reload.sh"] = "#!/bin/sh\n"
	dir := writeLab(t, files)
	if code, out, errOut := runStreams("lab", "verify", dir); code != cli.ExitOK {
		t.Fatalf("lab verify: exit %d\n%s\n%s", code, out, errOut)
	}
	root := t.TempDir()
	mine := filepath.Join(root, "bin", "reload.sh")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("#!/bin/sh\nmine\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, out, errOut := runStreams("check", "--lab-dir", dir, "--root", root, "--state-dir", t.TempDir())
	if b, err := os.ReadFile(filepath.Join(root, "etc", "site.toml")); err != nil || string(b) != "[server]\nport = 80\n" {
		t.Errorf("the start file was not laid out: %q %v\n%s\n%s", b, err, out, errOut)
	}
	if b, _ := os.ReadFile(mine); string(b) != "#!/bin/sh\nmine\n" {
		t.Errorf("the learner's own file was replaced: %q", b)
	}
	if !strings.Contains(out+errOut, "etc/site.toml") || strings.Contains(out+errOut, "bin/reload.sh 를 만들") {
		t.Errorf("check does not say which start file it made:\n%s\n%s", out, errOut)
	}
}

// --mutants-shard that ParseShard refuses is refused in Korean before a
// proof starts.
func TestMutantsShardFlag(t *testing.T) {
	code, _, stderr := runStreams("lab", "verify", "gpu-incident", "--mutants-shard", "4/3")
	if code != cli.ExitUsage || !strings.Contains(stderr, content.Msg("verify.bad_shard", "shard", "4/3")) {
		t.Errorf("--mutants-shard 4/3: exit %d, %q", code, stderr)
	}
}
