// Package doctorcmd is `labmate doctor`: one screen, in Korean, of what
// is right and wrong in the learner's environment, each problem with the
// command that fixes it.
package doctorcmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/doctor"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/sandbox"
)

// Options are `labmate doctor`'s flags.
type Options struct {
	JSON  bool
	Class string

	streams cli.Streams
	f       cli.Factory
	labs    []*labkit.Lab
}

// NewCmd is `labmate doctor`. Exit 0 when nothing failed, 1 otherwise,
// 2 on a usage error. It never waits more than about 5 seconds.
func NewCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &Options{streams: streams}
	cmd := cli.Command("doctor", cli.FlagsUse(), cli.NoArgs, f, o)
	cmd.Flags().BoolVar(&o.JSON, "json", false, content.Msg("ops.flag.doctor_json"))
	cmd.Flags().StringVar(&o.Class, "class", "", content.Msg("class.flag.class"))
	_ = cmd.MarkFlagFilename("class")
	return cmd
}

// Complete finds the labs doctor looks at: the chosen one, or with
// several installed and none chosen, every one of them (no lab chosen is
// not refused here).
func (o *Options) Complete(f cli.Factory, _ *cobra.Command, _ []string) error {
	o.f = f
	kit, err := f.Lab()
	if ch, ok := catalog.IsChoose(err); ok {
		o.labs = ch.OpenAll()
		return nil
	}
	if err != nil {
		return err
	}
	o.labs = []*labkit.Lab{kit}
	return nil
}

// Run probes the environment: nil when nothing failed, exit code 1 when
// something did.
func (o *Options) Run(ctx context.Context) error {
	stdout := o.streams.Out
	opts := doctor.Options{Cluster: o.f.Cluster(), TTY: cli.IsTerminal(stdout), BinDir: sandbox.Options{}.ResolvedBinDir()}
	for _, kit := range o.labs {
		opts.Labs = append(opts.Labs, o.doctorLab(kit))
	}
	res := doctor.Run(ctx, opts)
	if o.Class != "" && len(o.labs) > 0 {
		ids := make([]string, len(o.labs))
		for i, l := range o.labs {
			ids[i] = l.ID()
		}
		l, err := o.f.Learner(o.Class)
		res.Findings = append(res.Findings, learner.DoctorFinding(ctx, o.Class, l, err, ids))
	}
	write := doctor.Write
	if o.JSON {
		write = doctor.WriteJSON
	}
	if err := write(stdout, res); err != nil {
		return cli.Env(err)
	}
	if !res.OK() {
		return cli.Quiet(cli.ExitFail)
	}
	return nil
}

// doctorLab is what doctor looks at for one lab: its root, nodes, the
// steps that need the cluster, what it reads there and where its
// progress is kept. A root that is a file is a finding here, not an
// error: doctor is where the learner finds out.
func (o *Options) doctorLab(kit *labkit.Lab) doctor.Lab {
	lab := kit.Text
	root, _ := o.f.RootFor(lab)
	l := doctor.Lab{ID: lab.ID, Root: root, Nodes: lab.WatchedNodes(), ClusterSteps: content.StepRange(kit.ClusterSteps()),
		StatePath: cli.StatePath(o.f, lab, root.Path)}
	for _, a := range kit.Scope.Accesses() {
		l.Access = append(l.Access, doctor.Access{Verb: a.Verb, Group: a.Group, Resource: a.Resource, Namespace: a.Namespace, Name: a.Name, Text: a.String()})
	}
	return l
}
