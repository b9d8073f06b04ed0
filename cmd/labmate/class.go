package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/tui/board"
)

// newClassCmd is `labmate class`: init, board, export, preview, lab push.
func newClassCmd(c *common, streams cli.Streams) *cobra.Command {
	cmd := cli.NewCommand("class", "init|board|export|report|preview|lab", cli.NoArgs, nil)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return &cli.UsageError{Cmd: cmd, Msg: content.Msg("class.cli.which")}
	}
	cmd.AddCommand(newClassInitCmd(streams), newClassBoardCmd(streams), newClassExportCmd(streams), newClassReportCmd(streams), newClassPreviewCmd(c, streams),
		newClassLabCmd(streams))
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

func (a *adminFlags) load(timeout time.Duration) (*rest.Config, kubernetes.Interface, string, error) {
	cfg, ns, err := class.LoadAdmin(a.Kubeconfig, a.Context, a.Namespace, timeout)
	if err != nil {
		return nil, nil, "", cli.UsageErr("class.cli.kubeconfig", "err", classErr(err))
	}
	cs, err := class.Clientset(cfg)
	if err != nil {
		return nil, nil, "", cli.UsageErr("class.cli.kubeconfig", "err", classErr(err))
	}
	return cfg, cs, ns, nil
}

// ---------------------------------------------------------------- init

// classInitOptions is `labmate class init`.
type classInitOptions struct {
	adminFlags
	Learners string
	Labs     []string
	Out      string
	TokenTTL time.Duration
	Sandbox  bool
	streams  cli.Streams

	names []string
	cfg   *rest.Config
	cs    kubernetes.Interface
	// ship is the lab the class carries (one --lab that can travel).
	ship *class.LabArchive
}

func newClassInitCmd(streams cli.Streams) *cobra.Command {
	o := &classInitOptions{streams: streams}
	cmd := cli.NewCommand("class.init", cli.FlagsUse(), cli.NoArgs, func(cmd *cobra.Command, _ []string) int { return o.Run(cmd.Context()) })
	o.bind(cmd)
	cmd.Flags().StringVar(&o.Learners, "learners", "", content.Msg("class.flag.learners"))
	cmd.Flags().StringSliceVar(&o.Labs, "lab", nil, content.Msg("class.flag.labs"))
	cmd.Flags().StringVar(&o.Out, "out", "", content.Msg("class.flag.out"))
	cmd.Flags().DurationVar(&o.TokenTTL, "token-ttl", 24*time.Hour, content.Msg("class.flag.token_ttl"))
	cmd.Flags().BoolVar(&o.Sandbox, "sandbox", false, content.Msg("class.flag.sandbox"))
	return cmd
}

// Complete fills the defaults and reads the learners; it starts nothing
// and connects nowhere, so a bad flag is refused before a cluster starts.
func (o *classInitOptions) Complete() error {
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
func (o *classInitOptions) Validate() error {
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

// Run completes and validates the flags, creates the class and returns
// the exit code.
func (o *classInitOptions) Run(ctx context.Context) int {
	err := o.Complete()
	if err == nil {
		err = o.Validate()
	}
	if err == nil {
		err = o.create(ctx)
	}
	return cli.ExitWith(err, o.streams.ErrOut)
}

// create starts the sandbox (--sandbox), connects, creates the class and
// writes the learners' kubeconfigs.
func (o *classInitOptions) create(ctx context.Context) error {
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
		return cli.Exit(cli.ExitFail, content.Msg("class.cli.init_failed", "ns", o.Namespace, "err", classErr(err)))
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

// ---------------------------------------------------------------- board

// classBoardOptions is `labmate class board`.
type classBoardOptions struct {
	adminFlags
	Lab     string
	Stuck   time.Duration
	Theme   string
	streams cli.Streams
}

func newClassBoardCmd(streams cli.Streams) *cobra.Command {
	o := &classBoardOptions{streams: streams}
	cmd := cli.NewCommand("class.board", cli.FlagsUse(), cli.NoArgs, func(cmd *cobra.Command, _ []string) int { return o.Run(cmd.Context()) })
	o.bind(cmd)
	cmd.Flags().StringVar(&o.Lab, "lab", "", content.Msg("class.flag.board_lab"))
	cmd.Flags().DurationVar(&o.Stuck, "stuck", 10*time.Minute, content.Msg("class.flag.stuck"))
	cmd.Flags().StringVar(&o.Theme, "theme", "", content.Msg("cli.flag.theme"))
	return cmd
}

// Run shows the live board until the instructor quits and returns the exit code.
func (o *classBoardOptions) Run(ctx context.Context) int {
	return cli.ExitWith(o.board(ctx), o.streams.ErrOut)
}

func (o *classBoardOptions) board(ctx context.Context) error {
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

// ---------------------------------------------------------------- export

// classExportOptions is `labmate class export`.
type classExportOptions struct {
	adminFlags
	Format  string
	Lab     string
	streams cli.Streams
}

func newClassExportCmd(streams cli.Streams) *cobra.Command {
	o := &classExportOptions{streams: streams}
	cmd := cli.NewCommand("class.export", cli.FlagsUse(), cli.NoArgs, func(cmd *cobra.Command, _ []string) int { return o.Run(cmd.Context()) })
	o.bind(cmd)
	cmd.Flags().StringVar(&o.Format, "format", "json", content.Msg("class.flag.format"))
	cmd.Flags().StringVar(&o.Lab, "lab", "", content.Msg("class.flag.board_lab"))
	return cmd
}

// Run writes the class's records as JSON or CSV and returns the exit code.
func (o *classExportOptions) Run(ctx context.Context) int {
	return cli.ExitWith(o.export(ctx), o.streams.ErrOut)
}

func (o *classExportOptions) export(ctx context.Context) error {
	if o.Format != "csv" && o.Format != "json" {
		return cli.UsageErr("class.cli.format", "format", o.Format)
	}
	_, cs, ns, err := o.load(30 * time.Second)
	if err != nil {
		return err
	}
	c, err := class.List(ctx, cs, ns, o.Lab)
	if err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("class.cli.list_failed", "ns", ns, "err", classErr(err)))
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

// ---------------------------------------------------------------- preview

// classPreviewOptions is `labmate class preview`: exactly the record
// --class would send now.
type classPreviewOptions struct {
	*common
	classFlags
	Timeout time.Duration
	streams cli.Streams
}

// classFlags are the learner-side flags of the TUI and check --watch.
type classFlags struct {
	File string
	Name string
}

func (c *classFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&c.File, "class", "", content.Msg("class.flag.class"))
	fs.StringVar(&c.Name, "class-name", "", content.Msg("class.flag.class_name"))
}

func newClassPreviewCmd(c *common, streams cli.Streams) *cobra.Command {
	o := &classPreviewOptions{common: c, streams: streams}
	cmd := cli.NewCommand("class.preview", cli.FlagsUse(), cli.NoArgs, func(cmd *cobra.Command, _ []string) int { return o.Run(cmd.Context()) })
	o.classFlags.bind(cmd.Flags())
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 20*time.Second, content.Msg("cli.flag.timeout"))
	return cmd
}

// Run prints the record --class would send now and returns the exit
// code.
func (o *classPreviewOptions) Run(ctx context.Context) int {
	stderr := o.streams.ErrOut
	s, err := o.buildForClass(ctx, o.classFlags)
	if err != nil {
		return exitFor(err, stderr)
	}
	defer s.closeLog()
	learner := ""
	if o.File != "" {
		l, err := class.LoadLearner(o.File)
		if err != nil {
			return cli.ExitWith(cli.UsageErr("class.cli.class_file", "path", o.File, "err", classErr(err)), stderr)
		}
		learner = l.ID
	}
	rep := s.run.Once(ctx, o.Timeout)
	raw, err := class.Marshal(class.Preview(s.classIdentity(learner, o.Name), s.state.Progress, rep))
	if err != nil {
		return cli.ExitWith(cli.Exit(cli.ExitFail, err.Error()), stderr)
	}
	if _, err := o.streams.Out.Write(append(raw, '\n')); err != nil {
		return cli.ExitWith(cli.Exit(cli.ExitUsage, err.Error()), stderr)
	}
	return cli.ExitOK
}

func (s *setup) classIdentity(learner, name string) class.Identity {
	return class.Identity{Learner: learner, Name: name, Lab: s.lab.ID, LabVersion: s.lab.Version, Labmate: version}
}

// startClass starts publishing to the class of a --class kubeconfig
// (class.Join). A file that cannot be used is a warning, never the end of
// the lab: the lab goes on without a class.
func (s *setup) startClass(ctx context.Context, f classFlags, page bool) *class.Publisher {
	if f.File == "" {
		return nil
	}
	pub, err := class.Join(ctx, class.JoinConfig{File: f.File, Identity: s.classIdentity("", f.Name),
		Progress: s.state.Progress, Page: page, Tap: s.run.Tap})
	if err != nil {
		s.notice(err.Error())
	}
	return pub
}

// classErr words an error of the class cluster or a class kubeconfig in
// Korean (class.Explain).
func classErr(err error) string { return class.Explain(err) }
