package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
)

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
			return cli.ExitWith(cli.UsageErr("class.cli.class_file", "path", o.File, "err", class.Explain(err)), stderr)
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
