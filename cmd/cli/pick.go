package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/trace"
	"github.com/labhub/labmate/tui"
)

// PickLab lets the learner choose a lab in a picker when nothing else
// says which to open and labmate runs on a terminal: the factory of the
// lab chosen, as --lab would have named it. With a lab already chosen
// (or an error the command reports itself) it is f. ok is false when the
// command must end with code (the learner left the picker, or it could
// not run).
func (f *Factory) PickLab(ctx context.Context, themeName string, streams Streams) (g *Factory, code int, ok bool) {
	_, err := f.Lab()
	ch, choose := catalog.IsChoose(err)
	if !choose || !IsTerminal(streams.Out) {
		return f, 0, true
	}
	var labs []tui.LabChoice
	for _, l := range ch.Labs {
		labs = append(labs, tui.LabChoice{ID: l.Ref, Title: l.Text.Title, Steps: len(l.Text.Steps)})
	}
	id, err := tui.PickLab(ctx, labs, themeName)
	if errors.Is(err, tui.ErrNoChoice) {
		return nil, ExitOK, false
	}
	if err != nil {
		fmt.Fprintln(streams.ErrOut, content.Msg("cli.tui_failed", "err", err))
		return nil, ExitFail, false
	}
	return f.WithLab(id), 0, true
}

// IsTerminal reports whether v is a terminal (x/term: a character
// device such as /dev/null is not one).
func IsTerminal(v any) bool {
	fd, ok := v.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(fd.Fd()))
}

// CompleteSteps lists the steps of the lab the command would open.
func (f *Factory) CompleteSteps(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	kit, err := f.Lab()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, s := range kit.Text.Steps {
		out = append(out, cobra.CompletionWithDesc(strconv.Itoa(s.Number), s.Title))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// CompleteTraces offers the built-in reference run; files complete as
// files.
func CompleteTraces(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return []cobra.Completion{cobra.CompletionWithDesc(trace.ReferenceName, content.Msg("cli.complete.reference"))}, cobra.ShellCompDirectiveDefault
}
