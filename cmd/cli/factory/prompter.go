package factory

import (
	"context"
	"errors"
	"log/slog"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/tui"
	"github.com/labhub/labmate/tui/terminal"
)

// picker is the Prompter of the labmate binary: the TUI's lab picker on
// the command's streams, when its stdout is a terminal, and a y/N
// question read from its stdin.
type picker struct{ streams cli.Streams }

// Confirm asks on the command's streams (cli.ConfirmOn).
func (p picker) Confirm(question, yesFlag string) error {
	return cli.ConfirmOn(p.streams, question, yesFlag)
}

func (p picker) PickLab(ctx context.Context, labs []catalog.Lab, theme string) (string, error) {
	if !cli.IsTerminal(p.streams.Out) {
		return "", cli.ErrNoTerminal
	}
	choices := make([]tui.LabChoice, len(labs))
	for i, l := range labs {
		choices[i] = tui.LabChoice{ID: l.Ref, Title: l.Text.Title, Steps: len(l.Text.Steps)}
	}
	id, err := tui.PickLab(ctx, terminal.NewContext(p.streams.In, p.streams.Out, theme, slog.Default()), choices)
	if errors.Is(err, tui.ErrNoChoice) {
		return "", cli.ErrNoChoice
	}
	return id, err
}
