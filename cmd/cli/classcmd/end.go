package classcmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/class/admin"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
)

// endOptions is `labmate class end`: what init made goes (the learners'
// accounts and with them their tokens, Roles, records, the class and lab
// objects), after the instructor saw what and said yes.
type endOptions struct {
	instructor
	Yes      bool
	streams  cli.Streams
	prompter cli.Prompter
}

func newEndCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &endOptions{streams: streams, prompter: f.Prompter()}
	cmd := o.command("end", f, o)
	cmd.Flags().BoolVar(&o.Yes, "yes", false, content.Msg("class.flag.yes_end"))
	return cmd
}

// Complete has nothing to fill in: the class is found when Run connects.
func (o *endOptions) Complete(cli.Factory, *cobra.Command, []string) error { return nil }

// Run shows what ending the class removes, asks (unless --yes) and ends
// it.
func (o *endOptions) Run(ctx context.Context) error {
	cs, ns, err := o.client()
	if err != nil {
		return err
	}
	plan, err := admin.PlanEnd(ctx, cs, ns)
	if err != nil {
		return listFailed(ns, err)
	}
	for _, l := range plan.Changes() {
		fmt.Fprintln(o.streams.Out, l)
	}
	if !o.Yes {
		fmt.Fprintln(o.streams.Out, content.Msg("class.cli.export_first", "cmd", o.line(ns, "class", "export", "--format", "json")))
		switch err := o.prompter.Confirm(content.Msg("class.cli.end_confirm", "ns", ns), "--yes"); {
		case errors.Is(err, cli.ErrNotConfirmed):
			return cli.Exit(cli.ExitFail, content.Msg("class.cli.end_cancelled", "ns", ns))
		case err != nil:
			return err
		}
	}
	ended, err := admin.End(ctx, cs, plan, 0)
	if err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("class.cli.end_failed", "ns", ns, "err", explainAdmin(err)))
	}
	fmt.Fprintln(o.streams.Out, content.Msg("class.cli.end_done", "ns", ns, "n", ended.Learners, "records", ended.Records))
	return nil
}
