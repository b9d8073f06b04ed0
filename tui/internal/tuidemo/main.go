// Command tuidemo runs the TUI on a fixed report, for the real-tmux tests
// and for looking at screens by hand. SIGUSR1 makes the first unfinished
// step pass; SIGUSR2 makes step 1 fail again (a regression). With
// TUIDEMO_PANIC set, the rescan key panics (for the panic test); -bare
// runs bubbletea alone on a static view (the idle baseline).
//
//	go run ./tui/internal/tuidemo [-lab real|fixture] [-theme dark|light|auto]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/tui"
	"github.com/labhub/labmate/tui/internal/fixture"
)

func main() {
	which := flag.String("lab", "real", "real: the embedded GPU lab; fixture: the small test lab")
	themeName := flag.String("theme", "auto", "dark, light or auto")
	banner := flag.String("banner", "", "header banner")
	clip := flag.String("clipboard", "", "clipboard mode")
	bare := flag.Bool("bare", false, "a static view drawn by bubbletea's own renderer at tui.FrameRate: the idle baseline")
	flag.Parse()
	if *bare {
		if _, err := tea.NewProgram(bareModel{}, tea.WithAltScreen(), tea.WithFPS(tui.FrameRate)).Run(); err != nil {
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

	rescan := func() {}
	if os.Getenv("TUIDEMO_PANIC") != "" {
		// For the test that a panic restores the terminal.
		rescan = func() { panic("tuidemo: rescan panics on purpose") }
	}
	err := tui.Run(context.Background(), tui.Options{
		Lab:       lab,
		Root:      fixture.Root,
		Updates:   updates,
		Rescan:    rescan,
		Theme:     *themeName,
		Banner:    *banner,
		Clipboard: *clip,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
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
