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
	// session is the run of the lab (a --class run's may be the class's).
	session func(cli.Lenient) (*cli.Session, error)
	learner string
}

func newPreviewCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &previewOptions{streams: streams}
	cmd := cli.Command("class.preview", cli.FlagsUse(), cli.NoArgs, f, o)
	o.Class.AddFlags(cmd.Flags())
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 20*time.Second, content.Msg("cli.flag.timeout"))
	return cmd
}

// Complete finds the lab (a --class run's may be the class's) and the
// learner the class file names.
func (o *previewOptions) Complete(f cli.Factory, cmd *cobra.Command, _ []string) error {
	g, err := f.ForClass(cmd.Context(), o.Class.File)
	if err != nil {
		return err
	}
	o.session = g.Session
	if _, err := g.Lab(); err != nil {
		return err
	}
	if o.Class.File == "" {
		return nil
	}
	l, err := g.Learner(o.Class.File)
	if err != nil {
		return cli.UsageErr("class.cli.class_file", "path", o.Class.File, "err", learner.Explain(err))
	}
	o.learner = l.ID
	return nil
}

// Run prints the record --class would send now.
func (o *previewOptions) Run(ctx context.Context) error {
	s, err := o.session(false)
	if err != nil {
		return cli.Env(err)
	}
	rep := s.Run.Once(ctx, o.Timeout)
	raw, err := class.Marshal(learner.Preview(s.Identity(o.learner, o.Class.Name), s.Lab, s.File.Progress, rep))
	if err != nil {
		return cli.Fail(err)
	}
	if _, err := o.streams.Out.Write(append(raw, '\n')); err != nil {
		return cli.Env(err)
	}
	return nil
}
