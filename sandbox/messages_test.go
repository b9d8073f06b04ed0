package sandbox

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/pelletier/go-toml/v2"

	"github.com/labhub/labmate/content"
)

// keyLiteral matches a message key written in the package's Go source: the
// first argument of content.Msg, progress and wrapMsg, and the state keys of
// ClusterStatus.String.
var keyLiteral = regexp.MustCompile(`"(sandbox(?:\.[a-z0-9_]+)+)"`)

// packageSource returns the package's non-test Go files (under every build
// tag), by name.
func packageSource(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	src := map[string]string{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src[name] = string(b)
	}
	if len(src) < 4 {
		t.Fatalf("found only %d source files: %v", len(src), names)
	}
	return src
}

// Every key the package asks for exists: a missing one would print the key
// itself to the user.
func TestMessageKeysExist(t *testing.T) {
	direct := 0
	used := 0
	for name, src := range packageSource(t) {
		direct += strings.Count(src, `content.Msg("sandbox.`)
		for _, m := range keyLiteral.FindAllStringSubmatch(src, -1) {
			used++
			if !content.HasMsg(m[1]) {
				t.Errorf("%s asks for %s, which content/ui-sandbox.toml does not have", name, m[1])
			}
		}
	}
	if direct < 10 || used < 40 {
		t.Errorf("found %d content.Msg(\"sandbox. calls and %d keys in all: is the pattern still right?", direct, used)
	}
}

// Every text in content/ui-sandbox.toml is used by the package, so the file
// holds no stale wording.
func TestMessageKeysUsed(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "content", "ui-sandbox.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := toml.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	var defined []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok {
			for k, sub := range m {
				walk(prefix+"."+k, sub)
			}
			return
		}
		defined = append(defined, strings.TrimPrefix(prefix, "."))
	}
	walk("", tree)
	sort.Strings(defined)

	used := map[string]bool{}
	for _, src := range packageSource(t) {
		for _, m := range keyLiteral.FindAllStringSubmatch(src, -1) {
			used[m[1]] = true
		}
	}
	if len(defined) < 40 {
		t.Fatalf("ui-sandbox.toml defines only %d keys: %v", len(defined), defined)
	}
	for _, k := range defined {
		if !strings.HasPrefix(k, "sandbox.") {
			t.Errorf("ui-sandbox.toml defines %s, outside sandbox.*", k)
		}
		if !used[k] {
			t.Errorf("ui-sandbox.toml defines %s, which package sandbox never uses", k)
		}
	}
}

// The user-facing text is in content/, not in the Go source (code and
// comments are English).
func TestNoInlineKorean(t *testing.T) {
	for name, src := range packageSource(t) {
		for i, line := range strings.Split(src, "\n") {
			for _, r := range line {
				if unicode.Is(unicode.Hangul, r) {
					t.Errorf("%s:%d has Korean text inline: %s", name, i+1, strings.TrimSpace(line))
					break
				}
			}
		}
	}
}

// The errors built from content keep the error they wrap reachable, and the
// sentinels keep their identity and text.
func TestMessageErrorsWrap(t *testing.T) {
	isolate(t)
	opts := Options{}.withDefaults()

	if got, want := ErrNotRunning.Error(), content.Msg("sandbox.not_running"); got != want || got == "sandbox.not_running" {
		t.Errorf("ErrNotRunning = %q, want the text of sandbox.not_running (%q)", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := waitAPI(ctx, opts)
	if !errors.Is(err, ErrNotRunning) {
		t.Errorf("waitAPI on a dead cluster = %v, want it to wrap ErrNotRunning", err)
	}
	if err != nil && (!strings.HasPrefix(err.Error(), ErrNotRunning.Error()+": ") || !strings.Contains(err.Error(), Kubeconfig(opts))) {
		t.Errorf("waitAPI error = %q, want the sentinel first and the kubeconfig path", err)
	}

	err = componentDied(opts, []string{"etcd", "kube-scheduler"})
	if !errors.Is(err, errComponentDied) || !strings.Contains(err.Error(), "etcd, kube-scheduler") ||
		!strings.Contains(err.Error(), componentLogs(opts)) {
		t.Errorf("componentDied = %v", err)
	}

	_, err = Connect(Options{Name: "absent"})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Connect without a kubeconfig = %v, want it to wrap fs.ErrNotExist", err)
	}
	if err != nil && !strings.HasPrefix(err.Error(), content.Msg("sandbox.err.kubeconfig", "path", Kubeconfig(Options{Name: "absent"}))+": ") {
		t.Errorf("Connect error = %q", err)
	}
}
