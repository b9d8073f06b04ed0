package verify

import (
	"bytes"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A step's solve.run, parsed as shell, and the near-misses made of it:
// each command that changes something left out in turn (a command that
// only reads is never one), and each `kubectl apply -f FILE` of a
// reference file pointed at a changed copy (the file on disk right, the
// object in the cluster not).

// dropEdit is the script without one of its commands.
type dropEdit struct {
	command string // the command left out, on one line
	script  string
}

// readOnly are the commands that change nothing: leaving one out is no
// near-miss of the step.
var readOnly = []string{"cat", "sleep", "test", "[", "true", "false", "echo", "printf", "grep", "ls", "head", "tail", "wc", "until", "while"}

// readOnlyKubectl are kubectl's verbs that only read.
var readOnlyKubectl = []string{"get", "describe", "wait", "api-resources", "api-versions", "version", "auth", "explain", "logs", "top", "diff"}

func parseScript(src string) (*syntax.File, error) {
	return syntax.NewParser().Parse(strings.NewReader(src), "")
}

func printNode(n syntax.Node) string {
	var b bytes.Buffer
	_ = syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, n)
	return strings.TrimSpace(b.String())
}

// dropEdits are the script once without each of its top-level commands
// that change something.
func dropEdits(src string) ([]dropEdit, error) {
	f, err := parseScript(src)
	if err != nil {
		return nil, err
	}
	funcs := readOnlyFuncs(f)
	var out []dropEdit
	for i, st := range f.Stmts {
		if _, isFunc := st.Cmd.(*syntax.FuncDecl); isFunc || !changes(st, funcs) {
			continue
		}
		rest := &syntax.File{Stmts: append(append([]*syntax.Stmt(nil), f.Stmts[:i]...), f.Stmts[i+1:]...)}
		var b bytes.Buffer
		if err := syntax.NewPrinter().Print(&b, rest); err != nil {
			return nil, err
		}
		out = append(out, dropEdit{command: printNode(st), script: b.String()})
	}
	return out, nil
}

// changes says whether a statement may change something: a command that
// is not one that only reads, or output sent to a file.
func changes(st syntax.Node, readOnlyFuncs []string) bool {
	found := false
	syntax.Walk(st, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Redirect:
			if x.Op == syntax.RdrOut || x.Op == syntax.AppOut || x.Op == syntax.RdrAll || x.Op == syntax.AppAll {
				if w := x.Word.Lit(); w != "/dev/null" {
					found = true
				}
			}
		case *syntax.CallExpr:
			if len(x.Args) > 0 && slices.Contains(readOnlyFuncs, x.Args[0].Lit()) {
				break
			}
			if callChanges(x) {
				found = true
			}
		}
		return !found
	})
	return found
}

// readOnlyFuncs are the script's own functions whose bodies only read
// (a helper that reads a field with kubectl get).
func readOnlyFuncs(f *syntax.File) []string {
	var out []string
	for _, st := range f.Stmts {
		if fd, ok := st.Cmd.(*syntax.FuncDecl); ok && !changes(fd.Body, out) {
			out = append(out, fd.Name.Value)
		}
	}
	return out
}

func callChanges(c *syntax.CallExpr) bool {
	if len(c.Args) == 0 {
		return len(c.Assigns) > 0
	}
	name := c.Args[0].Lit()
	if name != "kubectl" {
		return !slices.Contains(readOnly, name)
	}
	// The verb is the first argument that names one: flags and their
	// values (-n ml-train) come before it as often as after.
	for i, a := range c.Args[1:] {
		w := a.Lit()
		switch {
		case slices.Contains(readOnlyKubectl, w):
			return false
		case w == "rollout" && i+2 < len(c.Args):
			next := c.Args[i+2].Lit()
			return next != "status" && next != "history"
		case slices.Contains(kubectlVerbs, w):
			return true
		}
	}
	return true
}

// kubectlVerbs are kubectl's verbs that change the cluster.
var kubectlVerbs = []string{"apply", "create", "delete", "label", "annotate", "patch", "replace", "scale", "set", "taint",
	"cordon", "uncordon", "drain", "edit", "expose", "run", "autoscale", "certificate"}

// pointAt rewrites the script so that every word that is exactly file
// (a `kubectl apply -f k8s/pod.yaml`) names to instead; ok says there was
// one.
func pointAt(src, file, to string) (string, bool, error) {
	f, err := parseScript(src)
	if err != nil {
		return "", false, err
	}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok && w.Lit() == file {
			w.Parts = []syntax.WordPart{&syntax.Lit{Value: to}}
			found = true
		}
		return true
	})
	if !found {
		return src, false, nil
	}
	var b bytes.Buffer
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return "", false, err
	}
	return b.String(), true, nil
}
