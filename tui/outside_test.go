package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/internal/termtext/termtexttest"
	"github.com/labhub/labmate/labkit/compare"
	"github.com/labhub/labmate/tui/internal/fixture"
)

var (
	hostileText       = termtexttest.Hostile
	hostileShown      = termtexttest.Shown
	assertOnlyStyling = termtexttest.AssertOnlyStyling
)

// A hostile lab's page, title, hint and solution pass the door of New:
// glamour renders them with their escapes shown, in colour, and the
// lab the TUI was given is left as it was.
func TestHostileLabTextIsShownNotSent(t *testing.T) {
	lab := fixture.Lab()
	lab.Intro = "# 소개\n\n" + hostileText + "\n"
	s := &lab.Steps[0]
	s.Title = "제목 " + hostileText
	s.Body = "본문 " + hostileText + "\n\n```bash\necho " + hostileText + "\n```\n"
	s.Hints = []string{"힌트 " + hostileText}
	s.Solution = "풀이 " + hostileText + "\n"
	m := testModel(t, 100, 60, func(o *Options) { o.Lab = lab; o.Colors = Colors256; o.Banner = "배너\x1b]2;X\x07" })
	assertOnlyStyling(t, m.View(), hostileShown)
	m = press(t, m, "1")
	m = press(t, m, "h", "h", "y")
	v := m.View()
	assertOnlyStyling(t, v, "본문 "+hostileShown, "힌트 "+hostileShown, "풀이 "+hostileShown, "제목 A␛]2;")
	if lab.Steps[0].Hints[0] != "힌트 "+hostileText {
		t.Errorf("New changed the lab it was given: %q", lab.Steps[0].Hints[0])
	}
	for _, c := range m.copier.targets[1] {
		if strings.ContainsRune(c, 0x1b) {
			t.Errorf("the copy key offers a command with an escape: %q", c)
		}
	}
}

// Every path a report brings text on (a lab's message, an observed value
// of a learner's file, a cluster object's event message and annotation
// in a check's evidence, a script's output, a problem, the cluster's
// words) passes the door of fromOutside.
func TestHostileReportTextIsShownNotSent(t *testing.T) {
	m := testModel(t, 100, 80, func(o *Options) { o.Colors = Colors256 })
	rep := fixture.Report(fixture.Lab())
	st := &rep.Steps[0]
	st.Status = checks.Failed
	st.Checks[0] = checks.Result{ID: "c.msg", Status: checks.Failed, Message: "메시지 " + hostileText,
		Expected: "annotation " + hostileText, Observed: "event " + hostileText, Where: "file " + hostileText}
	st.Observed = append(st.Observed, checks.Fact{Label: "script " + hostileText, Value: "stdout " + hostileText})
	rep.Problems = []string{"problem " + hostileText}
	rep.Cluster.Err = hostileText
	m = send(t, m, reportOf(m, rep))
	m = press(t, m, "1")
	assertOnlyStyling(t, m.View(), "메시지 "+hostileShown, "event "+hostileShown, "problem "+hostileShown)
	m = press(t, m, "o")
	assertOnlyStyling(t, m.View(), "stdout "+hostileShown, "script A␛]2;")
}

// The class's words and a replay's status pass the door too.
func TestHostileClassAndReplayTextIsShownNotSent(t *testing.T) {
	m := testModel(t, 100, 40, func(o *Options) {
		o.Colors = Colors256
		o.Class = make(chan learner.Status)
		o.ClassLab = make(chan classlab.LabNote)
		o.Replay = newFakeReplay("")
	})
	m = send(t, m, classLabMsg{classlab.LabNote{Refused: true, Why: "why " + hostileText}})
	m = send(t, m, replayMsg{status: "replay " + hostileText})
	assertOnlyStyling(t, m.View(), "replay A␛]2;")
	if foot := m.foot.View(); !strings.Contains(foot, "why A␛]2;") {
		t.Errorf("class note not shown escaped: %q", foot)
	}
}

// A learner's file in the compare view and an editor's or tmux's words
// on a failed edit pass the door too.
func TestHostileCompareAndEditTextIsShownNotSent(t *testing.T) {
	m := testModel(t, 100, 40, func(o *Options) { o.Colors = Colors256 })
	rep := fixture.Report(fixture.Lab())
	m = send(t, m, reportOf(m, rep))
	m.comparing = true
	m = press(t, m, "1")
	m.comparing = true
	m, _ = update(m, comparedMsg{compare.Comparison{Step: 1, Files: []compare.File{{Path: "etc/" + hostileText,
		Hunks: []compare.Hunk{{RefLine: 1, LearnerLine: 1, Lines: []compare.Line{{Kind: compare.Learner, Text: "mine " + hostileText}}}}}}}})
	assertOnlyStyling(t, m.View(), "mine "+hostileShown)
	m, _ = update(m, editedMsg{place: checks.Place{File: "f", Line: 1}, name: "ed" + hostileText, how: editedPane, err: errors.New("tmux " + hostileText)})
	assertOnlyStyling(t, m.View(), "tmux "+hostileShown)
}
