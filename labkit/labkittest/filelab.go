package labkittest

import (
	"maps"
	"strings"
	"testing"
)

// FileLab is a third lab, file-only, that is a directory and nothing
// else (nginx-conf, two steps, verify.toml with three wrong answers):
// written with testfiles.Dir, it proves itself with `lab verify DIR` and
// runs with `check --lab-dir DIR`, no Go code and no rebuild. Each call
// is a copy to change.
func FileLab() map[string]string { return maps.Clone(fileLab) }

// VersionedFileLab is FileLab at version, its first step retitled by
// title when not "".
func VersionedFileLab(version, title string) map[string]string {
	files := FileLab()
	toml := strings.Replace(files["lab.toml"], "id = \"nginx-conf\"\n", "id = \"nginx-conf\"\nversion = \""+version+"\"\n", 1)
	if title != "" {
		toml = strings.Replace(toml, `title = "재시작 스크립트"`, `title = "`+title+`"`, 1)
	}
	files["lab.toml"] = toml
	return files
}

// FileLabWith is FileLab with edits: each old string (which must be
// there) of a file replaced by new, a file's text appended when old is
// "".
func FileLabWith(tb testing.TB, edits ...[3]string) map[string]string {
	tb.Helper()
	files := FileLab()
	for _, e := range edits {
		name, old, new := e[0], e[1], e[2]
		if old == "" {
			files[name] += new
			continue
		}
		if !strings.Contains(files[name], old) {
			tb.Fatalf("%s has no %q", name, old)
		}
		files[name] = strings.Replace(files[name], old, new, 1)
	}
	return files
}

var fileLab = map[string]string{
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
