// Command releasebuild builds labmate for this machine as .goreleaser.yaml's
// build does (its main, env, flags and ldflags) and packs it as its
// archive does (the binary and the archive's files), with the go command
// and the standard library instead of goreleaser.
//
// Why not goreleaser: a fresh machine would build goreleaser from source
// first (its module graph is larger than labmate's: about six minutes on
// two cores) on every default test run. The default run
// (scripts/test.sh) uses this tool for the release-archive sandbox check
// (scripts/archive-sandbox-check.sh), and its test validates the config's
// fields this tool and labmate rely on; goreleaser itself runs in
// `make release-check` (scripts/release-check.sh), which the default run
// calls only when the release files changed since the recorded check
// (scripts/release-check.sum).
//
//	go run ./scripts/releasebuild -o DIR [-version V]
//
// Run from the repository root. It prints the archive's path.
package main

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

func main() {
	out := flag.String("o", "", "directory for the binary and the archive")
	version := flag.String("version", "0.0.0-archive-check", "the version injected into the binary")
	config := flag.String("config", ".goreleaser.yaml", "the goreleaser config")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/releasebuild -o DIR [-version V] [-config FILE]")
		os.Exit(2)
	}
	archive, err := run(*config, ".", *out, *version)
	if err != nil {
		fmt.Fprintln(os.Stderr, "releasebuild:", err)
		os.Exit(1)
	}
	fmt.Println(archive)
}

// run validates the config, builds the binary into out, checks that it
// reports version, and packs the archive; it returns the archive's path.
func run(config, root, out, version string) (string, error) {
	cfg, err := Load(config)
	if err != nil {
		return "", err
	}
	if err := cfg.Validate(root); err != nil {
		return "", fmt.Errorf("%s: %w", config, err)
	}
	v := Vars{ProjectName: cfg.ProjectName, Version: version, Os: runtime.GOOS, Arch: runtime.GOARCH}
	b := cfg.Builds[0]
	if !slices.Contains(b.Goos, v.Os) || !slices.Contains(b.Goarch, v.Arch) {
		return "", fmt.Errorf("%s/%s is not a target of %s", v.Os, v.Arch, config)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(out, b.Binary)
	if err := build(b, root, bin, v); err != nil {
		return "", err
	}
	if err := checkVersion(bin, b.Binary, version); err != nil {
		return "", err
	}
	a := cfg.Archives[0]
	name, err := render("name_template", a.NameTemplate, v)
	if err != nil {
		return "", err
	}
	archive := filepath.Join(out, name+".tar.gz")
	return archive, pack(archive, root, bin, a.Files)
}

func build(b Build, root, bin string, v Vars) error {
	ld, err := b.LdflagsFor(v)
	if err != nil {
		return err
	}
	args := append([]string{"build"}, b.Flags...)
	args = append(args, "-ldflags="+ld, "-o", bin, b.Main)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), b.Env...)
	cmd.Env = append(cmd.Env, "GOOS="+v.Os, "GOARCH="+v.Arch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// checkVersion: the binary says the injected version (a -X that names no
// variable is silently ignored by the linker).
func checkVersion(bin, name, version string) error {
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return fmt.Errorf("%s version: %w", bin, err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	if want := name + " " + version; strings.TrimSpace(first) != want {
		return fmt.Errorf("%s version says %q, want %q: the version is not injected", bin, first, want)
	}
	return nil
}

// pack writes a tar.gz of the binary at its top and every file the
// archive's patterns match, under its path relative to root, as goreleaser
// packs an archive without wrap_in_directory.
func pack(archive, root, bin string, patterns []string) (err error) {
	f, err := os.Create(archive)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	if err := addFile(tw, bin, filepath.Base(bin)); err != nil {
		return err
	}
	for _, p := range patterns {
		matches, err := filepath.Glob(filepath.Join(root, p))
		if err != nil {
			return err
		}
		slices.Sort(matches)
		for _, m := range matches {
			rel, err := filepath.Rel(root, m)
			if err != nil {
				return err
			}
			if err := addFile(tw, m, filepath.ToSlash(rel)); err != nil {
				return err
			}
		}
	}
	return errors.Join(tw.Close(), gz.Close())
}

func addFile(tw *tar.Writer, path, name string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	h, err := tar.FileInfoHeader(fi, "")
	if err != nil {
		return err
	}
	h.Name = name
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = io.Copy(tw, src)
	return err
}
