package docs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"

	yaml "go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/syntax"

	"github.com/labhub/labmate/internal/testbin"
)

// readmeCommands are the commands of README.md's shell blocks, each as
// its words (comments dropped), parsed as shell.
func readmeCommands(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllSubmatch(b, -1)
	var out [][]string
	for _, bl := range blocks {
		f, err := syntax.NewParser().Parse(bytes.NewReader(bl[1]), "README.md")
		if err != nil {
			t.Fatalf("README.md: a shell block does not parse: %v\n%s", err, bl[1])
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
				var words []string
				for _, w := range c.Args {
					words = append(words, w.Lit())
				}
				out = append(out, words)
			}
			return true
		})
	}
	if len(out) < 8 {
		t.Fatalf("%d commands in README.md's shell blocks: the test reads nothing", len(out))
	}
	return out
}

// TestReadmeCommandsRun: every command the README gives a learner or a
// contributor works as written. labmate's command lines parse (the
// command and every flag exist: `--help` on them exits 0); make's
// targets exist; `go install` names the binary's package; the packages,
// the archive and the Homebrew cask are the ones .goreleaser.yaml
// makes; the kubeconfig to export is the sandbox's.
func TestReadmeCommandsRun(t *testing.T) {
	bin := testbin.Build(t, "../cmd/labmate")
	rel := releaseNames(t)
	seen := map[string]bool{}
	for _, words := range readmeCommands(t) {
		if words[0] == "sudo" {
			words = words[1:]
		}
		line := strings.Join(words, " ")
		switch words[0] {
		case "labmate":
			seen["labmate"] = true
			cmd := exec.Command(bin, append(words[1:], "--help")...)
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("README: %s: %v\n%s", line, err, out)
			}
		case "make":
			seen["make"] = true
			mk, err := os.ReadFile(filepath.Join("..", "Makefile"))
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(words[1]) + `:`).Match(mk) {
				t.Errorf("README: %s: the Makefile has no target %s", line, words[1])
			}
		case "go":
			seen["go"] = true
			pkg, _, _ := strings.Cut(words[len(words)-1], "@")
			if words[1] != "install" || pkg != module+"/cmd/labmate" {
				t.Errorf("README: %s: want go install %s/cmd/labmate@VERSION", line, module)
			}
		case "apt", "dnf", "tar":
			seen[words[0]] = true
			if !slices.ContainsFunc(words, func(w string) bool { return slices.Contains(rel, strings.TrimPrefix(w, "./")) }) {
				t.Errorf("README: %s names none of the release's files %v", line, rel)
			}
		case "brew":
			seen["brew"] = true
			if want := releaseCask(t); words[len(words)-1] != want {
				t.Errorf("README: %s: the release's cask is %s", line, want)
			}
		case "export":
			if kc, ok := strings.CutPrefix(words[1], "KUBECONFIG="); ok && kc != "~/.kwok/clusters/labmate/kubeconfig.yaml" {
				t.Errorf("README: %s: the sandbox's kubeconfig is ~/.kwok/clusters/labmate/kubeconfig.yaml", line)
			}
		}
	}
	for _, want := range []string{"labmate", "make", "go", "apt", "dnf", "tar", "brew"} {
		if !seen[want] {
			t.Errorf("README gives no %s command: install, the first lab and the two commands are its point", want)
		}
	}
}

// goreleaser is the part of .goreleaser.yaml that names what a release
// holds.
type goreleaser struct {
	ProjectName string `yaml:"project_name"`
	Archives    []struct {
		Formats      []string `yaml:"formats"`
		NameTemplate string   `yaml:"name_template"`
	} `yaml:"archives"`
	Nfpms []struct {
		PackageName      string   `yaml:"package_name"`
		FileNameTemplate string   `yaml:"file_name_template"`
		Formats          []string `yaml:"formats"`
	} `yaml:"nfpms"`
	HomebrewCasks []struct {
		Name       string `yaml:"name"`
		Repository struct {
			Owner string `yaml:"owner"`
			Name  string `yaml:"name"`
		} `yaml:"repository"`
	} `yaml:"homebrew_casks"`
}

func readGoreleaser(t *testing.T) goreleaser {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var g goreleaser
	if err := yaml.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// releaseNames are the release's archive and package files for
// linux/amd64 at version VERSION, as goreleaser names them.
func releaseNames(t *testing.T) []string {
	t.Helper()
	g := readGoreleaser(t)
	render := func(tmpl string, data map[string]string) string {
		var b strings.Builder
		if err := template.Must(template.New("").Parse(tmpl)).Execute(&b, data); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	data := map[string]string{"ProjectName": g.ProjectName, "Version": "VERSION", "Os": "linux", "Arch": "amd64"}
	var out []string
	for _, a := range g.Archives {
		for _, f := range a.Formats {
			out = append(out, render(a.NameTemplate, data)+"."+f)
		}
	}
	for _, n := range g.Nfpms {
		data["PackageName"] = n.PackageName
		for _, f := range n.Formats {
			out = append(out, render(n.FileNameTemplate, data)+"."+f)
		}
	}
	return out
}

// releaseCask is what `brew install --cask` names the release's cask
// by: OWNER/TAP/NAME for the tap repository OWNER/homebrew-TAP.
func releaseCask(t *testing.T) string {
	t.Helper()
	g := readGoreleaser(t)
	if len(g.HomebrewCasks) == 0 {
		t.Fatal(".goreleaser.yaml makes no Homebrew cask")
	}
	c := g.HomebrewCasks[0]
	return c.Repository.Owner + "/" + strings.TrimPrefix(c.Repository.Name, "homebrew-") + "/" + c.Name
}
