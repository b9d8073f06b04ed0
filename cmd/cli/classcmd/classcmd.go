// Package classcmd is `labmate class`: the instructor's commands (init,
// board, export, report, lab push), which reach the class cluster
// through the admin's kubeconfig and need nothing of a learner's run,
// and the learner's preview of the record --class would send.
package classcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"mvdan.cc/sh/v3/syntax"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/admin"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/tui/board"
)

// requestTimeout bounds each of the instructor's one-off requests (init,
// export, report, lab push); the board's watch has none.
const requestTimeout = 30 * time.Second

// NewCmd is `labmate class`: init, board, export, report, end, preview
// and lab push.
func NewCmd(f *cli.Factory, streams cli.Streams) *cobra.Command {
	cmd := cli.Group("class", "init|board|export|report|end|preview|lab", "class.cli.which")
	cmd.AddCommand(newInitCmd(f, streams), newBoardCmd(f, streams), newExportCmd(f, streams), newReportCmd(f, streams),
		newEndCmd(f, streams), newLabCmd(f, streams), newPreviewCmd(f, streams))
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
// from content (cli.cmd.class.<name>), the admin's flags, o its options.
func (a *adminFlags) command(name string, f *cli.Factory, o cli.Options) *cobra.Command {
	cmd := cli.Command("class."+name, cli.FlagsUse(), cli.NoArgs, f, o)
	a.bind(cmd)
	return cmd
}

// open connects as the instructor; the namespace is the flag's, the
// context's, or admin.DefaultNamespace.
func (a *adminFlags) open() (*kube.Conn, string, error) {
	conn, ns, err := admin.Open(a.Kubeconfig, a.Context, a.Namespace)
	if err != nil {
		return nil, "", cli.UsageErr("class.cli.kubeconfig", "err", learner.Explain(err))
	}
	return conn, ns, nil
}

// line is a labmate command line for the class in ns, with the
// instructor's connection flags as given (so that it runs as printed),
// shell-quoted.
func (a *adminFlags) line(ns string, args ...string) string {
	words := append([]string{"labmate"}, args...)
	if a.Kubeconfig != "" {
		words = append(words, "--kubeconfig", a.Kubeconfig)
	}
	if a.Context != "" {
		words = append(words, "--context", a.Context)
	}
	return shellLine(append(words, "-n", ns)...)
}

// shellLine joins words into a line a shell reads back as those words.
func shellLine(words ...string) string {
	out := make([]string, len(words))
	for i, w := range words {
		q, err := syntax.Quote(w, syntax.LangPOSIX)
		if err != nil {
			q = w
		}
		out[i] = q
	}
	return strings.Join(out, " ")
}

// explainAdmin words an instructor's error: admin's own are Korean (the
// namespace refused, no class there, no such lab), the rest the
// cluster's (learner.Explain).
func explainAdmin(err error) string {
	var denied admin.NamespaceDenied
	var noClass admin.NoClass
	var noLab admin.NoLab
	if errors.As(err, &denied) || errors.As(err, &noClass) || errors.As(err, &noLab) {
		return err.Error()
	}
	return learner.Explain(err)
}

// typed is the connection's typed client, its error worded as open's.
func typed(conn *kube.Conn) (kube.Interface, error) {
	cs, err := conn.Typed()
	if err != nil {
		return nil, cli.UsageErr("class.cli.kubeconfig", "err", learner.Explain(err))
	}
	return cs, nil
}

// client is the instructor's typed client for one-off requests (each
// ends within requestTimeout) and the class namespace.
func (a *adminFlags) client() (kube.Interface, string, error) {
	conn, ns, err := a.open()
	if err != nil {
		return nil, "", err
	}
	cs, err := typed(conn.Within(requestTimeout))
	return cs, ns, err
}

// list reads the class's records of lab ("" for every lab) once: the
// export and the report.
func (a *adminFlags) list(ctx context.Context, lab string) (class.Class, string, error) {
	cs, ns, err := a.client()
	if err != nil {
		return class.Class{}, "", err
	}
	c, err := admin.List(ctx, cs, ns, lab)
	if err != nil {
		return class.Class{}, "", listFailed(ns, err)
	}
	return c, ns, nil
}

// listFailed is the exit of a class that could not be read: no class
// in the namespace and no records of the lab are said as they are
// (exit 1), naming what there is.
func listFailed(ns string, err error) error {
	if errors.As(err, new(admin.NoClass)) || errors.As(err, new(admin.NoLab)) {
		return cli.Exit(cli.ExitFail, err.Error())
	}
	return cli.Exit(cli.ExitFail, content.Msg("class.cli.list_failed", "ns", ns, "err", learner.Explain(err)))
}

// The class's records, read: the live board and the export.

// boardOptions is `labmate class board`.
type boardOptions struct {
	adminFlags
	Lab     string
	Stuck   time.Duration
	Theme   string
	streams cli.Streams
	ctx     context.Context
}

func newBoardCmd(f *cli.Factory, streams cli.Streams) *cobra.Command {
	o := &boardOptions{streams: streams}
	cmd := o.command("board", f, o)
	cmd.Flags().StringVar(&o.Lab, "lab", "", content.Msg("class.flag.board_lab"))
	cmd.Flags().DurationVar(&o.Stuck, "stuck", 10*time.Minute, content.Msg("class.flag.stuck"))
	cmd.Flags().StringVar(&o.Theme, "theme", "", content.Msg("cli.flag.theme"))
	return cmd
}

// Complete notes the context.
func (o *boardOptions) Complete(_ *cli.Factory, cmd *cobra.Command, _ []string) error {
	o.ctx = cmd.Context()
	return nil
}

// Validate has nothing to refuse.
func (o *boardOptions) Validate() error { return nil }

// Run shows the live board until the instructor quits.
func (o *boardOptions) Run() int {
	return cli.ExitWith(o.run(), o.streams.ErrOut)
}

func (o *boardOptions) run() error {
	conn, ns, err := o.open()
	if err != nil {
		return err
	}
	cs, err := typed(conn)
	if err != nil {
		return err
	}
	// A namespace without a class, or a lab without records, is said
	// before the board opens; an unreachable or refusing class cluster
	// the board itself shows.
	if once, err := typed(conn.Within(requestTimeout)); err == nil {
		if _, err := admin.List(o.ctx, once, ns, o.Lab); errors.As(err, new(admin.NoClass)) || errors.As(err, new(admin.NoLab)) {
			return listFailed(ns, err)
		}
	}
	ctx, cancel := context.WithCancel(o.ctx)
	defer cancel()
	err = board.Run(ctx, board.Options{
		Classes: admin.Watch(ctx, admin.WatchConfig{Client: cs, Namespace: ns, Lab: o.Lab}), Namespace: ns, Lab: o.Lab,
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
	ctx     context.Context
}

func newExportCmd(f *cli.Factory, streams cli.Streams) *cobra.Command {
	o := &exportOptions{streams: streams}
	cmd := o.command("export", f, o)
	cmd.Flags().StringVar(&o.Format, "format", "json", content.Msg("class.flag.format"))
	cmd.Flags().StringVar(&o.Lab, "lab", "", content.Msg("class.flag.board_lab"))
	return cmd
}

// Complete notes the context.
func (o *exportOptions) Complete(_ *cli.Factory, cmd *cobra.Command, _ []string) error {
	o.ctx = cmd.Context()
	return nil
}

// Validate refuses a format there is no writer for.
func (o *exportOptions) Validate() error {
	if o.Format != "csv" && o.Format != "json" {
		return cli.UsageErr("class.cli.format", "format", o.Format)
	}
	return nil
}

// Run writes the class's records as JSON or CSV.
func (o *exportOptions) Run() int {
	return cli.ExitWith(o.run(), o.streams.ErrOut)
}

func (o *exportOptions) run() error {
	c, _, err := o.list(o.ctx, o.Lab)
	if err != nil {
		return err
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
