package labcmd

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/internal/testfiles"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/labkit/verify"
)

// ciProof is what a CI tool reads of `lab verify --json`.
type ciProof struct {
	Lab   string
	OK    bool
	Cases []verify.Case
}

// junitDoc is what a CI parser reads of a JUnit XML report, decoded with
// types of its own (the schema Jenkins and GitLab read), not labmate's.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// proveForCI runs `lab verify DIR --json --junit FILE ARGS...` and
// decodes both.
func proveForCI(t *testing.T, files map[string]string, args ...string) (int, ciProof, junitDoc) {
	t.Helper()
	dir := testfiles.Dir(t, files)
	report := filepath.Join(t.TempDir(), "proof.xml")
	code, out, errOut := run(t, append([]string{"verify", dir, "--json", "--junit", report}, args...)...)
	var proof ciProof
	if err := json.Unmarshal([]byte(out), &proof); err != nil {
		t.Fatalf("--json is not one JSON document: %v\n%s\n%s", err, out, errOut)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("--junit wrote no file: %v\n%s", err, errOut)
	}
	var doc junitDoc
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("the JUnit report does not decode: %v\n%s", err, raw)
	}
	return code, proof, doc
}

// A proof that holds is, for CI, every case passed: one suite per step
// and one for the lab, a case per wrong answer, the reference, and each
// near-miss with --mutants; the exit code is the table's.
func TestVerifyForCIWhenTheLabHolds(t *testing.T) {
	code, proof, doc := proveForCI(t, labkittest.FileLab(), "--mutants")
	if code != cli.ExitOK || !proof.OK {
		t.Fatalf("exit %d, ok %v: %+v", code, proof.OK, proof.Cases)
	}
	names := map[string]verify.Case{}
	mutants := 0
	for _, c := range proof.Cases {
		names[c.Name] = c
		if c.Mutant != "" {
			mutants++
		}
		if c.Status != verify.CasePassed {
			t.Errorf("case %q is %s in a proof that holds", c.Name, c.Status)
		}
	}
	for _, want := range []string{"오답 not-executable", "오답 port-as-string", "참고 풀이", "실습 정의"} {
		if _, ok := names[want]; !ok {
			t.Errorf("no case %q among %d", want, len(proof.Cases))
		}
	}
	if w := names["오답 not-executable"]; !strings.Contains(w.Expected, "chmod +x") {
		t.Errorf("the wrong answer's case does not carry the message it promises: %+v", w)
	}
	if mutants == 0 {
		t.Errorf("--mutants made no near-miss case: %+v", proof.Cases)
	}
	if doc.Tests != len(proof.Cases) || doc.Failures != 0 {
		t.Errorf("JUnit has %d tests, %d failures; JSON has %d cases", doc.Tests, doc.Failures, len(proof.Cases))
	}
	steps := map[string]bool{}
	for _, s := range doc.Suites {
		steps[s.Name] = true
		for _, c := range s.Cases {
			if c.Name == "" || c.Classname == "" || c.Time == "" {
				t.Errorf("suite %q has a case without name, classname or time: %+v", s.Name, c)
			}
		}
	}
	for _, want := range []string{"nginx-conf 전체", "nginx-conf 1단계", "nginx-conf 2단계"} {
		if !steps[want] {
			t.Errorf("no suite %q in %v", want, steps)
		}
	}
}

// A wrong answer the lab no longer refuses is a failed case in both, with
// what was seen; the exit code stays 1.
func TestVerifyForCIMarksAFailingCaseFailed(t *testing.T) {
	files := labkittest.FileLab()
	files["lab.toml"] = strings.Replace(files["lab.toml"], "executable = true\n", "", 1)
	code, proof, doc := proveForCI(t, files)
	if code != cli.ExitFail || proof.OK {
		t.Fatalf("exit %d, ok %v, want %d and false", code, proof.OK, cli.ExitFail)
	}
	var failed []string
	for _, c := range proof.Cases {
		if c.Status == verify.CaseFailed {
			failed = append(failed, c.Name)
		}
	}
	if len(failed) != 1 || failed[0] != "오답 not-executable" {
		t.Errorf("JSON's failed cases %q, want the one for not-executable", failed)
	}
	if doc.Failures != 1 {
		t.Errorf("JUnit counts %d failures, want 1", doc.Failures)
	}
	found := false
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Failure == nil {
				continue
			}
			found = true
			if c.Name != "오답 not-executable" || s.Failures != 1 || !strings.Contains(c.Failure.Message, "통과") ||
				!strings.Contains(c.Failure.Text, "chmod +x") {
				t.Errorf("suite %q's failed case %q: %+v", s.Name, c.Name, c.Failure)
			}
		}
	}
	if !found {
		t.Error("no <failure> in the JUnit report")
	}
}

// A JUnit file that cannot be written is said, with exit code 2.
func TestVerifyJUnitUnwritable(t *testing.T) {
	dir := testfiles.Dir(t, labkittest.FileLab())
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(notDir, "proof.xml") // under a file: no directory can be made
	code, out, errOut := run(t, "verify", dir, "--junit", file)
	if code != cli.ExitUsage || !strings.Contains(errOut, "JUnit 보고서") {
		t.Fatalf("exit %d, %q\n%s", code, errOut, out)
	}
}
