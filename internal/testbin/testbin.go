// Package testbin builds the module's programs for tests that run them
// as a learner would (the real labmate in tmux, against a sandbox, the
// script sandbox's escape helper), and keeps go test's result cache
// honest about it.
//
// go test caches a package's result keyed on its test binary and on the
// files and environment the test read. A program the test builds with
// `go build` and runs is neither: without more, a change to
// labkit/verify would leave e2e's cached "ok" standing, since e2e's own
// test binary does not contain labkit/verify. Build therefore reads,
// before it builds, every directory the program is made of: its
// packages' directories in the module (`go list -deps`), the directories
// of the files they embed (labmate's labs), go.mod and go.sum, and the
// test's own package directory with everything below it (the testdata
// it may hand the program). The go command records each directory read,
// with the size and modification time of every file in it, as an input
// of the test run, so a change to any of them runs the package again,
// and a change elsewhere (another package's tests, docs, a program the
// test does not build) leaves its result standing.
package testbin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var (
	mu    sync.Mutex
	built = map[string]result{}
	// inputsRead: Build's inputs of each program, read once per test
	// process (the go command records them for the whole run).
	inputsRead = map[string]error{}
)

type result struct {
	path string
	err  error
}

// Build builds the main package pkg (a path relative to the test's
// package directory, as `go build` takes it, e.g. "../cmd/labmate") once
// per test binary and returns the program's path, in a directory the
// test process made and anyone may read and run (a script run as nobody
// calls the escape helper). Build fails the test when the build fails.
func Build(tb testing.TB, pkg string) string {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	// The inputs are read whatever built the program first: BuildFor's
	// narrower inputs must not stand for Build's.
	err, ok := inputsRead[pkg]
	if !ok {
		err = readProgramInputs(pkg)
		inputsRead[pkg] = err
	}
	if err != nil {
		tb.Fatal(err)
	}
	r, ok := built[pkg]
	if !ok {
		r = compile(pkg)
		built[pkg] = r
	}
	if r.err != nil {
		tb.Fatal(r.err)
	}
	return r.path
}

// BuildFor is Build for a test whose result depends on less than the
// whole module: instead of every directory, it reads (and so makes the
// go command record as the run's inputs) the module-relative directories
// in inputs: "dir" its own entries, "dir/..." with every directory below
// it. A lab's proof names its
// lab's data and the verifier's sources, so go test reruns it when they
// change and keeps its result when only another lab or the TUI did. The
// program is still built from the whole module (go build's own cache
// decides what it compiles).
func BuildFor(tb testing.TB, pkg string, inputs ...string) string {
	tb.Helper()
	root, err := ModuleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	for _, in := range inputs {
		var err error
		if dir, ok := strings.CutSuffix(in, "/..."); ok {
			err = readTree(filepath.Join(root, filepath.FromSlash(dir)))
		} else {
			_, err = os.ReadDir(filepath.Join(root, filepath.FromSlash(in)))
		}
		if err != nil {
			tb.Fatalf("testbin: input %s: %v", in, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	r, ok := built[pkg]
	if !ok {
		r = compile(pkg)
		built[pkg] = r
	}
	if r.err != nil {
		tb.Fatal(r.err)
	}
	return r.path
}

// ModuleDirs returns the module-relative directories of the module's
// packages pkgs import, themselves included (`go list -deps`): the Go
// sources a program's behaviour there comes from.
func ModuleDirs(pkgs ...string) ([]string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	abs, err := moduleDeps(root, root, false, pkgs...)
	if err != nil {
		return nil, err
	}
	dirs := make([]string, len(abs))
	for i, d := range abs {
		rel, _ := filepath.Rel(root, d) // inside root: moduleDeps kept only those
		dirs[i] = filepath.ToSlash(rel)
	}
	return dirs, nil
}

// readProgramInputs reads, so that the go command records them as the
// test run's inputs, the directories the main package pkg is built from
// (moduleDeps with embeds), go.mod and go.sum, and the test's own
// package tree.
func readProgramInputs(pkg string) error {
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	dirs, err := moduleDeps("", root, true, pkg)
	if err != nil {
		return err
	}
	if err := readDirs(dirs); err != nil {
		return err
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if _, err := os.ReadFile(filepath.Join(root, f)); err != nil {
			return fmt.Errorf("testbin: %v", err)
		}
	}
	return readTree(".")
}

// readDirs reads each directory's entries.
func readDirs(dirs []string) error {
	for _, d := range dirs {
		if _, err := os.ReadDir(d); err != nil {
			return fmt.Errorf("testbin: %v", err)
		}
	}
	return nil
}

// moduleDeps runs `go list -deps` on pkgs (paths as the go command takes
// them in dir, "" the test's own directory) and returns the directories
// in the module root of the packages it names. With embeds it adds each
// directory holding a file one of them embeds, and those between it and
// its package's: a file added to an embedded tree changes one of them.
func moduleDeps(dir, root string, embeds bool, pkgs ...string) ([]string, error) {
	// One line per package: its directory, then the files it embeds,
	// tab-separated.
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", `{{if not .Standard}}{{.Dir}}{{range .EmbedFiles}}{{"\t"}}{{.}}{{end}}{{"\n"}}{{end}}`}, pkgs...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %v", strings.Join(pkgs, " "), err)
	}
	seen := map[string]bool{}
	var dirs []string
	add := func(dir string) {
		if !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		pkgDir := f[0]
		if rel, err := filepath.Rel(root, pkgDir); err != nil || strings.HasPrefix(rel, "..") {
			continue // outside the module: the module cache does not change
		}
		add(pkgDir)
		if !embeds {
			continue
		}
		for _, e := range f[1:] {
			for d := filepath.Dir(filepath.Join(pkgDir, filepath.FromSlash(e))); d != pkgDir && strings.HasPrefix(d, pkgDir); d = filepath.Dir(d) {
				add(d)
			}
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("testbin: go list -deps %s named no directory of the module", strings.Join(pkgs, " "))
	}
	return dirs, nil
}

// compile builds pkg into this test process's directory.
func compile(pkg string) result {
	removeStale()
	dir := filepath.Join(os.TempDir(), prefix+strconv.Itoa(os.Getpid()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return result{err: err}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return result{err: err}
	}
	path := filepath.Join(dir, filepath.Base(pkg))
	out, err := exec.Command("go", "build", "-o", path, pkg).CombinedOutput()
	if err != nil {
		return result{err: fmt.Errorf("go build %s: %v\n%s", pkg, err, out)}
	}
	return result{path: path}
}

// prefix names the directories Build makes: one per test process,
// prefix + its pid, so test binaries running at once never overwrite
// each other's programs.
const prefix = "labmate-testbin-"

// removeStale removes the directories of test processes that have ended
// (a test binary cannot clean up after its last test without a
// TestMain, so the next one does).
func removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), prefix))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			_ = os.RemoveAll(d)
		}
	}
}

// ModuleRoot is the directory of the go.mod above the working directory
// (a test runs in its package's directory). Not runtime.Caller: under
// -trimpath (scripts/test.sh) a source file's path is its import path.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testbin: no go.mod above the test's directory")
		}
		dir = parent
	}
}

// readTree opens every directory under root except version control and
// hidden ones: go test records each open directory's entries with their
// sizes and times as an input of the run.
func readTree(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		return nil
	})
}

// Remove removes the programs this test process built; a TestMain calls
// it after m.Run (without one, the next test process that builds removes
// them).
func Remove() {
	_ = os.RemoveAll(filepath.Join(os.TempDir(), prefix+strconv.Itoa(os.Getpid())))
}
