package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	yaml "go.yaml.in/yaml/v3"
)

// Config is the part of .goreleaser.yaml that labmate's release relies on
// and that this tool builds from; goreleaser reads the rest (checksum,
// changelog, release) and `make release-check` runs goreleaser on it.
type Config struct {
	Version     int       `yaml:"version"`
	ProjectName string    `yaml:"project_name"`
	Builds      []Build   `yaml:"builds"`
	Archives    []Archive `yaml:"archives"`
	// The packages a learner installs with one command (goreleaser
	// builds them; this tool only checks that they package labmate).
	Nfpms         []Nfpm         `yaml:"nfpms"`
	HomebrewCasks []HomebrewCask `yaml:"homebrew_casks"`
}

// Nfpm is one entry of nfpms (deb and rpm packages).
type Nfpm struct {
	IDs      []string `yaml:"ids"`
	Formats  []string `yaml:"formats"`
	Bindir   string   `yaml:"bindir"`
	Contents []struct {
		Src string `yaml:"src"`
		Dst string `yaml:"dst"`
	} `yaml:"contents"`
}

// HomebrewCask is one entry of homebrew_casks.
type HomebrewCask struct {
	Name     string   `yaml:"name"`
	IDs      []string `yaml:"ids"`
	Binaries []string `yaml:"binaries"`
}

// Build is one entry of builds.
type Build struct {
	ID      string   `yaml:"id"`
	Main    string   `yaml:"main"`
	Binary  string   `yaml:"binary"`
	Env     []string `yaml:"env"`
	Goos    []string `yaml:"goos"`
	Goarch  []string `yaml:"goarch"`
	Flags   []string `yaml:"flags"`
	Ldflags []string `yaml:"ldflags"`
}

// Archive is one entry of archives.
type Archive struct {
	ID           string   `yaml:"id"`
	Formats      []string `yaml:"formats"`
	NameTemplate string   `yaml:"name_template"`
	Files        []string `yaml:"files"`
}

// Load reads a goreleaser config with a YAML parser.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Config
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

// Vars are the template fields goreleaser gives a build's ldflags and an
// archive's name (a subset: the ones labmate's config uses).
type Vars struct {
	ProjectName, Version, Os, Arch string
}

// render executes a goreleaser template (Go text/template, as goreleaser
// uses) with v; a field goreleaser would know but this tool does not is an
// error, not an empty string.
func render(name, text string, v Vars) (string, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, map[string]string{
		"ProjectName": v.ProjectName, "Version": v.Version, "Os": v.Os, "Arch": v.Arch,
	}); err != nil {
		return "", err
	}
	return b.String(), nil
}

// LdflagsFor is the build's ldflags rendered for v, joined as goreleaser
// joins them.
func (b Build) LdflagsFor(v Vars) (string, error) {
	var out []string
	for i, l := range b.Ldflags {
		s, err := render(fmt.Sprintf("ldflags[%d]", i), l, v)
		if err != nil {
			return "", err
		}
		out = append(out, s)
	}
	return strings.Join(out, " "), nil
}

// Validate checks, against the repository at root, what labmate's release
// relies on: one build of ./cmd/labmate named labmate, static
// (CGO_ENABLED=0), for linux and darwin on amd64 and arm64, with -trimpath
// and the version injected into main.version (a string variable
// cmd/labmate declares); one tar.gz archive that carries README.md and
// docs/*.md, each pattern matching files that exist. It returns every
// problem, joined.
func (c *Config) Validate(root string) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Version != 2 {
		bad("version is %d, want 2 (goreleaser v2's schema)", c.Version)
	}
	if c.ProjectName != "labmate" {
		bad("project_name is %q, want labmate", c.ProjectName)
	}
	if len(c.Builds) != 1 {
		bad("%d builds, want the one of labmate", len(c.Builds))
	} else {
		errs = append(errs, c.Builds[0].validate(root)...)
	}
	if len(c.Archives) != 1 {
		bad("%d archives, want one", len(c.Archives))
	} else {
		errs = append(errs, c.Archives[0].validate(root)...)
	}
	errs = append(errs, c.validatePackages(root)...)
	return errors.Join(errs...)
}

// validatePackages checks the deb/rpm packages and the Homebrew cask:
// each made of labmate's build or archive, deb and rpm both, the binary
// on PATH, every packaged file there.
func (c *Config) validatePackages(root string) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if len(c.Nfpms) != 1 {
		bad("%d nfpms, want one (deb and rpm)", len(c.Nfpms))
	} else {
		n := c.Nfpms[0]
		if len(c.Builds) == 1 && !slices.Contains(n.IDs, c.Builds[0].ID) {
			bad("nfpms[0].ids %v does not name the build %q", n.IDs, c.Builds[0].ID)
		}
		for _, f := range []string{"deb", "rpm"} {
			if !slices.Contains(n.Formats, f) {
				bad("nfpms[0].formats lacks %s", f)
			}
		}
		if n.Bindir != "/usr/bin" {
			bad("nfpms[0].bindir is %q, want /usr/bin (on every PATH)", n.Bindir)
		}
		for _, ct := range n.Contents {
			if m, err := filepath.Glob(filepath.Join(root, ct.Src)); err != nil || len(m) == 0 {
				bad("nfpms[0].contents: %q matches no file", ct.Src)
			}
		}
	}
	if len(c.HomebrewCasks) != 1 {
		bad("%d homebrew_casks, want one", len(c.HomebrewCasks))
	} else {
		h := c.HomebrewCasks[0]
		if len(c.Archives) == 1 && !slices.Contains(h.IDs, c.Archives[0].ID) {
			bad("homebrew_casks[0].ids %v does not name the archive %q", h.IDs, c.Archives[0].ID)
		}
		if !slices.Contains(h.Binaries, "labmate") {
			bad("homebrew_casks[0].binaries lacks labmate")
		}
	}
	return errs
}

func (b Build) validate(root string) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if filepath.Clean(b.Main) != filepath.Join("cmd", "labmate") {
		bad("builds[0].main is %q, want ./cmd/labmate", b.Main)
	} else if err := declaresVersion(filepath.Join(root, b.Main)); err != nil {
		bad("builds[0].main: %v", err)
	}
	if b.Binary != "labmate" {
		bad("builds[0].binary is %q, want labmate", b.Binary)
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") {
		bad("builds[0].env lacks CGO_ENABLED=0: the release binary must be static")
	}
	for _, goos := range []string{"linux", "darwin"} {
		if !slices.Contains(b.Goos, goos) {
			bad("builds[0].goos lacks %s", goos)
		}
	}
	for _, arch := range []string{"amd64", "arm64"} {
		if !slices.Contains(b.Goarch, arch) {
			bad("builds[0].goarch lacks %s", arch)
		}
	}
	if !slices.Contains(b.Flags, "-trimpath") {
		bad("builds[0].flags lacks -trimpath")
	}
	const probe = "9.8.7-probe"
	ld, err := b.LdflagsFor(Vars{ProjectName: "labmate", Version: probe, Os: "linux", Arch: "amd64"})
	switch {
	case err != nil:
		bad("builds[0].ldflags: %v", err)
	case !slices.Contains(strings.Fields(ld), "main.version="+probe):
		bad("builds[0].ldflags %q do not set main.version to the release's version ({{ .Version }})", ld)
	}
	return errs
}

func (a Archive) validate(root string) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !slices.Equal(a.Formats, []string{"tar.gz"}) {
		bad("archives[0].formats is %v, want [tar.gz]", a.Formats)
	}
	name, err := render("name_template", a.NameTemplate, Vars{ProjectName: "labmate", Version: "1.2.3", Os: "linux", Arch: "amd64"})
	if err != nil {
		bad("archives[0].name_template: %v", err)
	} else if !strings.Contains(name, "1.2.3") || !strings.Contains(name, "linux") || !strings.Contains(name, "amd64") {
		bad("archives[0].name_template gives %q: the name must carry the version, OS and architecture", name)
	}
	for _, want := range []string{"README.md", "docs/*.md"} {
		if !slices.Contains(a.Files, want) {
			bad("archives[0].files lacks %s: the archive must carry the docs `labmate` points to", want)
		}
	}
	for _, f := range a.Files {
		if m, err := filepath.Glob(filepath.Join(root, f)); err != nil || len(m) == 0 {
			bad("archives[0].files: %q matches no file", f)
		}
	}
	return errs
}

// declaresVersion checks that the package in dir is a main package with a
// package-level string variable named version, which -X main.version sets
// (the linker ignores -X for a name that does not exist, silently).
func declaresVersion(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	isMain := false
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name != "main" {
			continue
		}
		isMain = true
		if hasStringVar(f, "version") {
			return nil
		}
	}
	if !isMain {
		return fmt.Errorf("%s is not a main package", dir)
	}
	return fmt.Errorf("%s declares no package-level string variable version for -X main.version", dir)
}

func hasStringVar(f *ast.File, name string) bool {
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name == name && isStringVar(vs, i) {
					return true
				}
			}
		}
	}
	return false
}

// isStringVar: the i-th name of vs is a string, by its type or by a string
// literal initialiser.
func isStringVar(vs *ast.ValueSpec, i int) bool {
	if id, ok := vs.Type.(*ast.Ident); ok {
		return id.Name == "string"
	}
	if vs.Type == nil && i < len(vs.Values) {
		lit, ok := vs.Values[i].(*ast.BasicLit)
		return ok && lit.Kind == token.STRING
	}
	return false
}
