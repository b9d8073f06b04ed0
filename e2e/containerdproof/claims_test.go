// Package containerdproof holds what the labs say about containerd to
// containerd's own code: each lab's claims.toml states, for a sentence of
// one of its pages (named by file and line), what the real containerd
// does with a set of configuration files (the lab's reference files, or a
// variant of them the page speaks of), and the tests here build the real
// cmd/containerd of each release the claim names (hack/containerd: from
// the Go module proxy, cached) and run it: `containerd --config FILE
// config dump` for what a configuration merges to, and the daemon itself,
// on a temporary root, state and socket, for what only a running
// containerd shows (a signal, a restart). A page whose claim the real
// program contradicts fails the suite.
//
//	LABMATE_E2E=1 go test ./e2e/containerdproof -v
package containerdproof

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/labhub/labmate/hack/containerd"
)

// labsDir is the labs' data, read from disk.
const labsDir = "../../content/labs"

// claimsFile is a lab's claims.toml.
type claimsFile struct {
	Claims []claim `toml:"claims"`
}

// claim is one statement of a page about containerd, as data.
type claim struct {
	// ID names the claim in test output.
	ID string `toml:"id"`
	// Page and Line: the sentence it backs (a file of the lab, its line),
	// and Says: words that stand on that line, so a claim cannot drift
	// from its sentence when the page changes.
	Page string `toml:"page"`
	Line int    `toml:"line"`
	Says string `toml:"says"`
	// Containerd: the release lines it is about ("1.7", "2.2").
	Containerd []string `toml:"containerd"`
	// Main is the main config, from a file of the lab (Main.From) or
	// written out (Main.Text); DropIns are the files of the main config's
	// conf.d/ directory. Edits change a file's text before it is written
	// (a variant of the lab's reference).
	Main    source   `toml:"main"`
	DropIns []source `toml:"dropins"`
	// Dump: what `containerd config dump` gives for those files.
	Dump *dumpWant `toml:"dump"`
	// Daemon: what the running daemon does.
	Daemon *daemonWant `toml:"daemon"`
}

// source is one configuration file of a claim.
type source struct {
	Name  string `toml:"name"` // a drop-in's file name
	From  string `toml:"from"` // a file of the lab
	Text  string `toml:"text"` // or the file's text
	Edits []edit `toml:"edit"`
}

type edit struct {
	Old string `toml:"old"`
	New string `toml:"new"`
}

// dumpWant is what the dump must show. Fails: containerd refuses the
// files (exit status not 0) with Error among its words. Otherwise
// Runtimes is exactly the CRI runtime handlers the dump holds, and Values
// are fields of the CRI runtime plugin's table (`containerd.runtimes.runc.
// options.SystemdCgroup`), each with its TOML value and type.
type dumpWant struct {
	Fails    bool           `toml:"fails"`
	Error    string         `toml:"error"`
	Runtimes []string       `toml:"runtimes"`
	Values   map[string]any `toml:"values"`
}

// daemonWant is what the daemon must do. SIGHUP "exits": a running
// containerd sent SIGHUP ends (it does not reload). Reread: a
// configuration changed on disk is not what the running daemon serves,
// and the next process serves the changed one. CRIPlugin "loads" or
// "fails": the CRI plugin with the claim's files (FailsWith among the
// words of its error).
type daemonWant struct {
	SIGHUP    string `toml:"sighup"`
	Reread    bool   `toml:"reread"`
	CRIPlugin string `toml:"cri_plugin"`
	FailsWith string `toml:"fails_with"`
}

// labClaims are the claims of every lab that has a claims.toml.
type labClaims struct {
	lab    string
	claims []claim
}

func readClaims(t *testing.T) []labClaims {
	t.Helper()
	entries, err := os.ReadDir(labsDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []labClaims
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(labsDir, e.Name(), "claims.toml"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var f claimsFile
		dec := toml.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("%s/claims.toml: %v", e.Name(), err)
		}
		out = append(out, labClaims{lab: e.Name(), claims: f.Claims})
	}
	return out
}

// TestClaimsStandBesideTheirSentences: every claim names a line of a page
// of its lab on which its words stand, a release the proof builds, files
// that exist, and something to observe. It needs no containerd.
func TestClaimsStandBesideTheirSentences(t *testing.T) {
	labs := readClaims(t)
	if len(labs) == 0 {
		t.Fatal("no lab has a claims.toml: the gpu-incident lab's pages speak of containerd")
	}
	n := 0
	for _, l := range labs {
		ids := map[string]bool{}
		for _, c := range l.claims {
			n++
			where := l.lab + "/claims.toml " + c.ID
			if c.ID == "" || ids[c.ID] {
				t.Errorf("%s: an empty or repeated id", where)
			}
			ids[c.ID] = true
			page, err := os.ReadFile(filepath.Join(labsDir, l.lab, c.Page))
			if err != nil {
				t.Errorf("%s: page: %v", where, err)
				continue
			}
			lines := strings.Split(string(page), "\n")
			if c.Line < 1 || c.Line > len(lines) {
				t.Errorf("%s: %s has no line %d", where, c.Page, c.Line)
			} else if c.Says == "" || !strings.Contains(lines[c.Line-1], c.Says) {
				t.Errorf("%s: %s:%d does not say %q: the claim's sentence moved or changed; its line now reads:\n%s",
					where, c.Page, c.Line, c.Says, lines[c.Line-1])
			}
			if len(c.Containerd) == 0 {
				t.Errorf("%s: names no containerd release", where)
			}
			for _, line := range c.Containerd {
				if _, ok := containerd.Find(line); !ok {
					t.Errorf("%s: containerd %q is not a release the proof builds (hack/containerd.Releases)", where, line)
				}
			}
			if c.Dump == nil && c.Daemon == nil {
				t.Errorf("%s: says nothing to observe (dump or daemon)", where)
			}
			for _, s := range append([]source{c.Main}, c.DropIns...) {
				if (s.From == "") == (s.Text == "") {
					t.Errorf("%s: a file needs exactly one of from and text", where)
				}
				if s.From != "" {
					if _, err := os.Stat(filepath.Join(labsDir, l.lab, s.From)); err != nil {
						t.Errorf("%s: %v", where, err)
					}
				}
			}
			for _, s := range c.DropIns {
				if s.Name == "" || strings.ContainsAny(s.Name, "/\\") || !strings.HasSuffix(s.Name, ".toml") {
					t.Errorf("%s: drop-in name %q: a file name ending in .toml", where, s.Name)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("the claims files hold no claim")
	}
}

// text is a source's content: the lab's file or the written text, with
// its edits applied in order (each must match).
func (s source) text(lab string) (string, error) {
	out := s.Text
	if s.From != "" {
		data, err := os.ReadFile(filepath.Join(labsDir, lab, s.From))
		if err != nil {
			return "", err
		}
		out = string(data)
	}
	for _, e := range s.Edits {
		if !strings.Contains(out, e.Old) {
			return "", fmt.Errorf("edit: %q is not in the file", e.Old)
		}
		out = strings.Replace(out, e.Old, e.New, 1)
	}
	return out, nil
}

// layOut writes a claim's files under dir as a node has them:
// dir/config.toml and dir/conf.d/<name>. The main config's imports name
// /etc/containerd/...: each such entry is pointed at dir instead, and
// extra imports are added (the file parsed and written again; a main
// config TOML cannot parse is written as it is, for containerd to
// refuse).
func layOut(lab string, c claim, dir string, extra ...string) (string, error) {
	main, err := c.Main.text(lab)
	if err != nil {
		return "", fmt.Errorf("main config: %w", err)
	}
	var doc map[string]any
	if toml.Unmarshal([]byte(main), &doc) == nil {
		imports, _ := doc["imports"].([]any)
		if imports != nil || len(extra) > 0 {
			for i, imp := range imports {
				if s, ok := imp.(string); ok && strings.HasPrefix(s, "/etc/containerd/") {
					imports[i] = filepath.Join(dir, strings.TrimPrefix(s, "/etc/containerd/"))
				}
			}
			for _, e := range extra {
				imports = append(imports, e)
			}
			doc["imports"] = imports
			out, err := toml.Marshal(doc)
			if err != nil {
				return "", err
			}
			main = string(out)
		}
	}
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(main), 0o644); err != nil {
		return "", err
	}
	if len(c.DropIns) > 0 {
		if err := os.MkdirAll(filepath.Join(dir, "conf.d"), 0o755); err != nil {
			return "", err
		}
	}
	for _, s := range c.DropIns {
		text, err := s.text(lab)
		if err != nil {
			return "", fmt.Errorf("drop-in %s: %w", s.Name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "conf.d", s.Name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	return path, nil
}

// sortedKeys of a TOML table.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
