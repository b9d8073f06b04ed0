package labcmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/clitest"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/labkit/labkittest"
)

// A lab that is a directory proves itself with `lab verify DIR`: every
// declared wrong answer refused with its message, the reference passing.
func TestALabDirectoryProvesItself(t *testing.T) {
	code, out, errOut := run(t, "verify", testfiles.Dir(t, labkittest.FileLab()))
	if code != cli.ExitOK {
		t.Fatalf("lab verify: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, c := range []string{"오답 not-executable", "오답 port-as-string", "오답 bare-host", "참고 풀이"} {
		if !strings.Contains(out, c) {
			t.Errorf("the table has no row %q:\n%s", c, out)
		}
	}
}

// A lab's start/ is where the proof starts from too.
func TestTheProofStartsFromTheStartFiles(t *testing.T) {
	files := labkittest.FileLabWith(t, [3]string{"lab.toml", `intro = "intro.md"`, `intro = "intro.md"` + "\nstart = \"start\""})
	files["start/etc/site.toml"] = "[server]\nport = 80\n"
	files["start/bin/reload.sh"] = "#!/bin/sh\n"
	if code, out, errOut := run(t, "verify", testfiles.Dir(t, files)); code != cli.ExitOK {
		t.Fatalf("lab verify: exit %d\n%s\n%s", code, out, errOut)
	}
}

// failedRows are the rows of a verify table that did not hold.
func failedRows(table string) []string {
	var failed []string
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "✗") {
			failed = append(failed, line)
		}
	}
	return failed
}

// Verify can fail: with the check loosened so that a declared wrong answer
// passes (the script need not be executable any more), `lab verify` exits
// 1 and names that case.
func TestVerifyFailsOnALoosenedCheck(t *testing.T) {
	files := labkittest.FileLab()
	files["lab.toml"] = strings.Replace(files["lab.toml"], "executable = true\n", "", 1)
	dir := testfiles.Dir(t, files)
	code, out, errOut := run(t, "verify", dir)
	if code != cli.ExitFail {
		t.Fatalf("lab verify of a loosened lab: exit %d, want %d\n%s\n%s", code, cli.ExitFail, out, errOut)
	}
	failed := failedRows(out)
	if len(failed) != 1 || !strings.Contains(failed[0], "오답 not-executable") || !strings.Contains(failed[0], "통과") {
		t.Fatalf("failing rows %q, want the one for not-executable (it passed):\n%s", failed, out)
	}
}

// Verify fails on each rule it proves, naming the case: a wrong answer
// refused with other words than the lab promised, a wrong answer that
// turns an earlier step red, a later step that passes early.
func TestVerifyFailsOnEachRule(t *testing.T) {
	edit := func(files map[string]string, name, old, new string) {
		t.Helper()
		if !strings.Contains(files[name], old) {
			t.Fatalf("%s has no %q", name, old)
		}
		files[name] = strings.Replace(files[name], old, new, 1)
	}
	for _, tc := range []struct {
		name   string
		change func(map[string]string)
		row    string // the failing row's case
		seen   string // what it says it saw
	}{
		{"other words", func(f map[string]string) {
			edit(f, "verify.toml", `message = ["chmod +x"]`, `message = ["실행 권한이 필요 없습니다"]`)
		}, "오답 not-executable", "기대한 대로 거절하지 않음"},
		{"breaks an earlier step", func(f map[string]string) {
			edit(f, "verify.toml", `case = "port-as-string"`, `case = "port-as-string"`+"\n"+`write = [{ path = "bin/reload.sh", content = "#!/bin/sh\n", mode = "0644" }]`+"\n"+`undo = "chmod +x bin/reload.sh"`)
		}, "오답 port-as-string", "앞 단계 1 이 통과가 아니게 됨"},
		{"passes early", func(f map[string]string) {
			f["lab.toml"] += "\n[[steps]]\nnumber = 3\nid = \"again\"\ntitle = \"다시\"\nbody = \"steps/02.md\"\n\n" +
				"[[steps.checks]]\nid = \"exists\"\ntype = \"file\"\npath = \"bin/reload.sh\"\n"
			f["verify.toml"] += "\n[[steps]]\nid = \"again\"\n"
		}, "참고 풀이", "뒤 단계 3 이 먼저 통과함"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := labkittest.FileLab()
			tc.change(files)
			code, out, errOut := run(t, "verify", testfiles.Dir(t, files))
			if code != cli.ExitFail {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, cli.ExitFail, out, errOut)
			}
			failed := failedRows(out)
			if len(failed) == 0 || !strings.Contains(failed[0], tc.row) || !strings.Contains(failed[0], tc.seen) {
				t.Fatalf("first failing row %q, want %q saying %q:\n%s", failed, tc.row, tc.seen, out)
			}
		})
	}
}

// An authoring error in a lab directory is reported with its place, and
// verify fails on it instead of running a broken lab.
func TestVerifyReportsAuthoringErrors(t *testing.T) {
	files := labkittest.FileLab()
	files["lab.toml"] = strings.Replace(files["lab.toml"], `key = "server.port"`, `key = "server.port"`+"\nrules = [{ expr = \"object.x ==\", fail = \"nginx.port.hint\" }]", 1)
	dir := testfiles.Dir(t, files)
	code, out, _ := run(t, "verify", dir)
	if code != cli.ExitFail || !strings.Contains(out, "실습 정의") || !strings.Contains(out, "rules 는 field 검사가 읽지 않는 필드입니다") {
		t.Fatalf("exit %d:\n%s", code, out)
	}

	// A sandbox topology that cannot be read is one too, found by the
	// proof rather than by a learner's sandbox up.
	files["lab.toml"] = strings.Replace(labkittest.FileLab()["lab.toml"], "[[steps]]", "[[sandbox.nodes]]\nnames = [\"n-0\"]\ncapacity = { cpu = \"lots\" }\n\n[[steps]]", 1)
	code, out, _ = run(t, "verify", testfiles.Dir(t, files))
	failed := failedRows(out)
	if code != cli.ExitFail || len(failed) != 1 || !strings.Contains(failed[0], "실습 정의") || !strings.Contains(failed[0], "lots") {
		t.Fatalf("exit %d, failing rows %q:\n%s", code, failed, out)
	}
}

// --watch reproves after each change in the lab directory, and a
// recording is one: the two together are refused.
func TestVerifyWatchRefusesRecord(t *testing.T) {
	dir := testfiles.Dir(t, labkittest.FileLab())
	code, _, errOut := run(t, "verify", dir, "--watch", "--record", filepath.Join(dir, "run.jsonl"))
	if code != cli.ExitUsage || !strings.Contains(errOut, "--watch 와 --record 는 함께 쓸 수 없습니다") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
}

// lab verify writes to no cluster that is not a labmate sandbox: a
// kubeconfig naming another cluster is refused before anything is done
// (exit 2), with the reason.
func TestVerifyRefusesAClusterThatIsNotASandbox(t *testing.T) {
	kc, writes := fakeAPIServer(t, nil)
	code, out, errOut := clitest.NewTestFactory(t).WithKubeconfigs().Run(NewCmd, "verify", "driver-reboot", "--kubeconfig", kc)
	if code != cli.ExitUsage || !strings.Contains(errOut, "labmate 샌드박스가 아니라서 쓰지 않습니다") || !strings.Contains(errOut, "prod") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if *writes != 0 {
		t.Errorf("%d writes reached a cluster that is not a sandbox", *writes)
	}
}

// fakeAPIServer answers like an API server on a loopback address: the
// marker ConfigMap, when marker is not nil, names that lab; everything
// else is NotFound. It counts the requests that are not reads.
func fakeAPIServer(t *testing.T, marker *string) (kubeconfig string, writes *int) {
	t.Helper()
	writes = new(int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			*writes++
		}
		w.Header().Set("Content-Type", "application/json")
		if marker != nil && r.URL.Path == "/api/v1/namespaces/kube-system/configmaps/labmate-sandbox" {
			_, _ = w.Write([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"labmate-sandbox","namespace":"kube-system"},"data":{"lab":"` + *marker + `"}}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
	}))
	t.Cleanup(srv.Close)
	kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	conf := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: " + srv.URL + "}}]\n" +
		"users: [{name: u, user: {token: x}}]\ncontexts: [{name: prod, context: {cluster: c, user: u}}]\ncurrent-context: prod\n"
	if err := os.WriteFile(kubeconfig, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig, writes
}

// A sandbox made for another lab holds a learner's progress on that lab:
// verify refuses it (exit 2) naming both labs, and writes nothing.
func TestVerifyRefusesASandboxOfAnotherLab(t *testing.T) {
	other := "gpu-incident"
	kc, writes := fakeAPIServer(t, &other)
	code, out, errOut := clitest.NewTestFactory(t).WithKubeconfigs().Run(NewCmd, "verify", "driver-reboot", "--kubeconfig", kc)
	if code != cli.ExitUsage || !strings.Contains(errOut, "실습 gpu-incident 를 위해 만든 것이라 실습 driver-reboot 의 증명에 쓰지 않습니다") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if *writes != 0 {
		t.Errorf("%d writes reached another lab's sandbox", *writes)
	}
}

// Without a sandbox (a file-only lab) an author's script still runs, and
// its $KUBECONFIG is one that reaches no cluster: never the one the
// author's shell points at, which could be a learner's.
func TestVerifyScriptsReachNoClusterWithoutASandbox(t *testing.T) {
	kc, writes := fakeAPIServer(t, nil)
	t.Setenv("KUBECONFIG", kc)
	files := labkittest.FileLab()
	files["verify.toml"] = strings.Replace(files["verify.toml"], `solve.files = ["etc/site.toml"]`,
		`solve.files = ["etc/site.toml"]`+"\nsolve.run = '''\ntest \"$KUBECONFIG\" != \""+kc+"\"\ngrep -q no-cluster.labmate-verify.invalid \"$KUBECONFIG\"\n'''", 1)
	if !strings.Contains(files["verify.toml"], "solve.run") {
		t.Fatal("the verify.toml edit did not apply")
	}
	dir := testfiles.Dir(t, files)
	code, out, errOut := run(t, "verify", dir)
	if code != cli.ExitOK {
		t.Fatalf("lab verify: exit %d (the script saw the author's kubeconfig?)\n%s\n%s", code, out, errOut)
	}
	if *writes != 0 {
		t.Errorf("%d writes", *writes)
	}
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
	files := labkittest.FileLabWith(t,
		[3]string{"lab.toml", `hint = "nginx.port.hint"`, `hint = "nginx.port.hint"` + "\nexpect = \"nginx.port.expect\""},
		[3]string{"messages.toml", "", "expect = \"{key} {은/는} 따옴표 없는 정수 {wnat}\"\n"},
	)
	code, out, errOut := run(t, "verify", testfiles.Dir(t, files))
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

	files = labkittest.FileLabWith(t, [3]string{"messages.toml", "", "[nginx.spare]\nunused = \"{path} 가 없습니다\"\n"})
	code, out, _ = run(t, "verify", testfiles.Dir(t, files))
	failed = failedRows(out)
	msgAt = "messages.toml:" + strconv.Itoa(lineOf(t, files["messages.toml"], "unused =")) + ":1"
	if code != cli.ExitFail || len(failed) != 1 || !strings.Contains(failed[0], "메시지 형식") || !strings.Contains(failed[0], "nginx.spare.unused ("+msgAt+")") {
		t.Fatalf("exit %d, failing rows %q\n%s", code, failed, out)
	}
	// The file lab itself: its messages all shown by its checks.
	code, out, _ = run(t, "verify", testfiles.Dir(t, labkittest.FileLab()))
	if code != cli.ExitOK || !strings.Contains(out, "메시지 2개 모두 보여 주는 검사가 채우는 자리표시자와 맞춰 봄") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// A check or step ID misspelt in verify.toml is an authoring error at its
// line and column, before any case runs: not a wrong answer that was not
// refused, not a step without data.
func TestVerifyRefusesMisspeltIDs(t *testing.T) {
	files := labkittest.FileLabWith(t,
		[3]string{"verify.toml", `check = "exists"`, `check = "exist"`},
		[3]string{"verify.toml", `id = "config"`, `id = "confg"`},
	)
	started := time.Now()
	code, out, errOut := run(t, "verify", testfiles.Dir(t, files))
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
	files := labkittest.FileLabWith(t,
		[3]string{"verify.toml", "timeout_seconds = 30", "timeout_seconds = 60"},
		// The reference has no server.tls: step 2's solution cannot pass.
		[3]string{"lab.toml", "needs = [\"port\"]\n", "needs = [\"port\"]\n\n[[steps.checks]]\nid = \"tls\"\ntype = \"field\"\npath = \"etc/site.toml\"\nkey = \"server.tls\"\nequals = true\n"},
		[3]string{"lab.toml", "", "\n[[steps]]\nnumber = 3\nid = \"extra\"\ntitle = \"하나 더\"\nbody = \"steps/02.md\"\n\n[[steps.checks]]\nid = \"exists\"\ntype = \"file\"\npath = \"etc/extra.toml\"\n"},
		[3]string{"verify.toml", "", "\n[[steps]]\nid = \"extra\"\nsolve.write = [{ path = \"etc/extra.toml\", content = \"x = 1\\n\" }]\n\n[[steps.wrong]]\ncase = \"elsewhere\"\nwrite = [{ path = \"etc/other.toml\", content = \"x = 1\\n\" }]\n"},
	)
	started := time.Now()
	code, out, errOut := run(t, "verify", testfiles.Dir(t, files))
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
	files := labkittest.FileLabWith(t,
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
	dir := testfiles.Dir(t, files)
	code, out, errOut := run(t, "verify", dir)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, "labmate-verify-") || !strings.Contains(out, "/root/nginx/bin/reload.sh") {
		t.Errorf("the table names the proof's temporary root, or not the lab's:\n%s", out)
	}
	if strings.Contains(errOut, "오답 not-executable") {
		t.Errorf("progress lines on a stderr that is not a terminal:\n%s", errOut)
	}
	code, out, errOut = run(t, "verify", dir, "--progress")
	if code != cli.ExitOK || !strings.Contains(errOut, "✓ 1 오답 not-executable") || !strings.Contains(out, "✓  1") && !strings.Contains(out, "오답 not-executable") {
		t.Errorf("--progress: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// --mutants-shard that ParseShard refuses is refused in Korean before a
// proof starts.
func TestMutantsShardFlag(t *testing.T) {
	code, _, stderr := run(t, "verify", "gpu-incident", "--mutants-shard", "4/3")
	if code != cli.ExitUsage || !strings.Contains(stderr, content.Msg("verify.bad_shard", "shard", "4/3")) {
		t.Errorf("--mutants-shard 4/3: exit %d, %q", code, stderr)
	}
}
