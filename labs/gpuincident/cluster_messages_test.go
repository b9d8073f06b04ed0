package gpuincident

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

// Every message key this lab's checks use exists, in the lab's messages
// or the shared ones: each string literal of the package's sources shaped
// like a key of theirs, and the keys built at run time.
func TestMessageKeysExist(t *testing.T) {
	lab, err := content.Load(ID)
	if err != nil {
		t.Fatal(err)
	}
	srcs, _ := filepath.Glob("*.go")
	keyLike := regexp.MustCompile(`^(files|report|cluster)\.[a-z0-9_.]+[a-z0-9_]$`)
	fset := token.NewFileSet()
	keys := map[string]bool{}
	for _, src := range srcs {
		if strings.HasSuffix(src, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, src, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && keyLike.MatchString(s) {
					keys[s] = true
				}
			}
			return true
		})
	}
	for _, s := range []string{"condition", "event", "witness"} {
		keys["cluster.source."+s] = true
	}
	for _, s := range []observe.ClusterState{observe.ClusterOff, observe.ClusterConnecting, observe.ClusterSynced, observe.ClusterUnreachable, observe.ClusterError} {
		keys["cluster.state."+string(s)] = true
	}
	if len(keys) < 200 {
		t.Fatalf("found only %d keys: the scan is broken", len(keys))
	}
	for k := range keys {
		if !lab.HasMsg(k) {
			t.Errorf("message %q is in neither content/labs/gpu-incident/messages*.toml nor content/*.toml", k)
		}
	}
}
