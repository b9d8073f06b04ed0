package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/tui/internal/fixture"
)

// squeeze drops every blank and escape sequence: what is left is the text
// a reader sees, whatever the wrapping and the indentation.
func squeeze(s string) string {
	return strings.Join(strings.Fields(ansi.Strip(s)), "")
}

// longReport is the fixture report for the real lab with step 1 failing
// on messages as long as real ones: dotted TOML paths longer than a narrow
// pane (hard-wrapped), several lines of expected and observed, and
// East-Asian-ambiguous characters (—, ×) that take a spare cell each.
func longReport(lab *content.Lab) (rep []checks.Result, texts []string) {
	rep = []checks.Result{
		{ID: "main.runc", Status: checks.Failed,
			Message:  `plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.runtime_type 이 "io.containerd.runc.v2" 가 아닙니다 — 테이블 이름의 큰따옴표를 확인하세요.`,
			Expected: `runtime_type = "io.containerd.runc.v2" (plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc)`,
			Observed: "runtime_type 없음\n테이블 plugins.io.containerd.grpc.v1.cri.containerd.runtimes.runc 는 따옴표 없이 쪼개진 다른 테이블입니다 — 4 × 5 = 20 이 아니라 0",
			Where:    "etc/containerd/config.toml:12:1"},
		{ID: "main.cgroup", Status: checks.Passed,
			Message: `plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options.SystemdCgroup = true (불리언) 입니다 — 통과.`},
		{ID: "main.imports", Status: checks.Error,
			Message: strings.Repeat("imports 배열의 항목을 하나씩 읽지 못했습니다 — ", 3) + "/root/gpuop/etc/containerd/conf.d/*.toml"},
	}
	for _, c := range rep {
		texts = append(texts, c.Message, c.Expected, c.Where)
		texts = append(texts, strings.Split(c.Observed, "\n")...)
	}
	texts = append(texts, lab.Steps[0].Hints...)
	return rep, texts
}

// Every check message, expected and observed value, and hint is on the
// page whole at every width: wrapped, never cut. The pane is tall enough
// to show the whole page, so what is not on screen was lost.
func TestWrappedTextIsWhole(t *testing.T) {
	lab := realLab(t)
	results, texts := longReport(lab)
	rep := fixture.Report(lab)
	rep.Steps[0].Status = checks.Failed
	rep.Steps[0].Checks = results
	for _, w := range []int{40, 60, 80, 100} {
		m := New(Options{Lab: lab, Root: fixture.Root, Theme: "dark", Colors: ColorsNone,
			Progress: map[int]HintProgress{1: {Seen: len(lab.Steps[0].Hints)}}})
		m = send(t, m, sizeMsg(w, 400))
		m = send(t, m, reportOf(m, rep))
		m = press(t, m, "1")
		checkFits(t, m)
		page := squeeze(m.View())
		for _, s := range texts {
			if s != "" && !strings.Contains(page, squeeze(s)) {
				t.Errorf("%d columns: %q is not on the page whole:\n%s", w, s, screen(m))
			}
		}
		// The introduction's step list: number, title and status word.
		m = press(t, m, "0")
		checkFits(t, m)
		page = squeeze(m.View())
		for _, s := range lab.Steps {
			if want := squeeze(fmt.Sprintf("%d. %s", s.Number, s.Title)); !strings.Contains(page, want) {
				t.Errorf("%d columns: step %q not whole on the introduction", w, want)
			}
		}
	}
}

// The cut log checkFits reads does see a line cut to the pane.
func TestCutLogSeesCuts(t *testing.T) {
	m := testModel(t, 60, 20)
	m.cuts.take()
	_ = m.fit([]string{strings.Repeat("가", 40)})
	if c := m.cuts.take(); len(c) != 1 {
		t.Fatalf("cut log has %d lines, want 1", len(c))
	}
}
