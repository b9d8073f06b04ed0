package classcmd

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/admin"
	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/sandbox"
)

// initOptions is `labmate class init`.
type initOptions struct {
	instructor
	Learners string
	Out      string
	TokenTTL string
	Server   string
	Reissue  bool
	Yes      bool
	Sandbox  bool
	streams  cli.Streams
	prompter cli.Prompter

	names []admin.Entry
	out   string
	ttl   time.Duration
	labs  []string
	// ship is the lab the class carries (one --lab that can travel).
	ship *class.LabArchive
	err  error
}

func newInitCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &initOptions{streams: streams, prompter: f.Prompter()}
	cmd := o.command("init", f, o)
	cmd.Flags().StringVar(&o.Learners, "learners", "", content.Msg("class.flag.learners"))
	readsLab(cmd, "class.flag.labs")
	cmd.Flags().StringVar(&o.Out, "out", "", content.Msg("class.flag.out"))
	cmd.Flags().StringVar(&o.TokenTTL, "token-ttl", "7d", content.Msg("class.flag.token_ttl"))
	cmd.Flags().StringVar(&o.Server, "server", "", content.Msg("class.flag.server"))
	cmd.Flags().BoolVar(&o.Reissue, "reissue", false, content.Msg("class.flag.reissue"))
	cmd.Flags().BoolVar(&o.Yes, "yes", false, content.Msg("class.flag.yes"))
	cmd.Flags().BoolVar(&o.Sandbox, "sandbox", false, content.Msg("class.flag.sandbox"))
	cli.Metavars(cmd.Flags(), map[string]string{"token-ttl": "DURATION", "server": "URL", "learners": "N|FILE", "out": "DIR"})
	return cmd
}

// Complete fills the defaults, reads the learners and packs the lab the
// class carries; it starts nothing and connects nowhere, so a bad flag
// is refused before a cluster starts.
func (o *initOptions) Complete(f cli.Factory, cmd *cobra.Command, _ []string) error {
	learners, out := o.Learners, o.Out
	if o.Sandbox {
		if learners == "" {
			learners = "3"
		}
		if out == "" {
			out = "labmate-class"
		}
	}
	names, err := admin.Learners(learners)
	if err != nil {
		return cli.Exit(cli.ExitUsage, err.Error())
	}
	if o.ttl, err = admin.ParseTTL(o.TokenTTL); err != nil {
		return cli.Exit(cli.ExitUsage, err.Error())
	}
	labs, err := labList(cmd, f)
	if err != nil {
		return err
	}
	o.names, o.out = names, out
	o.labs, o.ship, o.err = classlab.Labs(labs)
	return nil
}

// labList is the labs the class uses: every --lab given, each a
// comma-separated list (as a string slice flag reads it).
func labList(cmd *cobra.Command, f cli.Factory) ([]string, error) {
	flags, _ := f.Flags()
	var labs []string
	for _, v := range flags.Labs {
		if v == "" {
			continue
		}
		refs, err := csv.NewReader(strings.NewReader(v)).Read()
		if err != nil {
			return nil, &cli.UsageError{Cmd: cmd, Msg: content.Msg("cli.flag_error.bad_value", "flag", "--lab", "value", v,
				"kind", content.Msg("cli.help.value"))}
		}
		labs = append(labs, refs...)
	}
	return labs, nil
}

// Validate checks what Complete cannot fix.
func (o *initOptions) Validate() error {
	switch {
	case len(o.names) == 0:
		return cli.UsageErr("class.cli.learners_missing")
	case o.out == "":
		return cli.UsageErr("class.cli.out_missing")
	case o.err != nil:
		return cli.Exit(cli.ExitUsage, o.err.Error())
	}
	return nil
}

// Run starts the sandbox (--sandbox), connects, plans the class, asks
// before it changes one that exists, creates it and writes the learners'
// kubeconfigs.
func (o *initOptions) Run(ctx context.Context) error {
	kubeconfig, cluster := "", o.cluster()
	if o.Sandbox {
		opts := sandbox.Options{Progress: o.streams.ErrOut}
		if err := sandbox.Up(ctx, opts); err != nil {
			return cli.Fail(err)
		}
		// Its own current context: the one kwokctl wrote.
		kubeconfig = sandbox.Kubeconfig(opts)
		cluster = cli.ClusterFlags{Kubeconfig: kubeconfig}
	}
	conn, ns, err := o.open(kubeconfig)
	if err != nil {
		return err
	}
	conn = conn.Within(requestTimeout)
	failed := func(err error) error {
		return cli.Exit(cli.ExitFail, content.Msg("class.cli.init_failed", "ns", ns, "err", explainAdmin(err)))
	}
	plan, err := admin.PlanInit(ctx, admin.InitConfig{
		Conn: conn, Namespace: ns, Learners: o.names, Labs: o.labs, Ship: o.ship, OutDir: o.out, TokenTTL: o.ttl,
		Server: o.Server, Reissue: o.Reissue,
	})
	if err != nil {
		return failed(err)
	}
	server := o.Server
	if server == "" {
		server = conn.Host()
	}
	for _, w := range admin.CheckServer(ctx, conn.Config(), server) {
		fmt.Fprintln(o.streams.ErrOut, w.Error())
	}
	if plan.NeedsConfirm() && !o.Yes {
		for _, l := range plan.Changes() {
			fmt.Fprintln(o.streams.Out, l)
		}
		fmt.Fprintln(o.streams.Out, content.Msg("class.cli.export_first", "cmd", o.lineWith(cluster, ns, "class", "export", "--format", "json")))
		switch err := o.prompter.Confirm(content.Msg("class.cli.init_confirm", "ns", ns), "--yes"); {
		case errors.Is(err, cli.ErrNotConfirmed):
			return cli.Exit(cli.ExitFail, content.Msg("class.cli.init_would_change", "ns", ns))
		case err != nil:
			return err
		}
	}
	res, err := admin.Apply(ctx, plan)
	if err != nil {
		return failed(err)
	}
	abs, _ := filepath.Abs(o.out)
	for _, l := range res.Lines(abs, time.Now()) {
		fmt.Fprintln(o.streams.Out, l)
	}
	if len(res.Files) > 0 {
		file := res.Files[0].Path
		fmt.Fprintln(o.streams.Out, content.Msg("class.cli.init_next",
			"doctor", shellLine("labmate", "doctor", "--class", file),
			"learner", shellLine("labmate", "--class", filepath.Base(file)),
			"board", o.lineWith(cluster, ns, "class", "board")))
	}
	return nil
}

// labPushOptions is `labmate class lab push DIR|ID`: a new copy of the
// class's lab, mid-workshop.
type labPushOptions struct {
	instructor
	streams cli.Streams
	ref     string
	archive class.LabArchive
	ship    bool
	err     error
}

func newLabCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	cmd := cli.Group("class.lab", "push", "class.cli.lab_which")
	o := &labPushOptions{streams: streams}
	push := cli.Command("class.lab.push", "DIR|ID", cobra.ExactArgs(1), f, o)
	push.ValidArgsFunction = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs // a lab directory
	}
	o.bind(push, f)
	cmd.AddCommand(push)
	return cmd
}

// Complete packs the lab the argument names.
func (o *labPushOptions) Complete(_ cli.Factory, _ *cobra.Command, args []string) error {
	o.ref = args[0]
	o.archive, o.ship, o.err = classlab.PackRef(o.ref)
	return nil
}

// Validate refuses a lab that cannot travel.
func (o *labPushOptions) Validate() error {
	switch {
	case o.err != nil:
		return cli.UsageErr("class.cli.lab_refused", "lab", o.ref, "err", o.err)
	case !o.ship:
		return cli.UsageErr("class.cli.lab_cannot_travel", "lab", o.archive.ID)
	case len(o.archive.Bytes) > class.MaxLabBytes:
		return cli.Exit(cli.ExitUsage, class.LabTooBig{Size: len(o.archive.Bytes)}.Error())
	}
	return nil
}

// Run replaces the class's copy of the lab.
func (o *labPushOptions) Run(ctx context.Context) error {
	cs, ns, err := o.client()
	if err != nil {
		return err
	}
	stored, same, err := classlab.PushLab(ctx, cs, ns, o.archive)
	switch {
	case errors.Is(err, class.ErrNoLab):
		return cli.UsageErr("class.cli.push_no_lab", "ns", ns)
	case err != nil:
		return cli.Exit(cli.ExitFail, content.Msg("class.cli.lab_store_failed", "ns", ns, "err", classlab.Explain(err)))
	case same:
		fmt.Fprintln(o.streams.Out, content.Msg("class.cli.push_same", "lab", stored.ID, "version", stored.Version, "sum", stored.Sum))
	default:
		fmt.Fprintln(o.streams.Out, content.Msg("class.cli.lab_stored", "lab", stored.ID, "version", stored.Version,
			"size", class.ByteSize(len(stored.Bytes)), "sum", stored.Sum))
	}
	return nil
}
