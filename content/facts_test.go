package content

import (
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing"
)

// A lab's "## 사실 근거" sections say how components behave, and each of
// their bullets names what was read (STYLE habits 19 and 26): a page by
// its URL, code by repository, ref and file, or an issue or pull request
// by owner/repo#N. A bullet that names none of these is a sentence no
// source supports.

const factsHeading = "## 사실 근거"

var (
	// A page: an http(s) URL.
	sourceURL = regexp.MustCompile(`https?://[^\s)>\]]+\.[^\s)>\]]+`)
	// An issue or pull request: owner/repo#N.
	sourceIssue = regexp.MustCompile(`(^|[^\w/.-])[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*#[0-9]+\b`)
	// Code: owner/repo, then its ref (a tag such as v1.34.12, a commit,
	// main, master or release/X.Y) ...
	sourceRepoRef = regexp.MustCompile(`(^|[^\w/.-])[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*\s+(v[0-9]+(\.[0-9]+)+(-[\w.]+)?|[0-9a-f]{7,40}|main|master|release/[0-9]+\.[0-9]+)\b`)
	// ... and a file of it, in backticks: a path with a directory, or a
	// name with an extension.
	sourceFile = regexp.MustCompile("`([\\w.-]+/)+[\\w.-]+`|`[\\w-]+\\.[A-Za-z]{1,5}`")
)

// factSource says which kind of source a bullet names, "" for none.
func factSource(bullet string) string {
	switch {
	case sourceURL.MatchString(bullet):
		return "url"
	case sourceIssue.MatchString(bullet):
		return "issue"
	case sourceRepoRef.MatchString(bullet) && sourceFile.MatchString(bullet):
		return "code"
	}
	return ""
}

// factBullets returns the bullets of a markdown text's 사실 근거
// sections, each with its continuation lines joined, and the line each
// starts on.
func factBullets(md string) (bullets []string, lines []int) {
	in := false
	for i, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			in = strings.TrimSpace(line) == factsHeading
		case !in:
		case strings.HasPrefix(line, "- "):
			bullets = append(bullets, strings.TrimPrefix(line, "- "))
			lines = append(lines, i+1)
		case strings.TrimSpace(line) == "":
		case len(bullets) > 0:
			// A wrapped line of the bullet above.
			bullets[len(bullets)-1] += " " + strings.TrimSpace(line)
		}
	}
	return bullets, lines
}

func TestFactBulletsNameTheirSource(t *testing.T) {
	for _, id := range IDs() {
		l, err := Load(id)
		if err != nil {
			t.Fatal(err)
		}
		sections := 0
		err = fs.WalkDir(l.FS, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || path.Ext(p) != ".md" {
				return err
			}
			raw, err := fs.ReadFile(l.FS, p)
			if err != nil {
				return err
			}
			md := string(raw)
			if strings.Contains(md, "\n"+factsHeading+"\n") {
				sections++
			}
			bullets, at := factBullets(md)
			if strings.Contains(md, "\n"+factsHeading+"\n") && len(bullets) == 0 {
				t.Errorf("%s/%s: a %s section without bullets", id, p, factsHeading)
			}
			for i, b := range bullets {
				if factSource(b) == "" {
					t.Errorf("%s/%s:%d: this 사실 근거 bullet names no source (a URL, owner/repo REF `file`, or owner/repo#N):\n  %s", id, p, at[i], b)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if sections == 0 {
			t.Errorf("%s: no page has a %s section", id, factsHeading)
		}
	}
}

// The rule itself: what counts as a source and what does not.
func TestFactSourceKinds(t *testing.T) {
	for _, c := range []struct {
		bullet, want string
	}{
		{"kubernetes.io 문서 \"Device Plugins\" (https://kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/device-plugins/)", "url"},
		{"재부팅 뒤 거절됨: kubernetes/kubernetes#125579.", "issue"},
		{"거절의 이유(NVIDIA/k8s-device-plugin#1234)", "issue"},
		{"kubernetes/kubernetes v1.34.12 `pkg/kubelet/kubelet.go` 의 `NewMainKubelet`", "code"},
		{"containerd/containerd v1.7.29 `pkg/cri/config/config.go` (`ValidatePluginConfig`)", "code"},
		{"NVIDIA/nvidia-container-toolkit v1.18.0 `pkg/config/engine/containerd/containerd.go`", "code"},
		{"containerd/containerd 21248d0 `cmd/containerd/server/config/config.go`", "code"},
		{"NVIDIA/k8s-device-plugin v0.17.1 `README.md` 의 경고", "code"},
		// None of these names what was read.
		{"보고서의 값은 모두 labmate 가 클러스터에서 읽은 값과 비교합니다.", ""},
		{"이 실습의 씨앗 문서와 intro 의 \"진짜 GPU 노드에서 달라지는 것\".", ""},
		{"kubelet 의 device manager 는 재시작 때 체크포인트를 읽음: kubernetes `pkg/kubelet/cm/devicemanager/manager.go` 의 `readCheckpoint`", ""},
		{"kubernetes/kubernetes 의 `pkg/kubelet/kubelet.go`", ""},
		{"kubernetes/kubernetes v1.34.12 의 kubelet", ""},
		{"kubernetes/kubernetes 이슈 #99708", ""},
		{"NVIDIA GPU Operator 문서 \"Time-Slicing GPUs in Kubernetes\"", ""},
		{"containerd(8) man 페이지", ""},
		{"`pkg/kubelet/cm/devicemanager` 의 `readCheckpoint` (#128043)", ""},
		{"이 샌드박스의 Kubernetes 1.34 API 서버에서 확인했습니다.", ""},
	} {
		if got := factSource(c.bullet); got != c.want {
			t.Errorf("factSource(%q) = %q, want %q", c.bullet, got, c.want)
		}
	}
}

// Bullets are read from their section only, wrapped lines joined.
func TestFactBulletsOfASection(t *testing.T) {
	md := "## 왜 중요한가\n\n- not a fact bullet\n\n## 사실 근거\n\n- one: https://kubernetes.io/docs/x\n- two, wrapped\n  onto kubernetes/kubernetes#1\n\n## 다음\n\n- after\n"
	got, at := factBullets(md)
	want := []string{"one: https://kubernetes.io/docs/x", "two, wrapped onto kubernetes/kubernetes#1"}
	if strings.Join(got, "|") != strings.Join(want, "|") || len(at) != 2 || at[0] != 7 || at[1] != 8 {
		t.Errorf("factBullets = %q at %v, want %q at [7 8]", got, at, want)
	}
	for _, b := range got {
		if factSource(b) == "" {
			t.Errorf("%q names a source", b)
		}
	}
}
