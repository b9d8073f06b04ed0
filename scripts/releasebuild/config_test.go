package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const root = "../.."

// The checked-in config has everything labmate's release relies on.
func TestReleaseConfig(t *testing.T) {
	cfg, err := Load(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(root); err != nil {
		t.Errorf(".goreleaser.yaml:\n%v", err)
	}
}

// Each way a config can lose what the release relies on is caught, with
// the field named.
func TestReleaseConfigBroken(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, old, new, want string }{
		{"version not injected", "-X main.version={{ .Version }}", "-X main.commit={{ .Version }}", "main.version"},
		{"ldflags template field unknown", "{{ .Version }}", "{{ .Tag }}", "builds[0].ldflags"},
		{"other main", "main: ./cmd/labmate", "main: ./scripts/benchwatch", "builds[0].main"},
		{"no README", "      - README.md\n", "", "README.md"},
		{"docs pattern matches nothing", "docs/*.md", "doc/*.md", "docs/*.md"},
		{"cgo on", "CGO_ENABLED=0", "CGO_ENABLED=1", "CGO_ENABLED=0"},
		{"no darwin", "      - darwin\n", "", "darwin"},
		{"no trimpath", "      - -trimpath\n", "      - -v\n", "-trimpath"},
		{"zip", "formats: [tar.gz]", "formats: [zip]", "formats"},
		{"schema v1", "version: 2", "version: 1", "version"},
		{"name without the arch", "_{{ .Arch }}\"\n    files", "\"\n    files", "name_template"},
		{"no rpm", "formats: [deb, rpm]", "formats: [deb]", "nfpms[0].formats"},
		{"package of another build", "  - id: labmate\n    ids: [labmate]\n    package_name", "  - id: labmate\n    ids: [other]\n    package_name", "nfpms[0].ids"},
		{"packaged file missing", "src: README.md", "src: READ.md", "nfpms[0].contents"},
		{"binary off PATH", "bindir: /usr/bin", "bindir: /opt/labmate", "nfpms[0].bindir"},
		{"cask of another archive", "ids: [labmate]\n    binaries", "ids: [other]\n    binaries", "homebrew_casks[0].ids"},
		{"no cask", "homebrew_casks:", "other_casks:", "homebrew_casks"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(string(good), c.old) {
				t.Fatalf("the config has no %q to break", c.old)
			}
			path := filepath.Join(t.TempDir(), ".goreleaser.yaml")
			if err := os.WriteFile(path, []byte(strings.Replace(string(good), c.old, c.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			err = cfg.Validate(root)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate = %v, want an error naming %q", err, c.want)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("a missing config loaded")
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("builds: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil {
		t.Error("a config that is not YAML loaded")
	}
}

// -X main.version needs a package-level string variable version in a main
// package: the linker ignores -X for a name that does not exist.
func TestDeclaresVersion(t *testing.T) {
	for _, c := range []struct {
		name, src string
		ok        bool
	}{
		{"typed", "package main\n\nvar version string\n", true},
		{"literal", "package main\n\nvar version = \"dev\"\n", true},
		{"grouped", "package main\n\nvar (\n\tcommit = \"x\"\n\tversion = \"dev\"\n)\n", true},
		{"not a string", "package main\n\nvar version = 3\n", false},
		{"a constant", "package main\n\nconst version = \"dev\"\n", false},
		{"local", "package main\n\nfunc main() { var version = \"dev\"; _ = version }\n", false},
		{"not main", "package labmate\n\nvar version = \"dev\"\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := declaresVersion(dir); (err == nil) != c.ok {
				t.Errorf("declaresVersion = %v, want ok %v", err, c.ok)
			}
		})
	}
	if err := declaresVersion(filepath.Join(root, "cmd", "labmate")); err != nil {
		t.Errorf("cmd/labmate: %v", err)
	}
}

// releaseFiles are the files whose goreleaser check `make release-check`
// records in scripts/release-check.sum.
var releaseFiles = []string{".goreleaser.yaml", "scripts/release-check.sh", "scripts/goreleaser-bin.sh"}

// The record of the last goreleaser check is current: a release file
// changed since it fails here, so the change is checked with goreleaser
// (`make release-check`, which rewrites the record) before it is merged.
// scripts/test.sh runs that check itself when the record is stale.
func TestReleaseCheckRecordIsCurrent(t *testing.T) {
	f, err := os.Open(filepath.Join(root, "scripts", "release-check.sum"))
	if err != nil {
		t.Fatalf("no record of a goreleaser check: %v (run make release-check)", err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, path, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("record line %q is not sha256sum's", sc.Text())
		}
		listed[path] = true
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		got := sha256.Sum256(b)
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s changed since the last goreleaser check: run make release-check (it updates scripts/release-check.sum)", path)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, p := range releaseFiles {
		if !listed[p] {
			t.Errorf("scripts/release-check.sum does not record %s", p)
		}
	}
}
