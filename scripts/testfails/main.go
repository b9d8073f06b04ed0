// Command testfails reads `go test -json` event files and prints what
// failed: each failed test (the innermost of a chain of failed subtests)
// with the first lines of its own output, and each package that failed
// with no failed test of its own (a build failure, a panic outside a
// test, a timeout) with the last lines of its output. scripts/test.sh
// runs it at the end of a failing run, so that the last lines of the
// log, often all a CI view keeps, say what failed and why.
//
//	go run ./scripts/testfails [-lines 6] FILE...
//
// It exits 0 whatever it finds (it reports; the run's status is the
// tests'), and 1 only when a file cannot be read.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode"
)

// event is the part of a test2json event this reads.
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	Elapsed     float64
	ImportPath  string // build-output: the package being built
	FailedBuild string // a package's fail: the build that failed
}

type key struct{ pkg, test string }

// report is what the files say failed.
type report struct {
	// tests: failed tests, innermost only, in the order they failed.
	tests []failure
	// pkgs: packages that failed with no failed test.
	pkgs []failure
}

type failure struct {
	name    string
	elapsed float64
	lines   []string
}

func main() {
	n := flag.Int("lines", 6, "lines of output shown for each failure")
	flag.Parse()
	var readers []io.Reader
	for _, f := range flag.Args() {
		file, err := os.Open(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testfails:", err)
			os.Exit(1)
		}
		defer file.Close()
		readers = append(readers, file)
	}
	r, err := read(io.MultiReader(readers...), *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testfails:", err)
		os.Exit(1)
	}
	writeReport(os.Stdout, r)
}

// read collects the failures of the event stream, keeping n lines of
// output for each.
func read(in io.Reader, n int) (report, error) {
	output := map[key][]string{}
	build := map[string][]string{} // import path -> build output
	var failed []key
	elapsed := map[key]float64{}
	failedBuild := map[key]string{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue // go test's own lines between events
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			continue // a line cut off by a killed run
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output":
			output[k] = append(output[k], e.Output)
		case "build-output":
			build[e.ImportPath] = append(build[e.ImportPath], e.Output)
		case "fail":
			failed = append(failed, k)
			elapsed[k] = e.Elapsed
			failedBuild[k] = e.FailedBuild
		}
	}
	if err := sc.Err(); err != nil {
		return report{}, err
	}
	// A test whose subtest failed is reported through that subtest; a
	// package with a failed test through the test.
	inner := map[key]bool{}
	for _, k := range failed {
		for parent := k.test; parent != ""; {
			i := strings.LastIndexByte(parent, '/')
			if i < 0 {
				parent = ""
			} else {
				parent = parent[:i]
			}
			inner[key{k.pkg, parent}] = true
		}
	}
	var r report
	for _, k := range failed {
		if inner[k] {
			continue
		}
		if k.test != "" {
			r.tests = append(r.tests, failure{k.pkg + " " + k.test, elapsed[k], first(output[k], n)})
			continue
		}
		lines := append(build[failedBuild[k]], output[k]...)
		r.pkgs = append(r.pkgs, failure{k.pkg, elapsed[k], last(lines, n)})
	}
	sort.SliceStable(r.pkgs, func(i, j int) bool { return r.pkgs[i].name < r.pkgs[j].name })
	return r, nil
}

// noise: the lines go test writes around a test's own output.
func noise(s string) bool {
	t := strings.TrimSpace(s)
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- FAIL", "--- PASS", "--- SKIP", "FAIL", "PASS", "ok "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return t == ""
}

// first returns the first n lines of a test's own output.
func first(out []string, n int) []string {
	var lines []string
	for _, s := range out {
		if noise(s) {
			continue
		}
		if lines = append(lines, clean(s)); len(lines) == n {
			break
		}
	}
	return lines
}

// last returns the last n lines of a package's output.
func last(out []string, n int) []string {
	var lines []string
	for i := len(out) - 1; i >= 0 && len(lines) < n; i-- {
		if !noise(out[i]) {
			lines = append([]string{clean(out[i])}, lines...)
		}
	}
	return lines
}

// clean makes one line of a test's output safe and short for a log: no
// control characters (a TUI test's captured pane may hold escapes), at
// most 200 characters.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.TrimRight(s, "\n"))
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "..."
	}
	return s
}

func writeReport(w io.Writer, r report) {
	for _, f := range r.tests {
		fmt.Fprintf(w, "   FAIL %s (%.1fs)\n", f.name, f.elapsed)
		for _, l := range f.lines {
			fmt.Fprintf(w, "      %s\n", strings.TrimSpace(l))
		}
	}
	for _, f := range r.pkgs {
		fmt.Fprintf(w, "   FAIL %s (no failed test: build, panic or timeout)\n", f.name)
		for _, l := range f.lines {
			fmt.Fprintf(w, "      %s\n", strings.TrimSpace(l))
		}
	}
}
