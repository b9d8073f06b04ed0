package classcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/state"
)

// handOptions is `labmate class hand [NOTE...] --class FILE` and
// `labmate class hand --down --class FILE`: the learner's hand raised or
// lowered from a terminal of its own (a shell, beside `check --watch
// --class`, which reads no input), whether or not their labmate runs.
type handOptions struct {
	File string
	Down bool

	words   []string // the note's
	streams cli.Streams
	cmd     *cobra.Command
	l       *learner.Learner
	// state opens the learner's state for the lab (the class's when
	// none is named): its store keeps the act where a running labmate
	// of the learner's picks it up.
	state func() (*cli.State, error)
	now   func() time.Time
}

// note is the words after the command, the hand's note.
func (o *handOptions) note() string { return strings.Join(o.words, " ") }

func newHandCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &handOptions{streams: streams, now: time.Now}
	cmd := cli.Command("class.hand", "[NOTE...] "+cli.FlagsUse(), cobra.ArbitraryArgs, f, o)
	cmd.Flags().StringVar(&o.File, "class", "", content.Msg("class.flag.class"))
	cmd.Flags().BoolVar(&o.Down, "down", false, content.Msg("class.flag.hand_down"))
	cli.Metavars(cmd.Flags(), map[string]string{"class": "FILE"})
	_ = cmd.MarkFlagFilename("class")
	return cmd
}

// Complete opens the class file and finds the lab (the class's when
// none is named).
func (o *handOptions) Complete(f cli.Factory, cmd *cobra.Command, args []string) error {
	o.cmd, o.words = cmd, args
	if o.File == "" {
		return nil // Validate says so
	}
	l, err := f.Learner(o.File)
	if err != nil {
		return cli.UsageErr("class.doctor.bad_file", "path", o.File, "err", learner.Explain(err))
	}
	o.l = l
	g, err := f.ForClass(cmd.Context(), o.File)
	if err != nil {
		return err
	}
	if _, err := g.Lab(); err != nil {
		return err
	}
	o.state = g.State
	return nil
}

// Validate refuses a hand without a class and a note on a lowering.
func (o *handOptions) Validate() error {
	if o.File == "" {
		return &cli.UsageError{Cmd: o.cmd, Msg: content.Msg("class.cli.hand_no_class")}
	}
	if o.Down && len(o.words) > 0 {
		return &cli.UsageError{Cmd: o.cmd, Msg: content.Msg("class.cli.hand_down_note", "note", o.note())}
	}
	return nil
}

// Run raises or lowers the hand (learner.SetHand) and says what it did.
func (o *handOptions) Run(ctx context.Context) error {
	st, err := o.state()
	if err != nil {
		return cli.Env(err)
	}
	way := "up"
	if o.Down {
		way = "down"
	}
	act := state.HandAct{Up: !o.Down, Note: o.note(), At: o.now()}
	kept := false
	keep := func(a state.HandAct) error {
		if st.Store == nil {
			return nil
		}
		if _, err := st.Store.RecordHand(a); err != nil {
			return notKept{err}
		}
		kept = true
		return nil
	}
	act, _, err = learner.SetHand(ctx, o.l, st.Lab.ID, act, keep)
	switch {
	case errors.Is(err, learner.ErrNotPublished):
		return cli.Exit(cli.ExitFail, content.Msg("class.hand.not_published", "file", o.File))
	case errors.Is(err, learner.ErrNoStep):
		return cli.Exit(cli.ExitFail, content.Msg("tui.hand.no_step"))
	case err != nil && kept:
		return cli.Exit(cli.ExitFail, content.Msg("class.hand.kept_"+way, "err", learner.Explain(err)))
	case errors.As(err, new(notKept)):
		return cli.Exit(cli.ExitFail, err.Error())
	case err != nil:
		return cli.Exit(cli.ExitFail, content.Msg("class.hand.failed_"+way, "err", learner.Explain(err)))
	}
	if o.Down {
		fmt.Fprintln(o.streams.Out, content.Msg("class.hand.lowered"))
		return nil
	}
	fmt.Fprintln(o.streams.Out, content.Msg("class.hand.raised", "step", act.Step, "file", o.File))
	return nil
}

// notKept is a hand act the progress file refused: nothing was sent
// then, for a running labmate would not know of it and undo it.
type notKept struct{ err error }

func (e notKept) Error() string { return content.Msg("class.hand.not_kept", "err", e.err) }
