package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/hack/cluster"
)

// The embedded recipe is complete: the module with its go.mod (under its
// real name) and go.sum, and a command for every binary but kwok's two
// (go install builds those).
func TestRecipeEmbedded(t *testing.T) {
	mods := cluster.Modules()
	if len(mods) != 1 {
		t.Fatalf("%d modules", len(mods))
	}
	for _, m := range mods {
		for _, f := range []string{"go.mod", "go.sum"} {
			if len(m.Files[f]) == 0 {
				t.Errorf("%s: no %s", m.Dir, f)
			}
		}
		if _, ok := m.Files["go.mod.in"]; ok {
			t.Errorf("%s: go.mod.in not renamed", m.Dir)
		}
	}
	for _, c := range Binaries {
		if c == "kwok" || c == "kwokctl" {
			continue
		}
		if len(mods[0].Files["cmd/"+c+"/main.go"]) == 0 {
			t.Errorf("k8s recipe lacks cmd/%s", c)
		}
	}
	for _, req := range []string{"k8s.io/kubernetes " + cluster.K8sVersion, "go.etcd.io/etcd/server/v3 " + cluster.EtcdVersion} {
		if !strings.Contains(string(mods[0].Files["go.mod"]), req) {
			t.Errorf("k8s go.mod does not require %s", req)
		}
	}
}

// With every binary there and the stamp matching, Build only says so;
// without go it says what to install.
func TestBuildIdempotentAndNoGo(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the sandbox runs on Unix only")
	}
	dir := isolate(t)
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	for _, b := range Binaries {
		os.WriteFile(filepath.Join(bin, b), []byte("#!/bin/sh\n"), 0o755)
	}
	goVersion, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	stamp := fmt.Sprintf("k8s=%s etcd=%s kwok=%s go=%s recipe=%s\n", cluster.K8sVersion, cluster.EtcdVersion,
		cluster.KwokVersion, strings.TrimSpace(string(goVersion)), cluster.Hash())
	os.WriteFile(filepath.Join(bin, ".stamp"), []byte(stamp), 0o644)
	var progress strings.Builder
	if err := Build(context.Background(), Options{BinDir: bin, Progress: &progress}, false); err != nil {
		t.Fatal(err)
	}
	if want := content.Msg("sandbox.build.up_to_date", "bin_dir", bin); strings.TrimSpace(progress.String()) != want {
		t.Errorf("progress = %q, want %q", progress.String(), want)
	}

	t.Setenv("PATH", t.TempDir())
	if err := Build(context.Background(), Options{BinDir: bin}, false); !errors.Is(err, ErrNoGo) || !strings.Contains(err.Error(), "https://go.dev/dl") {
		t.Errorf("Build without go = %v", err)
	}
	os.Remove(filepath.Join(bin, "kwok"))
	noNetwork(t)
	var mb *MissingBinariesError
	if err := Up(context.Background(), Options{BinDir: bin, Build: true}); !errors.As(err, &mb) || !strings.Contains(err.Error(), content.Msg("sandbox.go_missing", "go_version", cluster.GoVersion())) {
		t.Errorf("Up without go and a binary = %v", err)
	}
}

// TestBuildReportsTheFirstFailureAndStopsTheOther runs Build with a fake
// go command: the Kubernetes build and kwok's run at once, so the first
// to fail is the error Build returns, and the other, still running, is
// cancelled rather than waited for.
func TestBuildReportsTheFirstFailureAndStopsTheOther(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the sandbox runs on Unix only")
	}
	for _, tc := range []struct {
		name           string
		build, install string // the fake go's body for `go build` and `go install`
		want           string
	}{
		{"kwok fails while Kubernetes builds", "exec sleep 600", "exit 3", "go install"},
		{"Kubernetes fails while kwok builds", "exit 3", "exec sleep 600", "go build"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := isolate(t)
			fake := filepath.Join(dir, "fakego")
			os.MkdirAll(fake, 0o755)
			script := "#!/bin/sh\ncase \"$1\" in\nenv) echo go1.99-fake ;;\nbuild) " + tc.build + " ;;\ninstall) " + tc.install + " ;;\nesac\n"
			if err := os.WriteFile(filepath.Join(fake, "go"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
			done := make(chan error, 1)
			go func() {
				done <- Build(context.Background(), Options{BinDir: filepath.Join(dir, "bin"), Progress: io.Discard}, false)
			}()
			select {
			case err := <-done:
				want := content.Msg("sandbox.build.go_failed", "cmd", tc.want, "log", filepath.Join(dir, "cache", "labmate", "sandbox", "build.log"))
				if err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("Build = %v, want the error of %q first: %q", err, tc.want, want)
				}
			case <-time.After(5 * time.Minute):
				t.Fatal("Build still waits for the build that did not fail (600 s of sleep), 5 min after the other failed")
			}
		})
	}
}
