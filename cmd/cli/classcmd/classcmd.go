// Package classcmd is `labmate class`: the instructor's commands (init,
// board, export, report, lab push), which reach the class cluster
// through the admin's kubeconfig and need nothing of a learner's run,
// and the learner's preview of the record --class would send and their
// hand.
package classcmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
	"github.com/labhub/labmate/tui/terminal"
)

// requestTimeout bounds each of the instructor's one-off requests (init,
// export, report, lab push); the board's watch has none.
const requestTimeout = 30 * time.Second

// NewCmd is `labmate class`: init, board, export, report, end, preview,
// hand and lab push.
func NewCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	cmd := cli.Group("class", "init|board|export|report|end|preview|hand|lab", "class.cli.which")
	cmd.AddCommand(newInitCmd(f, streams), newBoardCmd(f, streams), newExportCmd(f, streams), newReportCmd(f, streams),
		newEndCmd(f, streams), newLabCmd(f, streams), newPreviewCmd(f, streams), newHandCmd(f, streams))
	return cmd
}

// instructor is how a class command connects as the instructor: the
// factory's connection from the root's --kubeconfig and --context (a
// command binds no flag the root has), and its own -n.
type instructor struct {
	Namespace string
	admin     func(kubeconfig string) (kube.Conn, error)
	// cluster are the root's --kubeconfig and --context as given: the
	// lines a command prints keep them.
	cluster func() cli.ClusterFlags
}

// bind binds -n and words, in cmd's help, the root's --kubeconfig and
// --context as the instructor's.
func (a *instructor) bind(cmd *cobra.Command, f cli.Factory) {
	a.admin = f.Admin
	a.cluster = func() cli.ClusterFlags { _, c := f.Flags(); return c }
	cmd.Flags().StringVarP(&a.Namespace, "namespace", "n", "", content.Msg("class.flag.namespace"))
	cli.Reads(cmd, "kubeconfig", content.Msg("cli.flag.kubeconfig"), "")
	cli.Reads(cmd, "context", content.Msg("cli.flag.context"), "")
}

// command is a class command that connects as the instructor: its help
// from content (cli.cmd.class.<name>), the instructor's flags, o its
// options.
func (a *instructor) command(name string, f cli.Factory, o cli.Options) *cobra.Command {
	cmd := cli.Command("class."+name, cli.FlagsUse(), cli.NoArgs, f, o)
	a.bind(cmd, f)
	return cmd
}

// readsLab words the root's --lab in cmd's help as the class's lab
// (usage, a content key).
func readsLab(cmd *cobra.Command, usage string) {
	cli.Reads(cmd, "lab", content.Msg(usage), "")
}

// open connects as the instructor (kubeconfig "": the flags'); the
// namespace is the flag's, the context's, or admin.DefaultNamespace.
func (a *instructor) open(kubeconfig string) (kube.Conn, string, error) {
	conn, err := a.admin(kubeconfig)
	if err != nil {
		return nil, "", cli.UsageErr("class.cli.kubeconfig", "err", learner.Explain(err))
	}
	return conn, admin.Namespace(conn, a.Namespace), nil
}

// line is a labmate command line for the class in ns, with the
// instructor's connection flags as given (so that it runs as printed),
// shell-quoted.
func (a *instructor) line(ns string, args ...string) string {
	return a.lineWith(a.cluster(), ns, args...)
}

// lineWith is line with the connection flags c.
func (a *instructor) lineWith(c cli.ClusterFlags, ns string, args ...string) string {
	words := append([]string{"labmate"}, args...)
	if c.Kubeconfig != "" {
		words = append(words, "--kubeconfig", c.Kubeconfig)
	}
	if c.Context != "" {
		words = append(words, "--context", c.Context)
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
func typed(conn kube.Conn) (kube.Interface, error) {
	cs, err := conn.Typed()
	if err != nil {
		return nil, cli.UsageErr("class.cli.kubeconfig", "err", learner.Explain(err))
	}
	return cs, nil
}

// client is the instructor's typed client for one-off requests (each
// ends within requestTimeout) and the class namespace.
func (a *instructor) client() (kube.Interface, string, error) {
	conn, ns, err := a.open("")
	if err != nil {
		return nil, "", err
	}
	cs, err := typed(conn.Within(requestTimeout))
	return cs, ns, err
}

// list reads the class's records of lab ("" for every lab) once: the
// export and the report.
func (a *instructor) list(ctx context.Context, lab string) (class.Class, string, error) {
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
	instructor
	Stuck   time.Duration
	Theme   string
	streams cli.Streams
	lab     string // the root's --lab: only this lab's records
}

func newBoardCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &boardOptions{streams: streams}
	cmd := o.command("board", f, o)
	readsLab(cmd, "class.flag.board_lab")
	cmd.Flags().DurationVar(&o.Stuck, "stuck", 10*time.Minute, content.Msg("class.flag.stuck"))
	cmd.Flags().StringVar(&o.Theme, "theme", "", content.Msg("cli.flag.theme"))
	return cmd
}

// Complete takes the lab whose records the board shows.
func (o *boardOptions) Complete(f cli.Factory, _ *cobra.Command, _ []string) error {
	labs, _ := f.Flags()
	o.lab = labs.Lab
	return nil
}

// Run shows the live board until the instructor quits.
func (o *boardOptions) Run(ctx context.Context) error {
	conn, ns, err := o.open("")
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
		if _, err := admin.List(ctx, once, ns, o.lab); errors.As(err, new(admin.NoClass)) || errors.As(err, new(admin.NoLab)) {
			return listFailed(ns, err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Acknowledgements are one-off requests: they end in time.
	reqs, err := typed(conn.Within(ackTimeout))
	if err != nil {
		return err
	}
	ack := acknowledger(ctx, reqs, ns)
	tc := terminal.NewContext(o.streams.In, o.streams.Out, o.Theme, slog.Default())
	err = board.Run(ctx, tc, board.Options{
		Classes: admin.Watch(ctx, admin.WatchConfig{Client: cs, Namespace: ns, Lab: o.lab}), Namespace: ns, Lab: o.lab,
		Stuck: o.Stuck, Acknowledge: ack,
	})
	if err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("cli.tui_failed", "err", err))
	}
	return nil
}

// ackTimeout bounds the board's acknowledgement of a raised hand.
const ackTimeout = 10 * time.Second

// exportOptions is `labmate class export`.
type exportOptions struct {
	instructor
	Format  string
	streams cli.Streams
	lab     string // the root's --lab: only this lab's records
}

func newExportCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &exportOptions{streams: streams}
	cmd := o.command("export", f, o)
	cmd.Flags().StringVar(&o.Format, "format", "json", content.Msg("class.flag.format"))
	readsLab(cmd, "class.flag.board_lab")
	return cmd
}

// Complete takes the lab whose records are exported.
func (o *exportOptions) Complete(f cli.Factory, _ *cobra.Command, _ []string) error {
	labs, _ := f.Flags()
	o.lab = labs.Lab
	return nil
}

// Validate refuses a format there is no writer for.
func (o *exportOptions) Validate() error {
	if o.Format != "csv" && o.Format != "json" {
		return cli.UsageErr("class.cli.format", "format", o.Format)
	}
	return nil
}

// Run writes the class's records as JSON or CSV; a record whose object
// says otherwise than its contents is named on stderr.
func (o *exportOptions) Run(ctx context.Context) error {
	c, _, err := o.list(ctx, o.lab)
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

// acknowledger is the board's acknowledgement of a hand in ns: its
// failure worded as the instructor's other errors are (explainAdmin),
// for the board shows it as it is, never the cluster's English.
func acknowledger(ctx context.Context, cs kube.Interface, ns string) func(learnerID, lab string, hand class.Hand) error {
	return func(learnerID, lab string, hand class.Hand) error {
		if err := admin.Acknowledge(ctx, cs, ns, learnerID, lab, hand, time.Now()); err != nil {
			return errors.New(explainAdmin(err))
		}
		return nil
	}
}
