package prebuilt_test

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/hack/cluster"
	"github.com/labhub/labmate/internal/testbin"
	"github.com/labhub/labmate/internal/testslots"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/sandbox/prebuilt"
	"github.com/labhub/labmate/sandbox/sandboxtest"
)

// The learner's first cluster without Go, as issue 41 tries it: the real
// labmate on an empty HOME, PATH=/usr/bin:/bin (no go), `sandbox up --lab
// gpu-incident` from a mirror with upstream's layout on loopback (the
// real cluster binaries, built from source, repackaged as upstream
// publishes them), until the lab's nodes are Ready; `sandbox status`
// says so; `sandbox down` removes it. Then the same from a bundle file
// that `sandbox bundle` made of the first bin dir, on another empty HOME
// with no mirror at all. The wall time of each `up` is logged
// ("measured: ..."; scripts/bench.sh sandbox-binaries collects them for
// docs/MEASURED.md); nothing asserts how fast.
func TestSandboxUpWithoutGo(t *testing.T) {
	if !sandboxtest.Enabled() {
		t.Skipf("skipping sandbox e2e test: set %s=1 to run it (needs the binaries from scripts/cluster-bins.sh)", sandboxtest.EnvE2E)
	}
	if !prebuilt.Supported(runtime.GOOS, runtime.GOARCH) {
		t.Skipf("upstream ships no binaries for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	src := sandbox.Options{}.ResolvedBinDir()
	if err := sandbox.CheckBinaries(sandbox.Options{BinDir: src}); err != nil {
		t.Fatalf("the mirror is made of the cluster binaries: %v (scripts/cluster-bins.sh builds them)", err)
	}
	labmate := testbin.Build(t, "../../cmd/labmate")
	mirror, sums := serveMirror(t, src)

	// One cluster at a time for the whole test (machine-wide slots).
	testslots.Take(t)

	home := t.TempDir()
	env := learnerEnv(home, prebuilt.EnvMirror+"="+mirror, prebuilt.EnvSums+"="+sums)
	name := sandboxtest.Name() + "-dl-mirror"
	took := upStatusDown(t, labmate, env, name)
	t.Logf("measured: sandbox up from the loopback mirror, empty HOME: %.1f s", took.Seconds())

	binDir := filepath.Join(home, ".cache", "labmate", "cluster", "v1.34")
	for _, b := range sandbox.Binaries {
		if sumOf(t, filepath.Join(binDir, b)) != sumOf(t, filepath.Join(src, b)) {
			t.Errorf("%s in %s is not the mirror's", b, binDir)
		}
	}
	stamp, _ := os.ReadFile(filepath.Join(binDir, ".stamp"))
	if !strings.Contains(string(stamp), "from=mirror "+mirror) {
		t.Errorf("stamp %q does not say the mirror", stamp)
	}
	if _, err := os.Stat(filepath.Join(home, ".kwok", "cache")); !os.IsNotExist(err) {
		t.Errorf("kwokctl downloaded something itself (%s/.kwok/cache: %v)", home, err)
	}

	bundle := filepath.Join(t.TempDir(), "labmate-cluster.tar.gz")
	out, err := run(labmate, env, "sandbox", "bundle", "-o", bundle)
	if err != nil {
		t.Fatalf("sandbox bundle: %v\n%s", err, out)
	}
	if fi, err := os.Stat(bundle); err == nil {
		t.Logf("measured: bundle %s, %.1f MiB", filepath.Base(bundle), float64(fi.Size())/(1<<20))
	}
	// Binaries built from source match no digest labmate carries: the
	// learner vouches for the bundle with its sha256, as `sandbox bundle`
	// printed it (and without it, nothing is installed).
	digest := regexp.MustCompile(`--sha256 ([0-9a-f]{64})`).FindStringSubmatch(out)
	if digest == nil || digest[1] != sumOf(t, bundle) {
		t.Fatalf("sandbox bundle did not print the command with the bundle's sha256 %s:\n%s", sumOf(t, bundle), out)
	}
	home2 := t.TempDir()
	if out, err := run(labmate, learnerEnv(home2), "sandbox", "up", "--lab", "gpu-incident", "--name", sandboxtest.Name()+"-dl-unvouched", "--from", bundle); err == nil || !strings.Contains(out, "--sha256") {
		t.Fatalf("sandbox up --from a bundle of binaries built from source, without its digest: %v\n%s", err, out)
	}
	took = upStatusDown(t, labmate, learnerEnv(home2), sandboxtest.Name()+"-dl-bundle", "--from", bundle, "--sha256", digest[1])
	t.Logf("measured: sandbox up --from a bundle file, empty HOME: %.1f s", took.Seconds())
}

// learnerEnv is a fresh learner's environment: an empty HOME, the
// system's PATH without Go, nothing of labmate's or kwok's, plus extra.
func learnerEnv(home string, extra ...string) []string {
	return append([]string{"HOME=" + home, "PATH=/usr/bin:/bin", "LANG=C.UTF-8"}, extra...)
}

// run runs the labmate binary with env (and nothing else of the test's
// environment), for at most ten minutes.
func run(labmate string, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, labmate, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// upStatusDown brings the lab's sandbox up with env (go must not be on
// its PATH), checks that `sandbox status` calls it ready, and takes it
// down (also when the test fails). It returns how long `up` took.
func upStatusDown(t *testing.T, labmate string, env []string, name string, upArgs ...string) time.Duration {
	t.Helper()
	if p, err := lookPath("go", env); err == nil {
		t.Fatalf("go is on the learner's PATH (%s): the test proves a machine without Go", p)
	}
	t.Cleanup(func() {
		if out, err := run(labmate, env, "sandbox", "down", "--name", name); err != nil {
			t.Errorf("sandbox down --name %s: %v\n%s", name, err, out)
		}
	})
	start := time.Now()
	out, err := run(labmate, env, append([]string{"sandbox", "up", "--lab", "gpu-incident", "--name", name}, upArgs...)...)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("sandbox up: %v\n%s", err, out)
	}
	t.Logf("sandbox up --name %s:\n%s", name, out)
	if out, err := run(labmate, env, "sandbox", "status", "--lab", "gpu-incident", "--name", name); err != nil {
		t.Fatalf("sandbox status after up: %v\n%s", err, out)
	}
	if out, err := run(labmate, env, "sandbox", "down", "--name", name); err != nil {
		t.Errorf("sandbox down: %v\n%s", err, out)
	}
	return took
}

// lookPath is exec.LookPath in env's PATH.
func lookPath(file string, env []string) (string, error) {
	for _, kv := range env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range filepath.SplitList(path) {
				p := filepath.Join(dir, file)
				if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
					return p, nil
				}
			}
		}
	}
	return "", exec.ErrNotFound
}

// serveMirror serves the binaries in binDir on loopback in upstream's
// layout (prebuilt.MirrorURL): the Kubernetes binaries as they are with
// their .sha256, etcd in its release tarball with SHA256SUMS, kwok's as
// they are. They were built here and match no digest labmate carries,
// and the mirror's own checksum files vouch for nothing, so their
// digests go into a sums file for EnvSums, as a learner vouches for a
// mirror of binaries built from source. It returns the mirror's URL and
// the sums file.
func serveMirror(t *testing.T, binDir string) (mirror, sums string) {
	t.Helper()
	files := map[string]string{} // URL path -> file on disk
	ds, _ := cluster.Downloads(runtime.GOOS, runtime.GOARCH)
	tmp := t.TempDir()
	var local, etcdSums strings.Builder
	for _, d := range ds {
		p := urlPath(d.URL)
		switch {
		case d.Members != nil:
			tgz := filepath.Join(tmp, d.Name())
			writeTarball(t, tgz, d.Members["etcd"], filepath.Join(binDir, "etcd"))
			files[p] = tgz
			fmt.Fprintf(&etcdSums, "%s  %s\n", sumOf(t, tgz), d.Name())
			fmt.Fprintf(&local, "%s  %s\n", sumOf(t, tgz), d.Name())
			sumsFile := filepath.Join(tmp, "SHA256SUMS")
			os.WriteFile(sumsFile, []byte(etcdSums.String()), 0o644)
			files[urlPath(d.Checksum.URL)] = sumsFile
		case d.Checksum.URL != "":
			files[p] = filepath.Join(binDir, d.Binaries[0])
			sumFile := filepath.Join(tmp, d.Binaries[0]+".sha256")
			os.WriteFile(sumFile, []byte(sumOf(t, files[p])), 0o644)
			files[urlPath(d.Checksum.URL)] = sumFile
			fmt.Fprintf(&local, "%s  %s\n", sumOf(t, files[p]), d.Name())
		default:
			files[p] = filepath.Join(binDir, d.Binaries[0])
			fmt.Fprintf(&local, "%s  %s\n", sumOf(t, files[p]), d.Name())
		}
	}
	sums = filepath.Join(tmp, "local.sha256sums")
	if err := os.WriteFile(sums, []byte(local.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, path)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, sums
}

func urlPath(upstream string) string {
	u, _ := url.Parse(upstream)
	return "/" + u.Host + u.Path
}

// writeTarball writes a tar.gz holding file as member, as etcd's release
// tarball holds etcd.
func writeTarball(t *testing.T, out, member, file string) {
	t.Helper()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	fi, _ := in.Stat()
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: filepath.Dir(member) + "/", Mode: 0o755, Typeflag: tar.TypeDir})
	if err := tw.WriteHeader(&tar.Header{Name: member, Mode: 0o755, Size: fi.Size(), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(tw, in); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

func sumOf(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
