package trace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

func TestReadAllKinds(t *testing.T) {
	tr, err := Open("testdata/good/all-kinds.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Header.Lab != "gpu-incident" || tr.Header.Version != 1 || tr.Header.Root != "/root/gpuop" {
		t.Fatalf("header = %+v", tr.Header)
	}
	if len(tr.Warnings) != 0 {
		t.Fatalf("warnings: %v", tr.Warnings)
	}
	if len(tr.Records) != 6 {
		t.Fatalf("got %d records, want 6", len(tr.Records))
	}
	f := tr.Records[0].Obs.File
	if f == nil || f.Path != "etc/containerd/config.toml" || string(f.Content) != "version = 2\n" || f.Mode != 0o644 || f.State != observe.FilePresent {
		t.Fatalf("file record = %+v", f)
	}
	if tr.Records[0].Line != 2 || tr.Records[5].Line != 7 {
		t.Fatalf("line numbers %d, %d", tr.Records[0].Line, tr.Records[5].Line)
	}
	if s := tr.Records[1].Obs.Synced; s == nil || s.Source != "files" {
		t.Fatalf("synced = %+v", s)
	}
	if c := tr.Records[2].Obs.Cluster; c == nil || c.State != observe.ClusterSynced || c.Version != "v1.34.1" {
		t.Fatalf("cluster = %+v", c)
	}
	ob := tr.Records[3].Obs.Object
	ns, ok := ob.Object.(*corev1.Namespace)
	if !ok || ns.Name != "gpu-lab" || ns.Status.Phase != corev1.NamespaceActive || ns.UID != "8d3c" {
		t.Fatalf("object = %#v", ob.Object)
	}
	if ns.APIVersion != "" || ns.Kind != "" {
		t.Errorf("decoded object keeps TypeMeta %v; informers deliver objects without it", ns.TypeMeta)
	}
	if d := tr.Records[4].Obs.Object; d.Op != observe.OpDelete || d.Object != nil || d.Name != "gpu-lab" {
		t.Fatalf("delete = %+v", d)
	}
	s := tr.Records[5].Obs.Script
	if s == nil || s.ExitCode != 0 || s.Output != "nvidia loaded\n" || len(s.FakeArgv) != 1 || s.FakeArgv[0][2] != "dump" || s.Duration.Milliseconds() != 12 {
		t.Fatalf("script = %+v", s)
	}
	if tr.Records[5].At.Milliseconds() != 200 || tr.Duration().Milliseconds() != 200 {
		t.Fatalf("at = %v, duration %v", tr.Records[5].At, tr.Duration())
	}
}

func TestReadHeaderOnly(t *testing.T) {
	tr, err := Open("testdata/good/header-only.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Records) != 0 || tr.Duration() != 0 {
		t.Fatalf("records %d", len(tr.Records))
	}
}

// Every kind of bad trace: which line is named, and whether the rest can
// still be replayed (a warning) or not (an error).
func TestBadTraces(t *testing.T) {
	cases := []struct {
		file    string
		line    int
		code    string
		fatal   bool
		records int // records kept when not fatal
		mention string
	}{
		{"empty.jsonl", 1, "empty", true, 0, "비어"},
		{"no-header.jsonl", 1, "header_is_record", true, 0, "머리 줄이 없습니다"},
		{"not-json.jsonl", 1, "no_header", true, 0, "머리 줄이 아닙니다"},
		{"wrong-format.jsonl", 1, "wrong_format", true, 0, "kubectl-events"},
		{"newer-version.jsonl", 1, "newer_version", true, 0, "버전 4"},
		{"version-zero.jsonl", 1, "bad_version", true, 0, "버전 0"},
		{"no-lab.jsonl", 1, "no_lab", true, 0, "실습 ID"},
		{"corrupt-middle.jsonl", 3, "corrupt", true, 0, "바이트에서"},
		{"cut-last-with-newline.jsonl", 4, "corrupt", true, 0, "JSON"},
		{"no-kind.jsonl", 3, "no_kind", true, 0, "kind"},
		{"second-header.jsonl", 3, "second_header", true, 0, "이어 붙인"},
		{"bad-object.jsonl", 3, "bad_record", true, 0, "object"},
		{"bad-op.jsonl", 3, "bad_record", true, 0, "replace"},
		{"wrong-type.jsonl", 3, "corrupt", true, 0, "at_ms"},
		{"binary.jsonl", 2, "corrupt", true, 0, "JSON"},
		{"truncated-last.jsonl", 4, "truncated", false, 2, "끊겨"},
		{"unknown-kind.jsonl", 3, "unknown_kind", false, 2, "gpu-metric"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("testdata", "bad", c.file)
			tr, err := Open(path)
			var le *LineError
			if c.fatal {
				if err == nil {
					t.Fatalf("read %d records without an error", len(tr.Records))
				}
				if !errors.As(err, &le) {
					t.Fatalf("error %T %v is not a *LineError", err, err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if len(tr.Warnings) != 1 {
					t.Fatalf("warnings = %v, want one", tr.Warnings)
				}
				if len(tr.Records) != c.records {
					t.Fatalf("kept %d records, want %d", len(tr.Records), c.records)
				}
				le = tr.Warnings[0]
			}
			if le.Line != c.line || le.Code != c.code {
				t.Fatalf("line %d code %s, want line %d code %s (%v)", le.Line, le.Code, c.line, c.code, le)
			}
			msg := le.Error()
			for _, want := range []string{path, fmt.Sprintf("%d번째 줄", c.line), c.mention} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q does not mention %q", msg, want)
				}
			}
		})
	}
}

func TestOpenMissingFile(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "nope.jsonl"))
	if err == nil || !strings.Contains(err.Error(), "nope.jsonl") {
		t.Fatalf("err = %v", err)
	}
}

// Open reads files only: "reference" is a file of that name (it used to
// mean a lab's reference run, and panicked without a lab).
func TestOpenReferenceIsAFile(t *testing.T) {
	head, err := os.ReadFile("testdata/good/header-only.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	_, err = Open(ReferenceName)
	if want := content.Msg("trace.open_failed", "name", ReferenceName, "err", ""); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("no file yet: err = %v, want one starting %q", err, want)
	}
	if err := os.WriteFile(ReferenceName, head, 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := Open(ReferenceName)
	if err != nil || len(tr.Records) != 0 || tr.Name != ReferenceName {
		t.Fatalf("the file ./reference: %+v, %v", tr, err)
	}
}

func TestLineTooLong(t *testing.T) {
	var b bytes.Buffer
	head, _ := os.ReadFile("testdata/good/header-only.jsonl")
	b.Write(head)
	b.WriteString(`{"kind":"file","data":{"path":"`)
	b.Write(bytes.Repeat([]byte("a"), MaxLineSize))
	b.WriteString("\"}}\n")
	_, err := Read("long", &b)
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || le.Code != "line_too_long" {
		t.Fatalf("err = %v", err)
	}
}

// Every message key the package uses exists in content/ui-trace.toml.
func TestMessageKeysExist(t *testing.T) {
	srcs, _ := filepath.Glob("*.go")
	srcs = append(srcs, filepath.Join("..", "cmd", "cli", "replaycmd", "replaycmd.go"))
	static := regexp.MustCompile(`"(trace\.[a-z_.]+)"`)
	coded := regexp.MustCompile(`(?:fail|lerr|lineError)\((?:[a-zA-Z.]+, )*"([a-z_]+)"`)
	n := 0
	for _, src := range srcs {
		if strings.HasSuffix(src, "_test.go") {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range static.FindAllStringSubmatch(string(b), -1) {
			n++
			if !content.HasMsg(m[1]) {
				t.Errorf("%s: message %s is missing", src, m[1])
			}
		}
		for _, m := range coded.FindAllStringSubmatch(string(b), -1) {
			n++
			if !content.HasMsg("trace." + m[1]) {
				t.Errorf("%s: message trace.%s is missing", src, m[1])
			}
		}
	}
	if n < 20 {
		t.Fatalf("found only %d message uses; the patterns no longer match the code", n)
	}
}

// A trace saved by an editor (byte order mark, CRLF line ends) still reads.
func TestReadEditedTrace(t *testing.T) {
	b, err := os.ReadFile("testdata/good/all-kinds.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	edited := append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))...)
	tr, err := Read("edited", bytes.NewReader(edited))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Records) != 6 || len(tr.Warnings) != 0 {
		t.Fatalf("%d records, warnings %v", len(tr.Records), tr.Warnings)
	}
}
