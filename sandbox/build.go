package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/hack/cluster"
	"github.com/labhub/labmate/internal/lockfile"
	"github.com/labhub/labmate/internal/syncio"
	"github.com/labhub/labmate/sandbox/prebuilt"
)

// ErrNoGo is returned when Build needs the go command and it is not on
// PATH; its text says which Go to install and the ways that need none.
var ErrNoGo error = noGoError{}

type noGoError struct{}

func (noGoError) Error() string {
	return content.Msg("sandbox.build.no_go", "go_version", cluster.GoVersion(), "mirror_env", prebuilt.EnvMirror)
}

// Build builds every binary of Binaries into the bin dir from the recipe
// embedded in labmate (hack/cluster) and the Go module proxy, with
// progress on opts.Progress. It is idempotent: a stamp file records the
// versions, the Go version and the recipe's hash, and when it matches and
// every binary is there Build only says so (unless force). It holds a lock
// on the bin dir, so concurrent builds wait for each other.
func Build(ctx context.Context, opts Options, force bool) error {
	opts = opts.withDefaults()
	goBin, err := exec.LookPath("go")
	if err != nil {
		return ErrNoGo
	}
	if err := os.MkdirAll(opts.BinDir, 0o755); err != nil {
		return wrapMsg(err, "sandbox.err.bin_dir", "bin_dir", opts.BinDir)
	}
	unlock, err := lockfile.Lock(ctx, filepath.Join(opts.BinDir, ".lock"), lockfile.Options{
		Waiting: func() { opts.progress("sandbox.build.waiting", "bin_dir", opts.BinDir) }})
	if err != nil {
		return wrapMsg(err, "sandbox.err.lock", "path", filepath.Join(opts.BinDir, ".lock"))
	}
	defer unlock()

	want, err := stampOf(ctx, goBin)
	if err != nil {
		return err
	}
	stamp := filepath.Join(opts.BinDir, ".stamp")
	if have, err := os.ReadFile(stamp); !force && err == nil && strings.TrimSpace(string(have)) == want && CheckBinaries(opts) == nil {
		opts.progress("sandbox.build.up_to_date", "bin_dir", opts.BinDir)
		return nil
	}

	start := time.Now()
	tmp, err := os.MkdirTemp(opts.BinDir, ".build.")
	if err != nil {
		return wrapMsg(err, "sandbox.err.bin_dir", "bin_dir", opts.BinDir)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	if err := unpackRecipe(src); err != nil {
		return wrapMsg(err, "sandbox.err.bin_dir", "bin_dir", tmp)
	}
	logf, err := openBuildLog(opts)
	if err != nil {
		return err
	}
	defer logf.Close()
	if err := compile(ctx, opts, goBin, tmp, logf); err != nil {
		return err
	}
	if err := install(opts, tmp, logf.Name(), stamp, want); err != nil {
		return err
	}
	opts.progress("sandbox.build.done", "count", len(Binaries), "bin_dir", opts.BinDir, "elapsed", since(start))
	return nil
}

// compile builds every binary into tmp from the recipe unpacked in
// tmp/src, the go commands' output into logf.
//
// The two builds run at once: kwok's (its module downloads, then k8s.io
// modules of another release) fills the cores the Kubernetes build
// leaves idle while one big package compiles alone or its binaries link
// (a fresh 2-core machine: 13.1 min, then kwok 3.3 min after it). kwok's
// output is kept apart and added to the log after the Kubernetes
// build's, so the log reads as two whole sections. The first failure is
// the one to report: it cancels the other build, whose error is then
// only that.
func compile(ctx context.Context, opts Options, goBin, tmp string, logf *os.File) error {
	logPath := logf.Name()
	// goRun runs the go command in dir, its output (with a header line)
	// into out, and with --verbose to the progress writer as well (one
	// write at a time: the two builds run at once).
	progress := &syncio.Writer{W: opts.Progress}
	goRun := func(ctx context.Context, out io.Writer, dir string, env []string, args ...string) error {
		if opts.Verbose {
			out = io.MultiWriter(out, progress)
		}
		cmd := exec.CommandContext(ctx, goBin, args...)
		cmd.Dir = dir
		// Never fetch a toolchain, ignore any go.work, no cgo.
		cmd.Env = append(os.Environ(), append([]string{"GOTOOLCHAIN=local", "GOWORK=off", "CGO_ENABLED=0"}, env...)...)
		cmd.Stdout, cmd.Stderr = out, out
		fmt.Fprintf(out, "\n=== %s (in %s) go %s\n", time.Now().Format(time.RFC3339), dir, strings.Join(args, " "))
		if err := cmd.Run(); err != nil {
			return errors.New(content.Msg("sandbox.build.go_failed", "cmd", "go "+strings.Join(args[:1], " "), "log", logPath) + ": " + err.Error())
		}
		return nil
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var first error
	var once sync.Once
	fail := func(err error) {
		if err != nil {
			once.Do(func() { first = err; cancel() })
		}
	}
	opts.progress("sandbox.build.k8s", "version", cluster.K8sVersion, "etcd", cluster.EtcdVersion)
	opts.progress("sandbox.build.kwok", "version", cluster.KwokVersion)
	var kwokOut bytes.Buffer
	kwokDone := make(chan struct{})
	go func() {
		defer close(kwokDone)
		fail(goRun(ctx, &kwokOut, tmp, []string{"GOFLAGS=-buildvcs=false", "GOBIN=" + tmp},
			"install", "-trimpath", "-ldflags=-s -w", noDWARF,
			"sigs.k8s.io/kwok/cmd/kwok@"+cluster.KwokVersion, "sigs.k8s.io/kwok/cmd/kwokctl@"+cluster.KwokVersion))
	}()
	// One go build for the Kubernetes commands and etcd: the packages
	// they share compile once, and the links overlap the compiles.
	fail(goRun(ctx, logf, filepath.Join(tmp, "src", "k8s"), []string{"GOFLAGS=-mod=mod -buildvcs=false"},
		"build", "-trimpath", "-ldflags="+k8sLdflags(time.Now()), noDWARF, "-o", tmp+string(filepath.Separator), "./cmd/..."))
	<-kwokDone
	_, _ = logf.Write(kwokOut.Bytes())
	return first
}

// noDWARF: the compiler writes no debug information, which the link's
// -w would drop anyway (11% less compile CPU measured on client-go and
// cel-go from a cold cache; a fresh machine compiles all of Kubernetes).
const noDWARF = "-gcflags=all=-dwarf=false"

// stampOf is what the binaries are made of: the versions built, the Go
// that builds them and the recipe's hash. A bin dir whose stamp differs
// is built again.
func stampOf(ctx context.Context, goBin string) (string, error) {
	goVersion, err := exec.CommandContext(ctx, goBin, "env", "GOVERSION").Output()
	if err != nil {
		return "", wrapMsg(err, "sandbox.build.go_failed", "cmd", "go env GOVERSION", "log", "-")
	}
	return fmt.Sprintf("k8s=%s etcd=%s kwok=%s go=%s recipe=%s", cluster.K8sVersion, cluster.EtcdVersion,
		cluster.KwokVersion, strings.TrimSpace(string(goVersion)), cluster.Hash()), nil
}

// openBuildLog creates the build's log, next to the sandboxes' logs.
func openBuildLog(opts Options) (*os.File, error) {
	logPath := filepath.Join(filepath.Dir(LogFile(opts)), "build.log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, wrapMsg(err, "sandbox.err.log_dir")
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, wrapMsg(err, "sandbox.err.log_open")
	}
	return logf, nil
}

// unpackRecipe writes the recipe's modules under src, one directory each.
func unpackRecipe(src string) error {
	for _, m := range cluster.Modules() {
		for p, data := range m.Files {
			dst := filepath.Join(src, m.Dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// install moves every binary built in tmp into the bin dir, once all of
// them are there, and then writes the stamp that says what they are.
func install(opts Options, tmp, logPath, stamp, want string) error {
	for _, b := range Binaries {
		if _, err := os.Stat(filepath.Join(tmp, b)); err != nil {
			return wrapMsg(err, "sandbox.build.missing_after", "binary", b, "log", logPath)
		}
	}
	for _, b := range Binaries {
		if err := os.Rename(filepath.Join(tmp, b), opts.bin(b)); err != nil {
			return wrapMsg(err, "sandbox.err.bin_dir", "bin_dir", opts.BinDir)
		}
	}
	// What was built, as it was built: sandbox status and doctor say
	// when a binary no longer matches (prebuilt.Changed).
	if err := prebuilt.Record(opts.BinDir, Binaries); err != nil {
		return wrapMsg(err, "sandbox.err.bin_dir", "bin_dir", opts.BinDir)
	}
	if err := lockfile.WriteAtomic(stamp, []byte(want+"\n"), 0o644); err != nil {
		return wrapMsg(err, "sandbox.err.bin_dir", "bin_dir", opts.BinDir)
	}
	return nil
}

// k8sLdflags stamp version metadata the way upstream's
// hack/lib/version.sh does; kwokctl reads `--version` to pick each
// component's flags.
func k8sLdflags(now time.Time) string {
	minor := strings.SplitN(strings.TrimPrefix(cluster.K8sVersion, "v1."), ".", 2)[0]
	flags := []string{"-s", "-w"}
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		flags = append(flags,
			"-X", pkg+".gitVersion="+cluster.K8sVersion, "-X", pkg+".gitMajor=1", "-X", pkg+".gitMinor="+minor,
			"-X", pkg+".gitTreeState=clean", "-X", pkg+".buildDate="+now.UTC().Format("2006-01-02T15:04:05Z"))
	}
	return strings.Join(flags, " ")
}
