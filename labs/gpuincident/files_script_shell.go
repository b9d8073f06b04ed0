package gpuincident

import (
	"path"
	"strings"

	"github.com/labhub/labmate/checks"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shellText is what step 4's script says, read with a shell parser
// (mvdan.cc/sh): commands and their arguments, never raw text, so
// comments, quotes, line continuations, awk patterns and directory tests
// are read the way the shell reads them. It is the fallback where no
// sandbox placed traps, and it points at lines for what the traps saw.
type shellText struct {
	// parseErr is set when the text is not a shell script the parser
	// reads; the rest is then empty.
	parseErr *syntax.ParseError
	dumpLine int // first line calling `containerd config dump` (by any path)
	dumpText string
	absLine  int    // first line calling containerd by an absolute path
	absPath  string // that path
	cfgLine  int    // first line whose command names the node's config (literally, by glob or by variable)
	cfgText  string
}

// wrappers are commands that run their arguments as a command.
var wrappers = map[string]bool{"command": true, "exec": true, "env": true, "sudo": true, "nohup": true, "nice": true, "builtin": true}

// readShell parses text as a bash script (a superset of what the lab's
// #!/bin/sh scripts use).
func readShell(text string) shellText {
	var st shellText
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		if pe, ok := err.(syntax.ParseError); ok {
			st.parseErr = &pe
		} else {
			st.parseErr = &syntax.ParseError{Text: err.Error()}
		}
		return st
	}
	lines := strings.Split(text, "\n")
	lineText := func(n uint) string {
		if n == 0 || int(n) > len(lines) {
			return ""
		}
		return checks.Clip(strings.TrimSpace(strings.TrimRight(lines[n-1], "\r")), 60)
	}
	// Variables assigned literal values, as the script goes: enough to
	// see `D=/etc/containerd; cat "$D/config.toml"`.
	vars := map[string]string{}
	value := func(w *syntax.Word) (string, bool) {
		env := make([]string, 0, len(vars))
		for k, v := range vars {
			env = append(env, k+"="+v)
		}
		s, err := expand.Literal(&expand.Config{Env: expand.ListEnviron(env...)}, w)
		return s, err == nil
	}
	namesConfig := func(w *syntax.Word) bool {
		v, ok := value(w)
		if !ok {
			return false
		}
		if strings.Contains(v, mainConfigOnNode) {
			return true
		}
		// An unquoted glob that would match it: /etc/contain*/*.toml.
		if strings.ContainsAny(v, "*?[") {
			for _, field := range strings.Fields(v) {
				if ok, _ := path.Match(field, mainConfigOnNode); ok {
					return true
				}
			}
		}
		return false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			if x.Name != nil && x.Value != nil {
				if v, ok := value(x.Value); ok {
					vars[x.Name.Value] = v
				}
			}
		case *syntax.Stmt:
			for _, r := range x.Redirs {
				if st.cfgLine == 0 && r.Word != nil && namesConfig(r.Word) {
					st.cfgLine, st.cfgText = int(r.Pos().Line()), lineText(r.Pos().Line())
				}
			}
		case *syntax.CallExpr:
			for _, a := range x.Assigns {
				if a.Name != nil && a.Value != nil {
					if v, ok := value(a.Value); ok {
						vars[a.Name.Value] = v
					}
				}
			}
			args := make([]string, 0, len(x.Args))
			for _, w := range x.Args {
				v, _ := value(w)
				args = append(args, v)
			}
			cmd := commandIndex(args)
			if cmd < 0 {
				return true
			}
			line := x.Args[cmd].Pos().Line()
			n := int(line)
			if path.Base(args[cmd]) == fakeCommand {
				if st.absLine == 0 && strings.HasPrefix(args[cmd], "/") {
					st.absLine, st.absPath = n, args[cmd]
				}
				if st.dumpLine == 0 && hasPair(args[cmd+1:], "config", "dump") {
					st.dumpLine, st.dumpText = n, lineText(line)
				}
			}
			// A test of the file's existence reads nothing.
			if args[cmd] == "[" || args[cmd] == "test" {
				return true
			}
			for _, w := range x.Args[cmd+1:] {
				if st.cfgLine == 0 && namesConfig(w) {
					st.cfgLine, st.cfgText = int(w.Pos().Line()), lineText(w.Pos().Line())
				}
			}
		case *syntax.TestClause:
			return false
		}
		return true
	})
	return st
}

// commandIndex is the index of the command a call runs, past wrappers
// (`command containerd`, `env A=b containerd`) and their options; -1
// for a bare assignment.
func commandIndex(args []string) int {
	i := 0
	for i < len(args) && wrappers[args[i]] {
		i++
		for i < len(args) && (strings.HasPrefix(args[i], "-") || strings.Contains(args[i], "=")) {
			i++
		}
	}
	if i >= len(args) {
		return -1
	}
	return i
}

// hasPair reports whether args hold a then b next to each other.
func hasPair(args []string, a, b string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == a && args[i+1] == b {
			return true
		}
	}
	return false
}
