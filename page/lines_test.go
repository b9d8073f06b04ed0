package page

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// mark is s as code.go marks a code span: its blanks, hyphens and the
// other characters glamour breaks at stand as marks.
func mark(s string) string { return marker.Replace(s) }

// The rule of lines.go, case by case: where a word longer than the line
// breaks, and that nothing else does.
func TestBreakLinesRule(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    string
		limit int
		want  []string
	}{
		{"fits", "a short line", 20, []string{"a short line"}},
		{"blanks, greedily", "one two three four", 9, []string{"one two", "three", "four"}},
		{"a word that does not fit goes whole to the next line", "테이블 nvidia-container-runtime 과", 24,
			[]string{"테이블", "nvidia-container-runtime", "과"}},
		{"a TOML key breaks after a dot between segments, never inside the quotes",
			`[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]`, 57,
			[]string{`[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.`, `nvidia.options]`}},
		{"one cell less", `[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]`, 56,
			[]string{`[plugins."io.containerd.grpc.v1.cri".containerd.`, `runtimes.nvidia.options]`}},
		{"the same key at 40 columns", `[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]`, 38,
			[]string{`[plugins."io.containerd.grpc.v1.cri".`, `containerd.runtimes.runc]`}},
		{"a long word starts its own line", `테이블 [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc] 에`, 40,
			[]string{"테이블", `[plugins."io.containerd.grpc.v1.cri".`, `containerd.runtimes.runc] 에`}},
		{"or follows a list marker", `- [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]`, 40,
			[]string{`- [plugins."io.containerd.grpc.v1.cri".`, `containerd.runtimes.runc]`}},
		{"code breaks at its own blanks first, outside quotes",
			mark(`runtime_type = "io.containerd.runc.v2"`), 30,
			[]string{mark(`runtime_type = `), mark(`"io.containerd.runc.v2"`)}},
		{"a quoted string breaks only when nothing outside it fits",
			mark(`"io.containerd.runc.v2"`), 16,
			[]string{mark(`"io.containerd.`), mark(`runc.v2"`)}},
		{"a blank inside quotes before a dot inside them",
			mark(`"Allocate failed due.to no healthy devices"`), 27,
			[]string{mark(`"Allocate failed due.to no `), mark(`healthy devices"`)}},
		{"a key and its value", mark(`--field-selector=status.phase=Pending`), 20,
			[]string{mark(`--field-selector=`), mark(`status.phase=Pending`)}},
		{"JSON after a comma or a colon, outside quotes", mark(`{"spec":{"template":{"spec":{"containers":[{`), 30,
			[]string{mark(`{"spec":{"template":{"spec":`), mark(`{"containers":[{`)}},
		{"a command at its blanks or after a slash", mark("kubectl -n gpu-operator rollout restart daemonset/nvidia-device-plugin-daemonset"), 56,
			[]string{mark("kubectl -n gpu-operator rollout restart daemonset/"), mark("nvidia-device-plugin-daemonset")}},
		{"a path after a slash", mark("deployments/gpu-operator/crds/nvidia.com_clusterpolicies.yaml"), 40,
			[]string{mark("deployments/gpu-operator/crds/"), mark("nvidia.com_clusterpolicies.yaml")}},
		{"never inside //", "https://example.com/averyveryveryverylongname", 12,
			[]string{"https://", "example.com/", "averyveryver", "yverylongnam", "e"}},
		{"not inside a version number", "nvcr.io/nvidia/k8s/container-toolkit:v1.16.2", 30,
			[]string{"nvcr.io/nvidia/k8s/", "container-toolkit:v1.16.2"}},
		{"a version number longer than the line breaks after its hyphen, not its dots",
			"toolkit-v1.16.2.3.4.5", 12, []string{"toolkit-", "v1.16.2.3.4.", "5"}},
		{"no punctuation alone on a line", "path/to/).", 8, []string{"path/", "to/)."}},
		{"camelCase when nothing better fits", "requiredDuringSchedulingIgnoredDuringExecution", 38,
			[]string{"requiredDuringSchedulingIgnoredDuring", "Execution"}},
		{"a hyphen before a hard break", "nvidia-container-runtime", 18, []string{"nvidia-container-", "runtime"}},
		{"a dot inside quotes before a camel hump", mark(`'{.status.conditions[?(@.type=="PodScheduled")].reason}'`), 50,
			[]string{mark(`'{.status.conditions[?(@.type=="PodScheduled")].`), mark(`reason}'`)}},
		{"hard, whole characters, when nothing else fits", "가나다라마바사아자차", 7, []string{"가나다", "라마바", "사아자", "차"}},
		{"a character wider than the line still moves on", "가나", 1, []string{"가", "나"}},
		{"leading blanks stay", "  indented words wrap", 12, []string{"  indented", "words wrap"}},
		{"each line of a text with newlines", "one two\nthree four", 7, []string{"one two", "three", "four"}},
		{"empty", "", 10, []string{""}},
	} {
		got := breakLines(c.in, c.limit)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: breakLines(%q, %d) =\n  %q\nwant\n  %q", c.name, c.in, c.limit, got, c.want)
		}
	}
}

// Every line fits with a spare cell for each ambiguous character, and
// styling survives breaking: each piece is cut from the styled line, its
// escape sequences kept.
func TestBreakLinesFitsAndKeepsStyle(t *testing.T) {
	text := `✓ 통과  plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.runtime_type 이 맞습니다 — 4 × 5 = 20 — 끝`
	for limit := 8; limit <= 100; limit++ {
		lines := breakLines(text, limit)
		for i, l := range lines {
			if w := Cells(l); w > limit && ansi.StringWidth(l) > 2 {
				t.Fatalf("limit %d: line %d is %d cells with its spare ones: %q", limit, i, w, l)
			}
		}
		if strings.Join(strings.Fields(strings.Join(lines, " ")), "") != strings.Join(strings.Fields(text), "") {
			t.Fatalf("limit %d lost text: %q", limit, lines)
		}
	}
	styled := "\x1b[31m" + mark("[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]") + "\x1b[0m"
	lines := breakLines(styled, 40)
	if len(lines) != 2 {
		t.Fatalf("styled key: %q", lines)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "\x1b[31m") {
			t.Errorf("a piece lost its colour: %q", l)
		}
	}
	if got := unmark(ansi.Strip(lines[0])); got != `[plugins."io.containerd.grpc.v1.cri".` {
		t.Errorf("styled key broke at %q", got)
	}
}

// Wrap sizes its lines for the wider prefix and keeps the spare cells.
func TestWrapWidth(t *testing.T) {
	text := `✓ 통과  plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.runtime_type 이 맞습니다 — 4 × 5 = 20 — 끝`
	for _, p := range [][2]string{{" ", "   "}, {" ", "    "}, {"   ", " "}, {" 1. ", "    "}} {
		for width := 20; width <= 100; width++ {
			lines := Wrap(text, width, p[0], p[1])
			for i, l := range lines {
				if w := Cells(l); w > width {
					t.Fatalf("Wrap(%d, %q, %q) line %d is %d cells with its spare ones: %q", width, p[0], p[1], i, w, l)
				}
			}
			if squeeze(strings.Join(lines, "\n")) != squeeze(p[0]+text) {
				t.Fatalf("Wrap(%d, %q, %q) lost text:\n%s", width, p[0], p[1], strings.Join(lines, "\n"))
			}
		}
	}
}

// squeeze drops every blank and escape sequence: the text a reader sees,
// whatever the wrapping and the indentation.
func squeeze(s string) string {
	return strings.Join(strings.Fields(ansi.Strip(s)), "")
}
