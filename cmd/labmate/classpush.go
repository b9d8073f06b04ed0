package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
)

// The instructor's side of the class's lab: pack the lab a --lab names
// (class init --lab, class lab push) and store it in the class.

// storeLab puts the lab the class carries into its namespace, or says
// that the one lab named is built in and does not travel.
func (o *classInitOptions) storeLab(ctx context.Context) error {
	if o.ship == nil {
		if len(o.Labs) == 1 {
			fmt.Fprintln(o.streams.Out, content.Msg("class.cli.lab_builtin", "lab", o.Labs[0]))
		}
		return nil
	}
	a, err := class.StoreLab(ctx, o.cs, o.Namespace, *o.ship)
	if err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("class.cli.lab_store_failed", "ns", o.Namespace, "err", class.LabErr(err)))
	}
	fmt.Fprintln(o.streams.Out, content.Msg("class.cli.lab_stored", "lab", a.ID, "version", a.Version,
		"size", class.ByteSize(len(a.Bytes)), "sum", a.Sum))
	return nil
}

// ---------------------------------------------------------------- lab push

// classLabPushOptions is `labmate class lab push DIR|ID`: a new copy of
// the class's lab, mid-workshop.
type classLabPushOptions struct {
	adminFlags
	streams cli.Streams
}

func newClassLabCmd(streams cli.Streams) *cobra.Command {
	cmd := cli.NewCommand("class.lab", "push", cli.NoArgs, nil)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return &cli.UsageError{Cmd: cmd, Msg: content.Msg("class.cli.lab_which")}
	}
	o := &classLabPushOptions{streams: streams}
	push := cli.NewCommand("class.lab.push", "DIR|ID", cobra.ExactArgs(1), func(cmd *cobra.Command, args []string) int {
		return o.Run(cmd.Context(), args[0])
	})
	push.ValidArgsFunction = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs // a lab directory
	}
	o.bind(push)
	cmd.AddCommand(push)
	return cmd
}

// Run pushes the lab and returns the exit code.
func (o *classLabPushOptions) Run(ctx context.Context, ref string) int {
	return cli.ExitWith(o.push(ctx, ref), o.streams.ErrOut)
}

// push packs the lab and replaces the class's copy with it.
func (o *classLabPushOptions) push(ctx context.Context, ref string) error {
	a, ship, err := class.PackRef(ref)
	switch {
	case err != nil:
		return cli.UsageErr("class.cli.lab_refused", "lab", ref, "err", err)
	case !ship:
		return cli.UsageErr("class.cli.lab_cannot_travel", "lab", a.ID)
	case len(a.Bytes) > class.MaxLabBytes:
		return cli.Exit(cli.ExitUsage, class.LabTooBig{Size: len(a.Bytes)}.Error())
	}
	_, cs, ns, err := o.load(30 * time.Second)
	if err != nil {
		return err
	}
	stored, same, err := class.PushLab(ctx, cs, ns, a)
	switch {
	case errors.Is(err, class.ErrNoLab):
		return cli.Exit(cli.ExitUsage, content.Msg("class.cli.push_no_lab", "ns", ns))
	case err != nil:
		return cli.Exit(cli.ExitFail, content.Msg("class.cli.lab_store_failed", "ns", ns, "err", class.LabErr(err)))
	case same:
		fmt.Fprintln(o.streams.Out, content.Msg("class.cli.push_same", "lab", stored.ID, "version", stored.Version, "sum", stored.Sum))
	default:
		fmt.Fprintln(o.streams.Out, content.Msg("class.cli.lab_stored", "lab", stored.ID, "version", stored.Version,
			"size", class.ByteSize(len(stored.Bytes)), "sum", stored.Sum))
	}
	return nil
}
