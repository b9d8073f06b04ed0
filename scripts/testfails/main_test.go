package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The report comes from real `go test -json` output: a module with a
// passing test, a failing subtest, a test that panics and a package
// that does not build.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("a/a_test.go", `package a

import "testing"

func TestGood(t *testing.T) { t.Log("fine") }

func TestOuter(t *testing.T) {
	t.Run("inner", func(t *testing.T) {
		t.Log("what it saw: 3 pods")
		t.Error("want 4 pods")
	})
}
`)
	write("b/b_test.go", `package b

import "testing"

func TestPanics(t *testing.T) { var m map[string]int; m["x"] = 1 }
`)
	write("c/c_test.go", `package c

import "testing"

func TestNever(t *testing.T) { undefined() }
`)
	cmd := exec.Command("go", "test", "-json", "./...")
	cmd.Dir = dir
	// The environment as it is: under scripts/test.sh its GOFLAGS, whose
	// compiled standard library is in the build cache already.
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, _ := cmd.Output() // it fails: that is the point
	r, err := read(bytes.NewReader(out), 6)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	writeReport(&buf, r)
	got := buf.String()
	t.Logf("report:\n%s", got)
	for _, want := range []string{
		"FAIL example.com/m/a TestOuter/inner",
		"what it saw: 3 pods",
		"want 4 pods",
		"FAIL example.com/m/b TestPanics",
		"assignment to entry in nil map",
		"FAIL example.com/m/c (no failed test",
		"undefined: undefined",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for _, not := range []string{"TestGood", "FAIL example.com/m/a TestOuter (", "=== RUN", "--- FAIL"} {
		if strings.Contains(got, not) {
			t.Errorf("the report has %q", not)
		}
	}
}
