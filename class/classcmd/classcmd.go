// Package classcmd is the instructor's `labmate class` commands: init,
// board, export, report and lab push, each a cobra command around its
// options (kubectl's pkg/cmd shape). They reach the class cluster through
// the admin's kubeconfig and need nothing of a learner's run; cmd/labmate
// adds the learner's one (preview) and the command to its root.
package classcmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/tui/board"
)

// NewCmd is `labmate class`: init, board, export, report and lab push,
// and the commands more adds (the learner's preview, which cmd/labmate
// wires).
func NewCmd(streams cli.Streams, more ...*cobra.Command) *cobra.Command {
	cmd := cli.NewCommand("class", "init|board|export|report|preview|lab", cli.NoArgs, nil)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return &cli.UsageError{Cmd: cmd, Msg: content.Msg("class.cli.which")}
	}
	cmd.AddCommand(newInitCmd(streams), newBoardCmd(streams), newExportCmd(streams), newReportCmd(streams), newLabCmd(streams))
	cmd.AddCommand(more...)
	return cmd
}

// adminFlags are the instructor-side connection flags.
type adminFlags struct {
	Kubeconfig string
	Context    string
	Namespace  string
}

func (a *adminFlags) bind(cmd *cobra.Command) {
	cmd.Flags().StringVar(&a.Kubeconfig, "kubeconfig", "", content.Msg("cli.flag.kubeconfig"))
	cmd.Flags().StringVar(&a.Context, "context", "", content.Msg("cli.flag.context"))
	cmd.Flags().StringVarP(&a.Namespace, "namespace", "n", "", content.Msg("class.flag.namespace"))
}

// command is a class command that connects as the instructor: its help
// from content (cli.cmd.class.<name>), the admin's flags, and run, an
// Options' Run, giving the exit code.
func (a *adminFlags) command(name string, run func(context.Context) int) *cobra.Command {
	cmd := cli.NewCommand("class."+name, cli.FlagsUse(), cli.NoArgs, func(cmd *cobra.Command, _ []string) int {
		return run(cmd.Context())
	})
	a.bind(cmd)
	return cmd
}

func (a *adminFlags) load(timeout time.Duration) (*rest.Config, kube.Interface, string, error) {
	cfg, ns, err := class.LoadAdmin(a.Kubeconfig, a.Context, a.Namespace, timeout)
	if err != nil {
		return nil, nil, "", cli.UsageErr("class.cli.kubeconfig", "err", class.Explain(err))
	}
	cs, err := class.Clientset(cfg)
	if err != nil {
		return nil, nil, "", cli.UsageErr("class.cli.kubeconfig", "err", class.Explain(err))
	}
	return cfg, cs, ns, nil
}

// The class's records, read: the live board and the export.

// boardOptions is `labmate class board`.
type boardOptions struct {
	adminFlags
	Lab     string
	Stuck   time.Duration
	Theme   string
	streams cli.Streams
}

func newBoardCmd(streams cli.Streams) *cobra.Command {
	o := &boardOptions{streams: streams}
	cmd := o.command("board", o.Run)
	cmd.Flags().StringVar(&o.Lab, "lab", "", content.Msg("class.flag.board_lab"))
	cmd.Flags().DurationVar(&o.Stuck, "stuck", 10*time.Minute, content.Msg("class.flag.stuck"))
	cmd.Flags().StringVar(&o.Theme, "theme", "", content.Msg("cli.flag.theme"))
	return cmd
}

// Run is the command: run's error said on stderr, as the exit code.
func (o *boardOptions) Run(ctx context.Context) int {
	return cli.ExitWith(o.run(ctx), o.streams.ErrOut)
}

// run shows the live board until the instructor quits.
func (o *boardOptions) run(ctx context.Context) error {
	_, cs, ns, err := o.load(0)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err = board.Run(ctx, board.Options{
		Classes: class.Watch(ctx, cs, ns, o.Lab), Namespace: ns, Lab: o.Lab,
		Stuck: o.Stuck, Theme: o.Theme,
	})
	if err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("cli.tui_failed", "err", err))
	}
	return nil
}

// exportOptions is `labmate class export`.
type exportOptions struct {
	adminFlags
	Format  string
	Lab     string
	streams cli.Streams
}

func newExportCmd(streams cli.Streams) *cobra.Command {
	o := &exportOptions{streams: streams}
	cmd := o.command("export", o.Run)
	cmd.Flags().StringVar(&o.Format, "format", "json", content.Msg("class.flag.format"))
	cmd.Flags().StringVar(&o.Lab, "lab", "", content.Msg("class.flag.board_lab"))
	return cmd
}

// Run is the command: run's error said on stderr, as the exit code.
func (o *exportOptions) Run(ctx context.Context) int {
	return cli.ExitWith(o.run(ctx), o.streams.ErrOut)
}

// run writes the class's records as JSON or CSV.
func (o *exportOptions) run(ctx context.Context) error {
	if o.Format != "csv" && o.Format != "json" {
		return cli.UsageErr("class.cli.format", "format", o.Format)
	}
	_, cs, ns, err := o.load(30 * time.Second)
	if err != nil {
		return err
	}
	c, err := class.List(ctx, cs, ns, o.Lab)
	if err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("class.cli.list_failed", "ns", ns, "err", class.Explain(err)))
	}
	for _, r := range c.Records {
		if r.Flag != "" {
			fmt.Fprintln(o.streams.ErrOut, content.Msg("class.cli.flagged_record", "name", class.ObjectName(r.Learner, r.Lab),
				"flag", content.Msg("class.board.mark."+string(r.Flag))))
		}
	}
	if o.Format == "csv" {
		return class.WriteCSV(o.streams.Out, c)
	}
	return class.WriteJSON(o.streams.Out, c)
}
