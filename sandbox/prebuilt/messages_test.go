package prebuilt

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/pelletier/go-toml/v2"

	"github.com/labhub/labmate/content"
)

// keyLiteral matches a message key in the package's Go source.
var keyLiteral = regexp.MustCompile(`"(prebuilt(?:\.[a-z0-9_]+)+)"`)

func sources(t *testing.T) map[string]string {
	t.Helper()
	names, _ := filepath.Glob("*.go")
	src := map[string]string{}
	for _, n := range names {
		if !strings.HasSuffix(n, "_test.go") {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			src[n] = string(b)
		}
	}
	return src
}

// Every key the package asks for exists, every key of
// content/ui-prebuilt.toml is used, and no Korean is written inline.
func TestMessages(t *testing.T) {
	used := map[string]bool{}
	for name, src := range sources(t) {
		for _, m := range keyLiteral.FindAllStringSubmatch(src, -1) {
			used[m[1]] = true
			if !content.HasMsg(m[1]) {
				t.Errorf("%s asks for %s, which content/ui-prebuilt.toml lacks", name, m[1])
			}
		}
		for i, line := range strings.Split(src, "\n") {
			if strings.IndexFunc(line, func(r rune) bool { return unicode.Is(unicode.Hangul, r) }) >= 0 {
				t.Errorf("%s:%d has Korean inline", name, i+1)
			}
		}
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "content", "ui-prebuilt.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := toml.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	var walk func(prefix string, v any)
	n := 0
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok {
			for k, sub := range m {
				walk(prefix+"."+k, sub)
			}
			return
		}
		n++
		key := strings.TrimPrefix(prefix, ".")
		// The bundle's reasons are chosen as BundleError.Key values.
		if !used[key] {
			t.Errorf("content/ui-prebuilt.toml defines %s, which the package never uses", key)
		}
	}
	walk("", tree)
	if n < 30 || len(used) < 30 {
		t.Errorf("%d keys defined, %d used: is the pattern still right?", n, len(used))
	}
}
