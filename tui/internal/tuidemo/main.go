// Command tuidemo runs the TUI on a fixed report, for the real-tmux tests
// and for looking at screens by hand. SIGUSR1 makes the first unfinished
// step pass; SIGUSR2 makes step 1 fail again (a regression). With
// TUIDEMO_PANIC set, the rescan key panics (for the panic test); -plain
// runs plain mode instead of the full-screen view; -bare
// runs bubbletea alone on a static view (the idle baseline); -board runs
// the instructor's board on a class one of whose records carries
// termtexttest.Hostile in its name, learner and failing check (for the
// test that no record drives the terminal); -catchup DIR gives the
// catch-up key a demo plan whose yes writes DIR/caught-up.
//
//	go run ./tui/internal/tuidemo [-lab real|fixture] [-theme dark|light|auto] [-board]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/term"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/termtext/termtexttest"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/tui"
	"github.com/labhub/labmate/tui/board"
	"github.com/labhub/labmate/tui/internal/fixture"
	"github.com/labhub/labmate/tui/plain"
	"github.com/labhub/labmate/tui/terminal"
)

func main() {
	which := flag.String("lab", "real", "real: the embedded GPU lab; fixture: the small test lab")
	themeName := flag.String("theme", "auto", "dark, light or auto")
	banner := flag.String("banner", "", "header banner")
	clip := flag.String("clipboard", "", "clipboard mode")
	bare := flag.Bool("bare", false, "a static view drawn by bubbletea's own renderer at terminal.FrameRate: the idle baseline")
	hostileBoard := flag.Bool("board", false, "the class board, one record carrying a hostile text")
	plainMode := flag.Bool("plain", false, "plain mode (tui/plain): lines and typed commands, no full-screen view")
	root := flag.String("root", fixture.Root, "the lab root (the edit key opens files under it)")
	catchUp := flag.String("catchup", "", "a directory: the catch-up key plans a demo catch-up whose yes writes caught-up there")
	flag.Parse()
	if *hostileBoard {
		if err := runBoard(*themeName); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *bare {
		if _, err := tea.NewProgram(bareModel{}, tea.WithAltScreen(), tea.WithFPS(terminal.FrameRate)).Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}

	lab := fixture.Lab()
	if *which == "real" {
		l, err := content.Load("gpu-incident")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		lab = l
	}
	updates := scriptedUpdates(lab)

	rescan := func() {}
	if os.Getenv("TUIDEMO_PANIC") != "" {
		// For the test that a panic restores the terminal.
		rescan = func() { panic("tuidemo: rescan panics on purpose") }
	}
	opts := tui.Options{
		Lab:       lab,
		Root:      *root,
		Updates:   updates,
		Rescan:    rescan,
		Banner:    *banner,
		Clipboard: *clip,
	}
	if dir := *catchUp; dir != "" {
		opts.PlanCatchUp = func(_ context.Context, to int) (tui.CatchUpPlan, error) { return demoPlan{dir: dir, to: to}, nil }
	}
	var err error
	if *plainMode {
		width, _, _ := term.GetSize(int(os.Stdout.Fd()))
		err = plain.Run(context.Background(), opts, plain.Config{In: os.Stdin, Out: os.Stdout, Width: width,
			Tmux: os.Getenv("TMUX") != "", Pane: os.Getenv("TMUX_PANE")})
	} else {
		err = tui.Run(context.Background(), terminal.NewContext(os.Stdin, os.Stdout, *themeName, nil), opts)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// scriptedUpdates starts the demo's run: every step as fixture.Report
// has it, then SIGUSR1 passes the first step not passed and SIGUSR2
// fails step 1 (how the tmux tests drive a change).
func scriptedUpdates(lab *content.Lab) chan labrun.Update {
	rep := fixture.Report(lab)
	updates := make(chan labrun.Update, 1)
	updates <- labrun.Next(nil, rep)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		for s := range sigs {
			prev := rep
			switch s {
			case syscall.SIGUSR1:
				for _, st := range rep.Steps {
					if st.Status != checks.Passed {
						rep = fixture.With(rep, lab, st.Number, checks.Passed)
						break
					}
				}
			case syscall.SIGUSR2:
				rep = fixture.With(rep, lab, 1, checks.Failed)
			}
			updates <- labrun.Next(&prev, rep)
		}
	}()
	return updates
}

// runBoard shows the board on a class of two learners, the first of
// whom (first in the board's order too) wrote termtexttest.Hostile
// where a record has text.
func runBoard(themeName string) error {
	now := time.Now()
	rec := func(learner, name, failing string) class.Record {
		return class.Record{Schema: class.Schema, Learner: learner, Name: name, Lab: "gpu-incident", Labmate: "dev",
			Updated: now, Current: 1, CurrentSince: now,
			Steps: []class.StepRecord{{Number: 1, Status: checks.Failed, Since: now,
				Failing: []class.FailingCheck{{ID: failing, Status: checks.Failed}}}}}
	}
	classes := make(chan class.Class, 1)
	classes <- class.Class{Synced: true, At: now, Records: []class.Record{
		rec("ana"+termtexttest.Hostile, termtexttest.Hostile, "check "+termtexttest.Hostile),
		rec("bo", "Bo", "files.merge"), // after the hostile name: names sort as Korean readers expect, Hangul first
	}}
	return board.Run(context.Background(), terminal.NewContext(os.Stdin, os.Stdout, themeName, nil),
		board.Options{Classes: classes, Namespace: "workshop", Lab: "gpu-incident"})
}

// bareModel draws a fixed screen and quits on q: what bubbletea itself
// costs while nothing changes.
type bareModel struct{}

func (bareModel) Init() tea.Cmd { return nil }

func (b bareModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && k.String() == "q" {
		return b, tea.Quit
	}
	return b, nil
}

func (bareModel) View() string { return "labmate idle baseline" }

// demoPlan is a catch-up whose Do writes dir/caught-up: the tmux test of
// the catch-up key sees the yes land outside the program.
type demoPlan struct {
	dir string
	to  int
}

func (p demoPlan) Lines() []string {
	return []string{
		content.Msg("catchup.plan.head", "to", p.to, "root", fixture.Root),
		content.Msg("catchup.plan.step", "step", p.to-1, "title", "데모 단계", "status", content.Msg("status.failed")),
		content.Msg("catchup.plan.write", "path", "etc/containerd/conf.d/99-nvidia.toml"),
		content.Msg("catchup.plan.progress"),
	}
}
func (p demoPlan) Empty() bool { return false }
func (p demoPlan) Do(_ context.Context, progress io.Writer) error {
	fmt.Fprintln(progress, content.Msg("catchup.progress.step", "step", p.to-1, "title", "데모 단계"))
	fmt.Fprintln(progress, content.Msg("catchup.progress.done", "step", p.to-1))
	return os.WriteFile(filepath.Join(p.dir, "caught-up"), []byte(fmt.Sprintln(p.to)), 0o644)
}
func (p demoPlan) Result() string { return content.Msg("catchup.done_no_backup", "to", p.to) }
func (p demoPlan) Close()         {}
func (p demoPlan) CaughtUp() map[int]time.Time {
	return map[int]time.Time{p.to - 1: time.Now()}
}
