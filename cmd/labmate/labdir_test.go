package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
missing = "{path} 가 없습니다: 재시작 스크립트를 만드세요."
[nginx.port]
hint = " 포트는 따옴표 없는 정수입니다."
`,
	"intro.md":                "# nginx 설정\n\n파일 두 개를 씁니다: `{{ROOT}}/bin/reload.sh`, `{{ROOT}}/etc/site.toml`.\n",
	"steps/01.md":             "`{{ROOT}}/bin/reload.sh` 를 실행할 수 있게 만드세요.\n",
	"steps/02.md":             "`{{ROOT}}/etc/site.toml` 의 `[server]` 에 `port = 8080` 과 `name` 을 쓰세요.\n",
	"reference/bin/reload.sh": "#!/bin/sh\nnginx -s reload\n",
	"reference/etc/site.toml": "[server]\nport = 8080\nname = \"www.example.com\"\n",
	"verify.toml": `timeout_seconds = 10

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

func writeLab(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestThirdLabIsADirectory(t *testing.T) {
	dir := writeLab(t, thirdLab)
	code, out, errOut := runStreams("lab", "verify", dir)
	if code != exitOK {
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
	if code != exitFail || rep.Lab != "nginx-conf" || len(rep.Steps) != 2 || rep.Steps[0].Status != "failed" {
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
	if code != exitOK {
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
	if code != exitFail {
		t.Fatalf("lab verify of a loosened lab: exit %d, want %d\n%s\n%s", code, exitFail, out, errOut)
	}
	var failed []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "✗") {
			failed = append(failed, line)
		}
	}
	if len(failed) != 1 || !strings.Contains(failed[0], "오답 not-executable") || !strings.Contains(failed[0], "통과") {
		t.Fatalf("failing rows %q, want the one for not-executable (it passed):\n%s", failed, out)
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
	if code != exitFail || !strings.Contains(out, "실습 정의") || !strings.Contains(out, "rules 는 field 검사가 읽지 않는 필드입니다") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// `lab list --json` is the stable shape tools read.
func TestLabListJSON(t *testing.T) {
	code, out, _ := runStreams("lab", "list", "--json")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var labs []map[string]any
	if err := json.Unmarshal([]byte(out), &labs); err != nil {
		t.Fatal(err)
	}
	ids := map[string]float64{}
	for _, l := range labs {
		if len(l) != 3 || l["title"] == "" {
			t.Errorf("entry %v: want exactly id, title, steps", l)
		}
		ids[l["id"].(string)] = l["steps"].(float64)
	}
	if ids["gpu-incident"] != 8 || ids["driver-reboot"] != 5 {
		t.Errorf("labs %v", ids)
	}
}

// Which lab a command works on: --lab, then $LABMATE_LAB; with several
// installed and nothing choosing, a command that is not the TUI says how
// to choose (exit 2), naming the labs.
func TestLabResolution(t *testing.T) {
	root := t.TempDir()
	state := t.TempDir()
	t.Setenv(EnvLab, "")
	code, _, errOut := runStreams("check", "--root", root, "--no-cluster", "--state-dir", state)
	if code != exitUsage || !strings.Contains(errOut, "설치된 실습이 여러 개입니다") || !strings.Contains(errOut, "driver-reboot") {
		t.Fatalf("no choice: exit %d, %q", code, errOut)
	}
	t.Setenv(EnvLab, "driver-reboot")
	code, out, _ := runStreams("check", "--root", root, "--no-cluster", "--state-dir", state, "--json")
	if code != exitFail || !strings.Contains(out, `"lab": "driver-reboot"`) {
		t.Fatalf("LABMATE_LAB=driver-reboot: exit %d\n%s", code, out)
	}
	code, out, _ = runStreams("check", "--lab", "gpu-incident", "--root", root, "--no-cluster", "--state-dir", state, "--json")
	if code != exitFail || !strings.Contains(out, `"lab": "gpu-incident"`) {
		t.Fatalf("--lab wins over LABMATE_LAB: exit %d\n%s", code, out)
	}
	code, _, errOut = runStreams("check", "--lab", "gpu-incident", "--lab-dir", root, "--root", root)
	if code != exitUsage || !strings.Contains(errOut, "함께 쓸 수 없습니다") {
		t.Fatalf("--lab and --lab-dir: exit %d, %q", code, errOut)
	}
	code, _, errOut = runStreams("check", "--lab", "no-such-lab", "--root", root)
	if code != exitUsage || !strings.Contains(errOut, "no-such-lab") {
		t.Fatalf("unknown lab: exit %d, %q", code, errOut)
	}
}

// lab verify writes to no cluster that is not a labmate sandbox: a
// kubeconfig naming another cluster is refused before anything is done
// (exit 2), with the reason.
func TestVerifyRefusesAClusterThatIsNotASandbox(t *testing.T) {
	var writes int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			writes++
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
	}))
	defer srv.Close()
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	conf := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: " + srv.URL + "}}]\n" +
		"users: [{name: u, user: {token: x}}]\ncontexts: [{name: prod, context: {cluster: c, user: u}}]\ncurrent-context: prod\n"
	if err := os.WriteFile(kc, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runStreams("lab", "verify", "driver-reboot", "--kubeconfig", kc)
	if code != exitUsage || !strings.Contains(errOut, "labmate 샌드박스가 아니라서 쓰지 않습니다") || !strings.Contains(errOut, "prod") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if writes != 0 {
		t.Errorf("%d writes reached a cluster that is not a sandbox", writes)
	}
}
