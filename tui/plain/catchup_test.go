package plain

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/tui"
	"github.com/labhub/labmate/tui/internal/fixture"
)

// plan is a catch-up plan as plain mode sees it, counting what was done
// with it.
type plan struct {
	mu            sync.Mutex
	to            int
	done, closed  int
	lines, result string
}

func (p *plan) Lines() []string             { return strings.Split(p.lines, "\n") }
func (p *plan) Empty() bool                 { return false }
func (p *plan) Result() string              { return p.result }
func (p *plan) CaughtUp() map[int]time.Time { return nil }

func (p *plan) Do(_ context.Context, progress io.Writer) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	fmt.Fprintln(progress, "1단계를 참고 답으로 채웠습니다.")
	return nil
}

func (p *plan) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed++
}

func (p *plan) counts() (to, done, closed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.to, p.done, p.closed
}

// catch_up reads the plan out (what the lab's text and the learner's
// paths put in it cleaned of controls) and asks; no leaves everything
// and lets the plan go, yes does it, says each step and how it ended,
// and has the files read again. Only on a step page after the first.
func TestPlainCatchesUp(t *testing.T) {
	var plans []*plan
	var mu sync.Mutex
	rescans := 0
	opts := tui.Options{Lab: fixture.Lab(), Root: fixture.Root,
		PlanCatchUp: func(_ context.Context, to int) (tui.CatchUpPlan, error) {
			mu.Lock()
			defer mu.Unlock()
			p := &plan{to: to, lines: "1단계: etc/\x1b[2Jevil.toml 에 참고 답을 씁니다\n내 파일은 백업 폴더에 남습니다",
				result: "2단계 앞까지 따라잡았습니다."}
			plans = append(plans, p)
			return p, nil
		},
		Rescan: func() { mu.Lock(); rescans++; mu.Unlock() }}
	out, typed, done := start(opts)
	say := func(l string) { io.WriteString(typed, l+"\n") }
	out.waitFor(t, "평문 모드")
	say("help")
	out.waitFor(t, "catch_up (catchup, 따라잡기): 지금 단계 앞의")
	say("따라잡기")
	out.waitFor(t, "2단계부터의 단계 페이지에서")
	say("2")
	say("catch_up")
	out.waitFor(t, "yes 또는 no 를 입력하세요. no 면")
	out.waitFor(t, "[2Jevil.toml") // the ESC shown as a symbol, never sent
	say("no")
	out.waitFor(t, "따라잡지 않았습니다.")
	say("catchup")
	out.waitFor(t, "yes 또는 no 를 입력하세요. no 면")
	say("네")
	out.waitFor(t, "2단계 앞까지 따라잡았습니다.")
	say("quit")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(plans) != 2 {
		t.Fatalf("%d plans made, want 2", len(plans))
	}
	if to, d, c := plans[0].counts(); to != 2 || d != 0 || c != 1 {
		t.Errorf("the plan answered no: to %d, done %d times, closed %d times; want to 2, never done, closed once", to, d, c)
	}
	if to, d, c := plans[1].counts(); to != 2 || d != 1 || c != 1 {
		t.Errorf("the plan answered yes: to %d, done %d times, closed %d times; want to 2, done and closed once", to, d, c)
	}
	s := out.String()
	if !strings.Contains(s, "1단계를 참고 답으로 채웠습니다.") {
		t.Errorf("the step done was not said:\n%s", s)
	}
	if strings.Contains(s, "\x1b") {
		t.Errorf("a control reached the output:\n%q", s)
	}
	if rescans != 1 {
		t.Errorf("files read again %d times after the catch-up, want once", rescans)
	}
}

// A plan read out and never answered is let go when plain mode ends;
// without a way to catch up, help does not offer it.
func TestPlainLetsAnUnansweredPlanGo(t *testing.T) {
	p := &plan{lines: "1단계", result: "끝"}
	out, typed, done := start(tui.Options{Lab: fixture.Lab(), Root: fixture.Root, StartPage: 2,
		PlanCatchUp: func(context.Context, int) (tui.CatchUpPlan, error) { return p, nil }})
	out.waitFor(t, "평문 모드")
	io.WriteString(typed, "catch_up\n")
	out.waitFor(t, "yes 또는 no")
	typed.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, d, c := p.counts(); d != 0 || c != 1 {
		t.Errorf("done %d, closed %d times; want never done, closed once", d, c)
	}

	out, typed, done = start(tui.Options{Lab: fixture.Lab(), Root: fixture.Root})
	out.waitFor(t, "평문 모드")
	io.WriteString(typed, "help\n")
	out.waitFor(t, "quit (")
	io.WriteString(typed, "catch_up\n")
	out.waitFor(t, "따라잡기를 할 수 없습니다")
	typed.Close()
	<-done
	if strings.Contains(out.String(), "catch_up (") {
		t.Errorf("help offers catch_up without a way to do it:\n%s", out.String())
	}
}

// The ending says a caught-up step caught up, with no time of its own,
// and how many steps the learner passed themselves, as the TUI's does.
func TestPlainEndingTellsCaughtUpSteps(t *testing.T) {
	lab := fixture.Lab()
	rep := fixture.With(fixture.With(fixture.Report(lab), lab, 1, checks.Passed), lab, 2, checks.Passed)
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	updates := make(chan labrun.Update, 1)
	updates <- labrun.Next(nil, rep)
	out, typed, done := start(tui.Options{Lab: lab, Root: fixture.Root, Updates: updates, Started: t0,
		PassedAt: map[int]time.Time{1: t0.Add(4 * time.Minute), 2: t0.Add(21 * time.Minute)}, CaughtUpAt: map[int]time.Time{2: t0.Add(20 * time.Minute)}})
	out.waitFor(t, "2단계 중 2단계를 통과했습니다.") // the report is read
	io.WriteString(typed, "ending\n")
	// The totals, as the TUI's ending has them: the learner's own step
	// and its time, never the caught-up one's.
	out.waitFor(t, content.Msg("tui.ending.total_own", "took", content.Duration(4*time.Minute), "n", 1))
	typed.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		content.Msg("tui.ending.no_page_caught_up", "title", lab.Title, "caught", 1),
		content.Msg("tui.ending.tally", "steps", 2, "own", 1, "caught", 1),
		"1. " + lab.Steps[0].Title + ": 걸린 시간 4분,",
		"2. " + lab.Steps[1].Title + ": 따라잡음 (참고 답으로 채움),",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the ending lacks %q:\n%s", want, s)
		}
	}
}
