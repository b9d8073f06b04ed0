package plain

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/tui"
	"github.com/labhub/labmate/tui/internal/fixture"
)

// syncBuf is an output the test reads while Run writes.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuf) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("never said %q:\n%s", want, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// start runs plain mode on opts, 200 columns wide: what it says, where
// the test types, and Run's error when it ends.
func start(opts tui.Options) (out *syncBuf, typed *io.PipeWriter, done <-chan error) {
	in, typed := io.Pipe()
	out = &syncBuf{}
	d := make(chan error, 1)
	go func() { d <- Run(context.Background(), opts, Config{In: in, Out: out, Width: 200}) }()
	return out, typed, d
}

func TestPlainSaysEachChangeOnceAndTakesCommands(t *testing.T) {
	lab := fixture.Lab()
	rep := fixture.Report(lab)
	updates := make(chan labrun.Update, 1)
	in, typed := io.Pipe()
	out := &syncBuf{}
	var saved []int
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), tui.Options{Lab: lab, Root: fixture.Root, Updates: updates,
			OnProgress: func(step, hints int, _ bool) error { saved = append(saved, step*10+hints); return nil }},
			Config{In: in, Out: out, Width: 200})
	}()
	out.waitFor(t, "평문 모드")
	updates <- labrun.Next(nil, rep)
	out.waitFor(t, "2단계 중 1단계를 통과했습니다.")
	type line = string
	say := func(l line) { io.WriteString(typed, l+"\n") }
	say("help")
	out.waitFor(t, "edit (e, 편집)")
	out.waitFor(t, "help (?, 도움말, h?): 이 명령 목록을 읽어 줍니다")
	say("2")
	out.waitFor(t, "위치: etc/containerd/conf.d/99-nvidia.toml:6:17")
	say("힌트")
	out.waitFor(t, "힌트 1/3: 테이블 이름은 runtimes.nvidia 입니다.")
	say("compare")
	out.waitFor(t, "단계를 통과한 뒤에")
	next := fixture.With(rep, lab, 2, checks.Passed)
	updates <- labrun.Next(&rep, next)
	out.waitFor(t, "2단계 toolkit 이 떨어뜨리는 드롭인 재현: 미통과에서 통과로 바뀌었습니다.")
	out.waitFor(t, "모든 단계를 통과했습니다")
	// The same report again changes nothing: nothing more is said.
	updates <- labrun.Next(&next, next)
	say("frobnicate")
	out.waitFor(t, "frobnicate 는 모르는 명령입니다")
	say("quit")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if n := strings.Count(s, "통과로 바뀌었습니다"); n != 1 {
		t.Errorf("the change was said %d times:\n%s", n, s)
	}
	if strings.ContainsAny(s, "\x1b\r") {
		t.Errorf("plain mode wrote a control:\n%q", s)
	}
	for _, l := range strings.Split(s, "\n") {
		if w := len([]rune(l)); w > 0 && strings.HasPrefix(l, " ") && strings.TrimSpace(l) == "" {
			t.Errorf("a blank line of spaces: %q", l)
		}
	}
	if len(saved) != 1 || saved[0] != 21 {
		t.Errorf("hints saved %v", saved)
	}
}

// Colour only when asked, and then only SGR around the word.
func TestPlainColourOnlyWhenAsked(t *testing.T) {
	if s := (&companion{}).status(checks.Passed); s != "통과" {
		t.Errorf("not asked: %q", s)
	}
	s := (&companion{cfg: Config{Color: true}}).status(checks.Failed)
	if !strings.HasPrefix(s, "\x1b[") || !strings.Contains(s, "미통과") || strings.Contains(s, "\x1b[H") {
		t.Errorf("asked: %q", s)
	}
}

// A lab root still to be made is said first, and make_root (the TUI's
// m) makes the directory once, as the TUI's key does.
func TestPlainMakesAMissingRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "gpuop")
	place := labroot.Look(labroot.Root{Path: root, From: labroot.FromHome})
	if place.State != labroot.Missing || !place.CanMake {
		t.Fatalf("place %+v, want missing and makeable", place)
	}
	out, typed, done := start(tui.Options{Lab: fixture.Lab(), Root: root, Place: place})
	out.waitFor(t, "make_root 를 입력하면")
	io.WriteString(typed, "help\n")
	out.waitFor(t, "make_root (m, 만들기):")
	io.WriteString(typed, "m\n")
	out.waitFor(t, "디렉터리를 만들었습니다")
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		t.Fatalf("the root was not made: %v", err)
	}
	io.WriteString(typed, "만들기\n")
	out.waitFor(t, "만들 수 있을 때만 되는 명령입니다")
	typed.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
