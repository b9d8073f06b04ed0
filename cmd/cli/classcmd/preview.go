package classcmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
)

// previewOptions is `labmate class preview`: exactly the record --class
// would send now, from a run of the learner's lab.
type previewOptions struct {
	Class   cli.ClassFlags
	Timeout time.Duration
	streams cli.Streams
	ctx     context.Context
	f       *cli.Factory
	learner string
}

func newPreviewCmd(f *cli.Factory, streams cli.Streams) *cobra.Command {
	o := &previewOptions{streams: streams}
	cmd := cli.Command("class.preview", cli.FlagsUse(), cli.NoArgs, f, o)
	o.Class.AddFlags(cmd.Flags())
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 20*time.Second, content.Msg("cli.flag.timeout"))
	return cmd
}

// Complete finds the lab (a --class run's may be the class's) and the
// learner the class file names.
func (o *previewOptions) Complete(f *cli.Factory, cmd *cobra.Command, _ []string) error {
	o.ctx = cmd.Context()
	g, err := f.ForClass(o.ctx, o.Class.File)
	if err != nil {
		return err
	}
	o.f = g
	if _, err := g.Lab(); err != nil {
		return err
	}
	o.learner, err = g.ClassLearnerID(o.Class.File)
	return err
}

// Validate has nothing to refuse that Complete did not.
func (o *previewOptions) Validate() error { return nil }

// Run prints the record --class would send now and returns the exit
// code.
func (o *previewOptions) Run() int {
	stderr := o.streams.ErrOut
	s, err := o.f.Session(false)
	if err != nil {
		return cli.ExitWith(cli.Exit(cli.ExitUsage, err.Error()), stderr)
	}
	rep := s.Run.Once(o.ctx, o.Timeout)
	raw, err := class.Marshal(learner.Preview(s.Identity(o.learner, o.Class.Name), s.File.Progress, rep))
	if err != nil {
		return cli.ExitWith(cli.Exit(cli.ExitFail, err.Error()), stderr)
	}
	if _, err := o.streams.Out.Write(append(raw, '\n')); err != nil {
		return cli.ExitWith(cli.Exit(cli.ExitUsage, err.Error()), stderr)
	}
	return cli.ExitOK
}
