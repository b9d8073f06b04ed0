package verify

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labkit"
)

// A reference file or solution script the mutation proof cannot parse
// makes no near-misses: the proof says so and fails, never passing with
// fewer near-misses in silence.
func TestUnparsableReferenceFailsTheMutationProof(t *testing.T) {
	dir, answers := t.TempDir(), t.TempDir()
	lab := "id = \"unmade\"\ntitle = \"만들지 못함\"\n\n[[steps]]\nnumber = 1\nid = \"config\"\ntitle = \"포트\"\n\n" +
		"[[steps.checks]]\nid = \"port\"\ntype = \"field\"\npath = \"etc/site.toml\"\nkey = \"server.port\"\nequals = 8080\n"
	proof := "[[steps]]\nid = \"config\"\nsolve.files = [\"etc/site.toml\"]\nsolve.run = \"if true; then\"\n"
	for name, body := range map[string]string{"lab.toml": lab, "verify.toml": proof} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(answers, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(answers, "etc", "site.toml"), []byte("[server\nport = 8080\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kit, err := labkit.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := &prover{o: Options{Progress: io.Discard}, text: kit.Text, kit: kit, answers: answers, mut: newMutationLog()}
	state := engine.New(engine.Config{Lab: kit.Text, Steps: kit.Steps, Root: t.TempDir()})
	if kit.Text.Verify == nil || len(kit.Text.Verify.Steps) != 1 {
		t.Fatalf("verify.toml not read: %+v", kit.Text.Verify)
	}
	vs := kit.Text.Verify.Steps[0]
	ms := p.mutantsOf(context.Background(), 1, vs, state)
	p.mut.mutated[1] = true
	var failed []Row
	for _, r := range p.mutantRows(ms) {
		if !r.OK && !r.Skipped {
			failed = append(failed, r)
		}
	}
	var seen []string
	for _, r := range failed {
		seen = append(seen, r.Seen)
	}
	all := strings.Join(seen, "\n")
	if !strings.Contains(all, "etc/site.toml") || !strings.Contains(all, "풀이 스크립트") {
		t.Errorf("the proof's failed rows do not name the unparsable file and script:\n%s", all)
	}
}
