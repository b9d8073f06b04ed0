package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/labhub/labmate/content"
)

// ErrNotConfirmed is Confirm's answer when the question was answered no.
var ErrNotConfirmed = errors.New("not confirmed")

// ConfirmOn asks question (Korean, ending in "[y/N] ") on streams and
// reads one line: a yes-word (y, yes, 예, 네, ㅇ) is yes, anything else no
// (ErrNotConfirmed). With no line to read (no terminal and nothing piped)
// it is an Exit of ExitFail saying the flag that answers yes instead.
// It is the labmate binary's Prompter.Confirm; commands ask through
// their factory's Prompter, so a test answers for the learner.
func ConfirmOn(streams Streams, question, yesFlag string) error {
	fmt.Fprint(streams.Out, question)
	answer, err := bufio.NewReader(streams.In).ReadString('\n')
	if !IsTerminal(streams.In) {
		// The answer was not echoed: end the question's line here.
		fmt.Fprintln(streams.Out)
	}
	if err != nil && strings.TrimSpace(answer) == "" {
		return Exit(ExitFail, content.Msg("cli.confirm.needs_flag", "flag", yesFlag))
	}
	a := strings.ToLower(strings.TrimSpace(answer))
	for _, yes := range strings.Fields(content.Msg("ops.reset.yes_words")) {
		if a == yes {
			return nil
		}
	}
	return ErrNotConfirmed
}
