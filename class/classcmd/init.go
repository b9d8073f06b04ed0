package classcmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/sandbox"
)

// initOptions is `labmate class init`.
type initOptions struct {
	adminFlags
	Learners string
	Labs     []string
	Out      string
	TokenTTL time.Duration
	Sandbox  bool
	streams  cli.Streams

	names []string
	cfg   *rest.Config
	cs    kube.Interface
	// ship is the lab the class carries (one --lab that can travel).
	ship *class.LabArchive
}

func newInitCmd(streams cli.Streams) *cobra.Command {
	o := &initOptions{streams: streams}
	cmd := o.command("init", o.Run)
	cmd.Flags().StringVar(&o.Learners, "learners", "", content.Msg("class.flag.learners"))
	cmd.Flags().StringSliceVar(&o.Labs, "lab", nil, content.Msg("class.flag.labs"))
	cmd.Flags().StringVar(&o.Out, "out", "", content.Msg("class.flag.out"))
	cmd.Flags().DurationVar(&o.TokenTTL, "token-ttl", 24*time.Hour, content.Msg("class.flag.token_ttl"))
	cmd.Flags().BoolVar(&o.Sandbox, "sandbox", false, content.Msg("class.flag.sandbox"))
	return cmd
}

// Complete fills the defaults and reads the learners; it starts nothing
// and connects nowhere, so a bad flag is refused before a cluster starts.
func (o *initOptions) Complete() error {
	if o.Sandbox {
		if o.Learners == "" {
			o.Learners = "3"
		}
		if o.Out == "" {
			o.Out = "labmate-class"
		}
	}
	names, err := class.Learners(o.Learners)
	if err != nil {
		return cli.Exit(cli.ExitUsage, err.Error())
	}
	o.names = names
	return nil
}

// Validate checks what Complete cannot fix.
func (o *initOptions) Validate() error {
	if len(o.names) == 0 {
		return cli.UsageErr("class.cli.learners_missing")
	}
	if o.Out == "" {
		return cli.UsageErr("class.cli.out_missing")
	}
	labs, ship, err := class.Labs(o.Labs)
	if err != nil {
		return cli.Exit(cli.ExitUsage, err.Error())
	}
	o.Labs, o.ship = labs, ship
	return nil
}

// Run is the command: run's error said on stderr, as the exit code.
func (o *initOptions) Run(ctx context.Context) int {
	return cli.ExitWith(o.run(ctx), o.streams.ErrOut)
}

// run completes and validates the flags, then creates the class.
func (o *initOptions) run(ctx context.Context) error {
	if err := o.Complete(); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	return o.create(ctx)
}

// create starts the sandbox (--sandbox), connects, creates the class and
// writes the learners' kubeconfigs.
func (o *initOptions) create(ctx context.Context) error {
	if o.Sandbox {
		opts := sandbox.Options{Progress: o.streams.ErrOut}
		if err := sandbox.Up(ctx, opts); err != nil {
			return cli.Exit(cli.ExitFail, err.Error())
		}
		// Its own current context: the one kwokctl wrote.
		o.Kubeconfig, o.Context = sandbox.Kubeconfig(opts), ""
	}
	var err error
	if o.cfg, o.cs, o.Namespace, err = o.load(30 * time.Second); err != nil {
		return err
	}
	files, err := class.Init(ctx, class.InitConfig{
		Client: o.cs, Server: o.cfg, Namespace: o.Namespace, Learners: o.names, Labs: o.Labs,
		OutDir: o.Out, TokenTTL: o.TokenTTL,
	})
	if err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("class.cli.init_failed", "ns", o.Namespace, "err", class.Explain(err)))
	}
	legacy := false
	for _, f := range files {
		legacy = legacy || f.Legacy
	}
	if err := o.storeLab(ctx); err != nil {
		return err
	}
	abs, _ := filepath.Abs(o.Out)
	fmt.Fprintln(o.streams.Out, content.Msg("class.cli.init_done", "n", len(files), "ns", o.Namespace, "dir", abs))
	if legacy {
		fmt.Fprintln(o.streams.Out, content.Msg("class.cli.init_legacy_tokens"))
	}
	if len(files) > 0 {
		fmt.Fprintln(o.streams.Out, content.Msg("class.cli.init_next", "file", files[0].Path, "ns", o.Namespace))
	}
	return nil
}

// storeLab puts the lab the class carries into its namespace, or says
// that the one lab named is built in and does not travel.
func (o *initOptions) storeLab(ctx context.Context) error {
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

// labPushOptions is `labmate class lab push DIR|ID`: a new copy of
// the class's lab, mid-workshop.
type labPushOptions struct {
	adminFlags
	streams cli.Streams
}

func newLabCmd(streams cli.Streams) *cobra.Command {
	cmd := cli.NewCommand("class.lab", "push", cli.NoArgs, nil)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return &cli.UsageError{Cmd: cmd, Msg: content.Msg("class.cli.lab_which")}
	}
	o := &labPushOptions{streams: streams}
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
func (o *labPushOptions) Run(ctx context.Context, ref string) int {
	return cli.ExitWith(o.push(ctx, ref), o.streams.ErrOut)
}

// push packs the lab and replaces the class's copy with it.
func (o *labPushOptions) push(ctx context.Context, ref string) error {
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
