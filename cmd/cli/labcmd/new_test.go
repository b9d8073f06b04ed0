package labcmd

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/labkit"
)

// newLab runs `lab new` for id in a temporary directory and returns the
// lab's directory and what it printed.
func newLab(t *testing.T, id string) (dir, out string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "labs", id)
	code, out, errOut := run(t, "new", dir)
	if code != cli.ExitOK {
		t.Fatalf("lab new: exit %d\n%s\n%s", code, out, errOut)
	}
	return dir, out
}

// A new lab proves green as it is made: its file step with the wrong
// answer it declares and its reference (the cluster step needs a
// sandbox: TestANewLabProvesItselfOnASandbox), and it says what to run
// next, each command naming its directory.
func TestANewLabProvesItself(t *testing.T) {
	dir, out := newLab(t, "first-lab")
	for _, next := range []string{"labmate lab verify " + dir + " --mutants", "labmate sandbox up --lab-dir " + dir,
		"labmate lab eval " + dir, "labmate --lab-dir " + dir} {
		if !strings.Contains(out, next) {
			t.Errorf("lab new does not say %q:\n%s", next, out)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "reference", "bin", "hello.sh")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("the reference script is not executable: %v %v", fi, err)
	}
	code, table, errOut := run(t, "verify", dir, "--no-cluster", "--mutants")
	if code != cli.ExitOK {
		t.Fatalf("lab verify of a new lab: exit %d\n%s\n%s", code, table, errOut)
	}
	for _, row := range []string{"오답 not-executable", "참고 풀이", "화면", "메시지 키"} {
		if !strings.Contains(table, row) {
			t.Errorf("the proof has no row %q:\n%s", row, table)
		}
	}
	if failed := failedRows(table); len(failed) > 0 {
		t.Errorf("rows failed: %q", failed)
	}
}

// A new lab's lab.toml and verify.toml name their JSON Schema in their
// first line, as the shipped labs do: in a labmate checkout its
// schema/, relative to the file; elsewhere a copy written into the lab,
// the schemas this labmate decodes with.
func TestANewLabNamesItsSchema(t *testing.T) {
	firstLines := func(dir string) (lab, verify string) {
		t.Helper()
		for _, f := range []struct {
			name string
			to   *string
		}{{"lab.toml", &lab}, {"verify.toml", &verify}} {
			raw, err := os.ReadFile(filepath.Join(dir, f.name))
			if err != nil {
				t.Fatal(err)
			}
			*f.to, _, _ = strings.Cut(string(raw), "\n")
		}
		return lab, verify
	}

	dir, _ := newLab(t, "outside")
	lab, verify := firstLines(dir)
	if lab != "#:schema ./schema/lab.schema.json" || verify != "#:schema ./schema/verify.schema.json" {
		t.Errorf("outside a checkout: %q, %q", lab, verify)
	}
	want, wantVerify, err := labkit.Schemas()
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string][]byte{"lab.schema.json": want, "verify.schema.json": wantVerify} {
		got, err := os.ReadFile(filepath.Join(dir, "schema", f))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("the lab's schema/%s is not this labmate's schema (%v)", f, err)
		}
	}

	// A checkout: go.mod of labmate's module and the published schemas.
	repo := testfiles.Dir(t, map[string]string{
		"go.mod":                    "module github.com/labhub/labmate\n\ngo 1.25\n",
		"schema/lab.schema.json":    "{}",
		"schema/verify.schema.json": "{}",
	})
	in := filepath.Join(repo, "content", "labs", "inside")
	if code, out, errOut := run(t, "new", in); code != cli.ExitOK {
		t.Fatalf("lab new: exit %d\n%s\n%s", code, out, errOut)
	}
	lab, verify = firstLines(in)
	if lab != "#:schema ../../../schema/lab.schema.json" || verify != "#:schema ../../../schema/verify.schema.json" {
		t.Errorf("in a checkout: %q, %q", lab, verify)
	}
	if _, err := os.Stat(filepath.Join(in, "schema")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("in a checkout the lab has a copy of the schemas: %v", err)
	}
}

// Without its reference the new lab fails its proof (exit 1), on the
// solution's row, naming the answer that is not there.
func TestANewLabWithoutItsReferenceFails(t *testing.T) {
	dir, _ := newLab(t, "no-ref")
	if err := os.RemoveAll(filepath.Join(dir, "reference")); err != nil {
		t.Fatal(err)
	}
	code, table, errOut := run(t, "verify", dir, "--no-cluster")
	if code != cli.ExitFail {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, cli.ExitFail, table, errOut)
	}
	solved := false
	for _, row := range failedRows(table) {
		if strings.Contains(row, "참고 풀이") && strings.Contains(row, "bin/hello.sh") {
			solved = true
		}
	}
	if !solved {
		t.Errorf("no failed solution row naming bin/hello.sh:\n%s", table)
	}
}

// lab new writes nothing into a directory that is there, and refuses an
// ID that cannot name the lab and its namespace, in Korean (exit 2).
func TestLabNewRefuses(t *testing.T) {
	there := filepath.Join(t.TempDir(), "mine")
	if err := os.MkdirAll(there, 0o755); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(there, "lab.toml")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ arg, says string }{
		{there, "이미 있습니다"},
		{filepath.Join(t.TempDir(), "My_Lab"), "쓸 수 없습니다"},
		{filepath.Join(t.TempDir(), "9lives"), "쓸 수 없습니다"},
		{filepath.Join(t.TempDir(), "kube-system"), "쿠버네티스가 쓰는"},
		{filepath.Join(t.TempDir(), "default"), "쿠버네티스가 쓰는"},
	} {
		code, out, errOut := run(t, "new", tc.arg)
		if code != cli.ExitUsage || !strings.Contains(errOut, tc.says) || out != "" {
			t.Errorf("lab new %s: exit %d, stdout %q, stderr %q; want 2 saying %q", tc.arg, code, out, errOut, tc.says)
		}
		if tc.arg != there {
			if _, err := os.Stat(tc.arg); err == nil {
				t.Errorf("lab new %s made the directory it refused", tc.arg)
			}
		}
	}
	if b, _ := os.ReadFile(keep); string(b) != "mine" {
		t.Errorf("the file that was there is now %q", b)
	}
}

var hangul = regexp.MustCompile(`\p{Hangul}`)

// What lab new says and what it writes for the author and the learner to
// read is Korean: every line it prints but a command line, every comment
// of its TOML, every page's prose line outside code, every message,
// title, hint and reason.
func TestANewLabSpeaksKorean(t *testing.T) {
	_, out := newLab(t, "korean")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "labmate ") && !hangul.MatchString(line) {
			t.Errorf("lab new printed a line that is not Korean: %q", line)
		}
	}
	files, err := content.Scaffold("korean", "korean", "./schema")
	if err != nil {
		t.Fatal(err)
	}
	// The keys whose values are text: lab.toml's title and hints,
	// verify.toml's reasons, every value of messages.toml.
	prose := map[string]*regexp.Regexp{
		"lab.toml":      regexp.MustCompile(`^(title|hints) = `),
		"verify.toml":   regexp.MustCompile(`^reason = `),
		"messages.toml": regexp.MustCompile(`^[a-z_]+ = `),
	}
	for _, f := range files {
		text := string(f.Data)
		switch {
		case strings.HasSuffix(f.Path, ".md"):
			code := false
			for _, line := range strings.Split(text, "\n") {
				if strings.HasPrefix(line, "```") {
					code = !code
					continue
				}
				// A heading of the lab's ID alone is its name.
				if words := strings.TrimLeft(line, "# "); !code && words != "" && words != "korean" && !hangul.MatchString(line) {
					t.Errorf("%s: a line that is not Korean: %q", f.Path, line)
				}
			}
		case strings.HasSuffix(f.Path, ".toml"):
			for _, line := range strings.Split(text, "\n") {
				line = strings.TrimSpace(line)
				// A command, and the editor's schema directive, are not prose.
				comment := strings.HasPrefix(line, "#") && !strings.HasPrefix(strings.TrimLeft(line, "# "), "labmate ") &&
					!strings.HasPrefix(line, "#:schema ")
				if (comment || prose[f.Path] != nil && prose[f.Path].MatchString(line)) && !hangul.MatchString(line) {
					t.Errorf("%s: a comment or text that is not Korean: %q", f.Path, line)
				}
			}
		}
	}
}
