package labcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/cmd/cli"
)

// lab eval on a manifest: the value as a manifest rule sees it (JSON,
// its type, and how a message shows it), an absent field said as such.
func TestLabEvalAFile(t *testing.T) {
	dir, _ := newLab(t, "eval-lab")
	file := filepath.Join(dir, "reference", "k8s", "greeting.yaml")
	for _, tc := range []struct{ expr, want string }{
		{"object.data.message", "값: \"안녕하세요\"\n타입: string\n"},
		{"object.?data.?message.orValue('') == '안녕하세요'", "값: true\n타입: bool\n"},
		{"file.metadata.labels", "타입: map\n메시지의 got 자리에 보이는 모양: app.kubernetes.io/part-of=eval-lab"},
		{"object.spec.replicas", "값 없음"},
	} {
		code, out, errOut := run(t, "eval", dir, "--file", file, tc.expr)
		if code != cli.ExitOK || !strings.Contains(out, tc.want) {
			t.Errorf("lab eval %q: exit %d, %q (stderr %q), want %q", tc.expr, code, out, errOut, tc.want)
		}
	}
}

// With --step the expression reads that step's own predicates, and the
// lab's through them, as a rule of the step does; without it, or with
// another step, the name is not there; a step the lab does not have is
// a usage error.
func TestLabEvalReadsAStepsPredicates(t *testing.T) {
	dir, _ := newLab(t, "eval-step")
	toml := filepath.Join(dir, "lab.toml")
	raw, err := os.ReadFile(toml)
	if err != nil {
		t.Fatal(err)
	}
	// The last [[steps]] is step 2's table.
	raw = append(raw, "\n[steps.predicates]\ngreeted = \"object.?data.?message.orValue('') == hello\"\n\n[predicates]\nhello = \"'안녕하세요'\"\n"...)
	if err := os.WriteFile(toml, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "reference", "k8s", "greeting.yaml")
	if code, out, errOut := run(t, "eval", dir, "--step", "2", "--file", file, "greeted"); code != cli.ExitOK || !strings.Contains(out, "값: true\n타입: bool\n") {
		t.Errorf("--step 2: exit %d, %q (stderr %q)", code, out, errOut)
	}
	if code, out, errOut := run(t, "eval", dir, "--step", "2", "--file", file, "hello"); code != cli.ExitOK || !strings.Contains(out, "값: \"안녕하세요\"") {
		t.Errorf("--step 2, the lab's predicate: exit %d, %q (stderr %q)", code, out, errOut)
	}
	for _, args := range [][]string{{}, {"--step", "1"}} {
		code, out, errOut := run(t, append(append([]string{"eval", dir}, args...), "--file", file, "greeted")...)
		if code != cli.ExitFail || out != "" || !strings.Contains(errOut, "greeted") {
			t.Errorf("%q: exit %d, %q (stderr %q), want 1 naming greeted", args, code, out, errOut)
		}
	}
	if code, _, errOut := run(t, "eval", dir, "--step", "3", "true"); code != cli.ExitUsage || !strings.Contains(errOut, "--step 은 1 에서 2 사이") {
		t.Errorf("--step 3: exit %d, %q, want 2 and the range", code, errOut)
	}
}

// An expression a rule could not have is refused as the lab's compile
// refuses it (exit 1, CEL's place): a type error, a variable its check
// type does not see. A manifest a rule could not read is said in Korean.
func TestLabEvalRefuses(t *testing.T) {
	dir, _ := newLab(t, "eval-bad")
	file := filepath.Join(dir, "reference", "k8s", "greeting.yaml")
	for _, tc := range []struct {
		args []string
		says []string
	}{
		{[]string{"1 + 'a'"}, []string{"쓸 수 없습니다", "no matching overload", "^"}},
		{[]string{"--type", "report", "object.data"}, []string{"report 검사의 식은 object 를 볼 수 없습니다"}},
		{[]string{"--type", "manifest", "cluster.list('ConfigMap', 'x')"}, []string{"manifest 검사의 식은 cluster 를 볼 수 없습니다"}},
	} {
		code, out, errOut := run(t, append([]string{"eval", dir, "--file", file}, tc.args...)...)
		if code != cli.ExitFail || out != "" {
			t.Errorf("lab eval %q: exit %d, stdout %q, want 1 and nothing", tc.args, code, out)
		}
		for _, s := range tc.says {
			if !strings.Contains(errOut, s) {
				t.Errorf("lab eval %q: stderr %q does not say %q", tc.args, errOut, s)
			}
		}
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  message: hi\nbogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "eval", dir, "--file", bad, "object.data.message")
	if code != cli.ExitFail || !strings.Contains(errOut, "규칙이 보는 대로 읽지 못했습니다") || !strings.Contains(errOut, "bogus") {
		t.Errorf("a manifest with an unknown field: exit %d, %q", code, errOut)
	}

	for _, tc := range []struct{ args []string }{
		{[]string{"--object", "ConfigMap", "true"}},
		{[]string{"--type", "file", "true"}},
	} {
		if code, _, errOut := run(t, append([]string{"eval", dir}, tc.args...)...); code != cli.ExitUsage || errOut == "" {
			t.Errorf("lab eval %q: exit %d, %q, want 2", tc.args, code, errOut)
		}
	}
}

// A value from a file labmate did not write reaches the terminal shown,
// never sent: an escape in a manifest is printed as its picture.
func TestLabEvalShowsControlsOfTheFile(t *testing.T) {
	dir, _ := newLab(t, "eval-esc")
	file := filepath.Join(t.TempDir(), "cm.yaml")
	if err := os.WriteFile(file, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  message: \"a\\e]2;owned\\a\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "eval", dir, "--file", file, "object.data")
	if code != cli.ExitOK || strings.ContainsRune(out, 0x1b) || !strings.Contains(out, "␛]2;owned") {
		t.Errorf("exit %d, %q (stderr %q): the escape is not shown as its picture", code, out, errOut)
	}
}
