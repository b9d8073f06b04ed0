// Package containerd is the recipe for the containerd binaries whose own
// code proves what the labs say about containerd (e2e/containerdproof):
// upstream's cmd/containerd of one 1.x and one 2.x release, built from
// the Go module proxy, and cached like the cluster's binaries: in
// ${XDG_CACHE_HOME:-~/.cache}/labmate/containerd/<version> with a stamp
// naming what they were built from, under a lock, so a second build
// waits and a current one is a stamp check.
//
// Each release is a module of its own here (_v1, _v2: go.mod kept as
// go.mod.in so go:embed reaches it, and the leading underscore keeps the
// root module's ./... out), which requires only containerd at its tag, so
// the dependency versions built are upstream's own (the go command selects
// what containerd's go.mod requires; its exclude directive is copied, as
// a dependency's excludes do not apply), and whose go.sum pins them. `go
// install MODULE/cmd/containerd@VERSION` would be simpler, but refuses a
// module whose go.mod excludes anything, as v1.7.29's does.
//
// The build is kept small: only cmd/containerd, no cgo (the btrfs
// snapshotter, the one plugin that needs a C library, is left out by
// upstream's own `cgo` constraint), the snapshotters no lab speaks of
// left out by upstream's build tags, -trimpath, no DWARF, stripped.
package containerd

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/labhub/labmate/internal/dirs"
	"github.com/labhub/labmate/internal/lockfile"
)

// Release is one containerd release the proof builds.
type Release struct {
	// Line is the name a lab's claims.toml uses for it: "1.7", "2.2".
	Line string
	// Module and Version: the Go module and its release tag.
	Module, Version string
	// recipe is its module's directory in this package.
	recipe string
}

// Releases are the builds, oldest first. 1.7.29: the 1.x release the labs
// name. 2.2.9: the newest 2.2 release the module proxy serves; 2.2 is the
// 2.x line the labs' claims about 2.0–2.2 are made of (the drop-in version
// check of v2.3.0–v2.3.4 and v2.4.0-beta.0 stays a claim read in the code).
var Releases = []Release{
	{Line: "1.7", Module: "github.com/containerd/containerd", Version: "v1.7.29", recipe: "_v1"},
	{Line: "2.2", Module: "github.com/containerd/containerd/v2", Version: "v2.2.9", recipe: "_v2"},
}

//go:embed _v1 _v2
var recipes embed.FS

// Find returns the release of a line.
func Find(line string) (Release, bool) {
	for _, r := range Releases {
		if r.Line == line {
			return r, true
		}
	}
	return Release{}, false
}

// Tags are upstream's build tags (its Makefile's and cmd/containerd/
// builtins' constraints) that leave out the snapshotters no lab speaks
// of, and the CLI's man-page generator.
const Tags = "no_btrfs no_zfs no_devmapper no_aufs urfave_cli_no_docs"

// Dir is where a release's binary is cached.
func Dir(r Release) string {
	return filepath.Join(dirs.Cache(), "labmate", "containerd", r.Version)
}

// files are a release's recipe module, go.mod.in under its real name.
func (r Release) files() (map[string][]byte, error) {
	out := map[string][]byte{}
	err := fs.WalkDir(recipes, r.recipe, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := recipes.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, r.recipe+"/")
		if path.Base(name) == "go.mod.in" {
			name = path.Join(path.Dir(name), "go.mod")
		}
		out[name] = data
		return nil
	})
	return out, err
}

// hash identifies a release's recipe: sha256 over "sha256  name" lines
// sorted by name, as sha256sum lists them.
func hash(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		sum := sha256.Sum256(files[n])
		b.WriteString(hex.EncodeToString(sum[:]) + "  " + n + "\n")
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// Build returns the path of r's containerd, building it first unless the
// cached one's stamp says it is what this recipe and this Go make. The
// go command's output goes to log.
func Build(ctx context.Context, r Release, log io.Writer) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("containerd: the go command is not on PATH")
	}
	files, err := r.files()
	if err != nil {
		return "", err
	}
	dir := Dir(r)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lockfile.Lock(ctx, filepath.Join(dir, ".lock"), lockfile.Options{
		Waiting: func() { fmt.Fprintf(log, "containerd %s: waiting for another build (%s)\n", r.Version, dir) }})
	if err != nil {
		return "", err
	}
	defer unlock()

	goVersion, err := exec.CommandContext(ctx, goBin, "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("containerd: go env GOVERSION: %w", err)
	}
	want := fmt.Sprintf("%s@%s go=%s tags=%s recipe=%s", r.Module, r.Version,
		strings.TrimSpace(string(goVersion)), Tags, hash(files))
	bin := filepath.Join(dir, "containerd")
	stamp := filepath.Join(dir, ".stamp")
	if have, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(have)) == want {
		if _, err := os.Stat(bin); err == nil {
			return bin, nil
		}
	}

	tmp, err := os.MkdirTemp(dir, ".build.")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	for name, data := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return "", err
		}
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, goBin, "build", "-trimpath", "-tags", Tags,
		"-ldflags=-s -w", "-gcflags=all=-dwarf=false", "-o", filepath.Join(tmp, "containerd"),
		r.Module+"/cmd/containerd")
	// Never fetch a toolchain, ignore any go.work, no cgo; the go.sum is
	// the recipe's (read-only). GOFLAGS from outside (a test run's, say)
	// do not apply to this build.
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "CGO_ENABLED=0",
		"GOFLAGS=-mod=readonly -buildvcs=false")
	cmd.Dir = src
	cmd.Stdout, cmd.Stderr = log, log
	fmt.Fprintf(log, "containerd %s: go %s\n", r.Version, strings.Join(cmd.Args[1:], " "))
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("containerd: building %s@%s: %w", r.Module, r.Version, err)
	}
	if err := os.Rename(filepath.Join(tmp, "containerd"), bin); err != nil {
		return "", err
	}
	if err := lockfile.WriteAtomic(stamp, []byte(want+"\n"), 0o644); err != nil {
		return "", err
	}
	fmt.Fprintf(log, "containerd %s: built in %s\n", r.Version, time.Since(start).Round(time.Second))
	return bin, nil
}
