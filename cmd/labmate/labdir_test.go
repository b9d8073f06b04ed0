package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/state"
)

// A third lab, file-only, is a directory and nothing else: written here
// into a temporary directory, it proves itself with `lab verify DIR` and
// runs with `check --lab-dir DIR`, with no Go code and no rebuild.
var thirdLab = map[string]string{
	"lab.toml": `id = "nginx-conf"
title = "nginx 설정 한 줄씩"
default_root = "/root/nginx"
intro = "intro.md"

[[steps]]
number = 1
id = "script"
title = "재시작 스크립트"
body = "steps/01.md"
hints = ["chmod +x 를 잊지 마세요."]

[[steps.checks]]
id = "exists"
type = "file"
path = "bin/reload.sh"
executable = true
fail = "nginx.script.missing"

[[steps]]
number = 2
id = "config"
title = "포트와 이름"
body = "steps/02.md"

[[steps.checks]]
id = "port"
type = "field"
path = "etc/site.toml"
key = "server.port"
equals = 8080
hint = "nginx.port.hint"

[[steps.checks]]
id = "name"
type = "field"
path = "etc/site.toml"
key = "server.name"
matches = '^[a-z]+\.example\.com$'
needs = ["port"]
`,
	"messages.toml": `[nginx.script]
missing = "{path} {이/가} 없습니다: 재시작 스크립트를 만드세요."
[nginx.port]
hint = " 포트는 따옴표 없는 정수입니다."
`,
	"intro.md":                "# nginx 설정\n\n파일 두 개를 씁니다: `{{ROOT}}/bin/reload.sh`, `{{ROOT}}/etc/site.toml`.\n",
	"steps/01.md":             "`{{ROOT}}/bin/reload.sh` 를 실행할 수 있게 만드세요.\n",
	"steps/02.md":             "`{{ROOT}}/etc/site.toml` 의 `[server]` 에 `port = 8080` 과 `name` 을 쓰세요.\n",
	"reference/bin/reload.sh": "#!/bin/sh\nnginx -s reload\n",
	"reference/etc/site.toml": "[server]\nport = 8080\nname = \"www.example.com\"\n",
	// The timeout bounds what must come (the lab ready, the earlier
	// steps' solutions passing): 30 s, for a loaded machine. A file-only
	// case that does not hold is known once its files settled, so it
	// costs nothing when the lab is right.
	"verify.toml": `timeout_seconds = 30

[[steps]]
id = "script"
solve.executable = ["bin/reload.sh"]

[[steps.wrong]]
case = "not-executable"
files = ["bin/reload.sh"]
check = "exists"
message = ["chmod +x"]

[[steps]]
id = "config"
solve.files = ["etc/site.toml"]

[[steps.wrong]]
case = "port-as-string"
edit = [{ path = "etc/site.toml", old = "port = 8080", new = 'port = "8080"' }]
check = "port"
message = ["문자열", "따옴표 없는 정수"]

[[steps.wrong]]
case = "bare-host"
edit = [{ path = "etc/site.toml", old = "www.example.com", new = "localhost" }]
check = "name"
message = ["localhost"]
`,
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

// writeLab writes a lab directory from its files.
func writeLab(t *testing.T, files map[string]string) string {
	t.Helper()
	return testfiles.Dir(t, files)
}

func TestThirdLabIsADirectory(t *testing.T) {
	dir := writeLab(t, thirdLab)
	code, out, errOut := runStreams("lab", "verify", dir)
	if code != cli.ExitOK {
		t.Fatalf("lab verify: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, c := range []string{"오답 not-executable", "오답 port-as-string", "오답 bare-host", "참고 풀이"} {
		if !strings.Contains(out, c) {
			t.Errorf("the table has no row %q:\n%s", c, out)
		}
	}

	// The same directory runs as a lab: nothing at the root fails ...
	root := t.TempDir()
	var rep struct {
		Lab   string `json:"lab"`
		Steps []struct {
			Status string `json:"status"`
		} `json:"steps"`
	}
	code, out, _ = runStreams("check", "--lab-dir", dir, "--root", root, "--json", "--state-dir", t.TempDir())
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check --json: %v\n%s", err, out)
	}
	if code != cli.ExitFail || rep.Lab != "nginx-conf" || len(rep.Steps) != 2 || rep.Steps[0].Status != "failed" {
		t.Fatalf("empty root: exit %d, %+v", code, rep)
	}
	// ... and the reference answers pass.
	for rel, mode := range map[string]os.FileMode{"bin/reload.sh": 0o755, "etc/site.toml": 0o644} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(thirdLab["reference/"+rel]), mode); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut = runStreams("check", "--lab-dir", dir, "--root", root, "--json", "--state-dir", t.TempDir())
	if code != cli.ExitOK {
		t.Fatalf("reference answers: exit %d\n%s\n%s", code, out, errOut)
	}
}

// Verify can fail: with the check loosened so that a declared wrong answer
// passes (the script need not be executable any more), `lab verify` exits
// 1 and names that case.
func TestVerifyFailsOnALoosenedCheck(t *testing.T) {
	files := map[string]string{}
	for k, v := range thirdLab {
		files[k] = v
	}
	files["lab.toml"] = strings.Replace(files["lab.toml"], "executable = true\n", "", 1)
	dir := writeLab(t, files)
	code, out, errOut := runStreams("lab", "verify", dir)
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
			files := map[string]string{}
			for k, v := range thirdLab {
				files[k] = v
			}
			tc.change(files)
			code, out, errOut := runStreams("lab", "verify", writeLab(t, files))
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
	files := map[string]string{}
	for k, v := range thirdLab {
		files[k] = v
	}
	files["lab.toml"] = strings.Replace(files["lab.toml"], `key = "server.port"`, `key = "server.port"`+"\nrules = [{ expr = \"object.x ==\", fail = \"nginx.port.hint\" }]", 1)
	dir := writeLab(t, files)
	code, out, _ := runStreams("lab", "verify", dir)
	if code != cli.ExitFail || !strings.Contains(out, "실습 정의") || !strings.Contains(out, "rules 는 field 검사가 읽지 않는 필드입니다") {
		t.Fatalf("exit %d:\n%s", code, out)
	}

	// A sandbox topology that cannot be read is one too, found by the
	// proof rather than by a learner's sandbox up.
	files["lab.toml"] = strings.Replace(thirdLab["lab.toml"], "[[steps]]", "[[sandbox.nodes]]\nnames = [\"n-0\"]\ncapacity = { cpu = \"lots\" }\n\n[[steps]]", 1)
	code, out, _ = runStreams("lab", "verify", writeLab(t, files))
	failed := failedRows(out)
	if code != cli.ExitFail || len(failed) != 1 || !strings.Contains(failed[0], "실습 정의") || !strings.Contains(failed[0], "lots") {
		t.Fatalf("exit %d, failing rows %q:\n%s", code, failed, out)
	}
}

// `lab list --json` is the stable shape tools read.
func TestLabListJSON(t *testing.T) {
	code, out, _ := runStreams("lab", "list", "--json")
	if code != cli.ExitOK {
		t.Fatalf("exit %d", code)
	}
	var labs []map[string]any
	if err := json.Unmarshal([]byte(out), &labs); err != nil {
		t.Fatal(err)
	}
	ids := map[string]float64{}
	for _, l := range labs {
		if len(l) != 6 || l["title"] == "" || l["source"] != "embedded" || l["version"] != "1.0.0" || l["lab"] != l["id"] {
			t.Errorf("entry %v: want exactly id, title, steps, version 1.0.0, source embedded, lab", l)
		}
		ids[l["id"].(string)] = l["steps"].(float64)
	}
	if len(ids) != 3 || ids["gpu-incident"] != 8 || ids["driver-reboot"] != 5 || ids["gpu-quota"] != 5 {
		t.Errorf("labs %v", ids)
	}
}

// Which lab a command works on: --lab, then $LABMATE_LAB; with several
// installed and nothing choosing, a command that is not the TUI says how
// to choose (exit 2), naming the labs.
func TestLabResolution(t *testing.T) {
	root := t.TempDir()
	stateDir := t.TempDir()
	t.Setenv(catalog.EnvLab, "")
	code, _, errOut := runStreams("check", "--root", root, "--no-cluster", "--state-dir", stateDir)
	if code != cli.ExitUsage || !strings.Contains(errOut, "설치된 실습이 여러 개입니다") || !strings.Contains(errOut, "driver-reboot") {
		t.Fatalf("no choice: exit %d, %q", code, errOut)
	}
	t.Setenv(catalog.EnvLab, "driver-reboot")
	code, out, _ := runStreams("check", "--root", root, "--no-cluster", "--state-dir", stateDir, "--json")
	if code != cli.ExitFail || !strings.Contains(out, `"lab": "driver-reboot"`) {
		t.Fatalf("LABMATE_LAB=driver-reboot: exit %d\n%s", code, out)
	}
	code, out, _ = runStreams("check", "--lab", "gpu-incident", "--root", root, "--no-cluster", "--state-dir", stateDir, "--json")
	if code != cli.ExitFail || !strings.Contains(out, `"lab": "gpu-incident"`) {
		t.Fatalf("--lab wins over LABMATE_LAB: exit %d\n%s", code, out)
	}
	code, _, errOut = runStreams("check", "--lab", "gpu-incident", "--lab-dir", root, "--root", root)
	if code != cli.ExitUsage || !strings.Contains(errOut, "함께 쓸 수 없습니다") {
		t.Fatalf("--lab and --lab-dir: exit %d, %q", code, errOut)
	}
	code, _, errOut = runStreams("check", "--lab", "no-such-lab", "--root", root)
	if code != cli.ExitUsage || !strings.Contains(errOut, "no-such-lab") {
		t.Fatalf("unknown lab: exit %d, %q", code, errOut)
	}
	// A lab remembered for this root is the choice while it is installed;
	// one that is gone (renamed, removed in an upgrade) is no choice and
	// no error: the other rules decide.
	t.Setenv(catalog.EnvLab, "")
	if err := state.RememberLab(stateDir, root, "driver-reboot"); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runStreams("check", "--root", root, "--no-cluster", "--state-dir", stateDir, "--json")
	if code != cli.ExitFail || !strings.Contains(out, `"lab": "driver-reboot"`) {
		t.Fatalf("remembered driver-reboot: exit %d\n%s", code, out)
	}
	if err := state.RememberLab(stateDir, root, "renamed-lab"); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runStreams("check", "--root", root, "--no-cluster", "--state-dir", stateDir)
	if code != cli.ExitUsage || !strings.Contains(errOut, "설치된 실습이 여러 개입니다") || strings.Contains(errOut, "renamed-lab") {
		t.Fatalf("remembered lab gone: exit %d, %q", code, errOut)
	}
}

// --watch reproves after each change in the lab directory, and a
// recording is one: the two together are refused.
func TestVerifyWatchRefusesRecord(t *testing.T) {
	dir := writeLab(t, thirdLab)
	code, _, errOut := runStreams("lab", "verify", dir, "--watch", "--record", filepath.Join(dir, "run.jsonl"))
	if code != cli.ExitUsage || !strings.Contains(errOut, "--watch 와 --record 는 함께 쓸 수 없습니다") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
}

// lab verify writes to no cluster that is not a labmate sandbox: a
// kubeconfig naming another cluster is refused before anything is done
// (exit 2), with the reason.
func TestVerifyRefusesAClusterThatIsNotASandbox(t *testing.T) {
	kc, writes := fakeAPIServer(t, nil)
	code, out, errOut := runStreams("lab", "verify", "driver-reboot", "--kubeconfig", kc)
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
	code, out, errOut := runStreams("lab", "verify", "driver-reboot", "--kubeconfig", kc)
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
	files := map[string]string{}
	for k, v := range thirdLab {
		files[k] = v
	}
	files["verify.toml"] = strings.Replace(files["verify.toml"], `solve.files = ["etc/site.toml"]`,
		`solve.files = ["etc/site.toml"]`+"\nsolve.run = '''\ntest \"$KUBECONFIG\" != \""+kc+"\"\ngrep -q no-cluster.labmate-verify.invalid \"$KUBECONFIG\"\n'''", 1)
	if !strings.Contains(files["verify.toml"], "solve.run") {
		t.Fatal("the verify.toml edit did not apply")
	}
	dir := writeLab(t, files)
	code, out, errOut := runStreams("lab", "verify", dir)
	if code != cli.ExitOK {
		t.Fatalf("lab verify: exit %d (the script saw the author's kubeconfig?)\n%s\n%s", code, out, errOut)
	}
	if *writes != 0 {
		t.Errorf("%d writes", *writes)
	}
}

// A named root chooses a lab when it is that lab's default root, or when
// that lab was used with it before (labmate keeps its progress there);
// when that does not single one out, the message lists the commands that
// choose.
func TestRootChoosesTheLab(t *testing.T) {
	t.Setenv(catalog.EnvLab, "")
	stateDir := t.TempDir()
	lab := func(args ...string) (int, string, string) {
		code, out, errOut := runStreams(append([]string{"check", "--no-cluster", "--json", "--state-dir", stateDir}, args...)...)
		var rep struct {
			Lab string `json:"lab"`
		}
		_ = json.Unmarshal([]byte(out), &rep)
		return code, rep.Lab, errOut
	}
	for root, want := range map[string]string{"/root/gpuop": "gpu-incident", "/root/gpudrv/": "driver-reboot"} {
		if code, got, errOut := lab("--root", root); got != want {
			t.Errorf("--root %s: lab %q, want %s (exit %d, %s)", root, got, want, code, errOut)
		}
	}
	root := t.TempDir()
	code, got, errOut := lab("--root", root)
	if code != cli.ExitUsage || got != "" {
		t.Fatalf("a fresh root: exit %d, lab %q", code, got)
	}
	for _, want := range []string{"설치된 실습이 여러 개입니다", "labmate check --lab gpu-incident", "labmate check --lab driver-reboot",
		"--root ~/gpuop", "LABMATE_LAB="} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the choose-a-lab message lacks %q:\n%s", want, errOut)
		}
	}
	used := func(id string) {
		st, err := state.Open(stateDir, id, root)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Update(func(f *state.File) { f.Progress.CurrentStep = 2 }); err != nil {
			t.Fatal(err)
		}
	}
	used("driver-reboot")
	if _, got, errOut := lab("--root", root); got != "driver-reboot" {
		t.Errorf("a root driver-reboot was used with: lab %q (%s)", got, errOut)
	}
	used("gpu-incident")
	if code, got, _ := lab("--root", root); code != cli.ExitUsage || got != "" {
		t.Errorf("a root both labs were used with: exit %d, lab %q", code, got)
	}
}

// doctor never refuses for want of a lab: with several installed and none
// chosen it checks the environment and every lab's needs.
func TestDoctorWithNoLabChosen(t *testing.T) {
	goodTerminal(t)
	t.Setenv(catalog.EnvLab, "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "")
	// A root no lab points to (with none named, a machine where
	// /root/gpuop exists would choose gpu-incident).
	code, out, errOut := timedRun(t, "doctor", "--root", t.TempDir(), "--state-dir", t.TempDir())
	if code != cli.ExitOK && code != cli.ExitFail || strings.Contains(errOut+out, "설치된 실습이 여러 개입니다") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{"[문제] kubeconfig", "실습 루트 (gpu-incident)", "실습 루트 (driver-reboot)", "실습 노드 (gpu-incident)", "파일 감시"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}

// A store of installed labs that cannot be read hides every installed
// lab: the command that lists the labs says so, in Korean.
func TestAnUnreadableStoreIsSaid(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv(catalog.EnvLab, "")
	// A file where the store's directory goes.
	if err := os.MkdirAll(filepath.Join(data, "labmate"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "labmate", "labs"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runStreams("check", "--root", t.TempDir(), "--no-cluster", "--state-dir", t.TempDir())
	if code != cli.ExitUsage || !strings.Contains(errOut, "설치된 실습이 여러 개입니다") || !strings.Contains(errOut, "설치한 실습 목록을 읽지 못했습니다") {
		t.Errorf("no choice with an unreadable store: exit %d, %q", code, errOut)
	}
}
