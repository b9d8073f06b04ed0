package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/doctor"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/state"
)

// doctorOptions are `labmate doctor`'s flags.
type doctorOptions struct {
	*common
	json    bool
	class   string
	streams cli.Streams
}

// newDoctorCmd is `labmate doctor`: one screen, in Korean, of what is
// right and wrong in the learner's environment, each problem with the
// command that fixes it. Exit 0 when nothing failed, 1 otherwise, 2 on a
// usage error. It never waits more than about 5 seconds.
func newDoctorCmd(c *common, streams cli.Streams) *cobra.Command {
	o := &doctorOptions{common: c, streams: streams}
	cmd := cli.NewCommand("doctor", cli.FlagsUse(), cli.NoArgs, func(cmd *cobra.Command, _ []string) int { return o.Run(cmd.Context()) })
	cmd.Flags().BoolVar(&o.json, "json", false, content.Msg("ops.flag.doctor_json"))
	cmd.Flags().StringVar(&o.class, "class", "", content.Msg("class.flag.class"))
	_ = cmd.MarkFlagFilename("class")
	return cmd
}

// Run probes the environment and returns the exit code. With no lab
// chosen it is not refused: it checks the environment for every
// installed lab.
func (o *doctorOptions) Run(ctx context.Context) int {
	c, stdout, stderr := o.common, o.streams.Out, o.streams.ErrOut
	asJSON, classFile := &o.json, &o.class
	labs, err := o.labs()
	if err != nil {
		return exitFor(err, stderr)
	}
	opts := doctor.Options{
		Kubeconfig: c.kubeconfig, Context: c.kubeCtx, NoCluster: c.noCluster, TTY: isTerminal(stdout),
	}
	for _, kit := range labs {
		lab := kit.Text
		// Unlike build(), a root that is a file is a finding here, not
		// an error: doctor is where the learner finds out.
		root, _ := c.rootFor(lab)
		l := doctor.Lab{ID: lab.ID, Root: root, Nodes: lab.WatchedNodes(), ClusterSteps: content.StepRange(kit.ClusterSteps())}
		for _, a := range kit.Scope.Accesses() {
			l.Access = append(l.Access, doctor.Access{Verb: a.Verb, Group: a.Group, Resource: a.Resource, Namespace: a.Namespace, Name: a.Name, Text: a.String()})
		}
		if st, err := state.OpenLab(c.stateDir, stateLab(lab), root); err == nil {
			l.StatePath = st.Path
		}
		opts.Labs = append(opts.Labs, l)
	}
	res := doctor.Run(ctx, opts)
	if *classFile != "" && len(labs) > 0 {
		ids := make([]string, len(labs))
		for i, l := range labs {
			ids[i] = l.ID()
		}
		res.Findings = append(res.Findings, class.DoctorFinding(ctx, *classFile, ids))
	}
	if *asJSON {
		err = doctor.WriteJSON(stdout, res)
	} else {
		err = doctor.Write(stdout, res)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}
	if !res.OK() {
		return cli.ExitFail
	}
	return cli.ExitOK
}

// labs are the labs doctor looks at: the chosen one, or with several
// installed and none chosen, every one of them.
func (o *doctorOptions) labs() ([]*labkit.Lab, error) {
	kit, err := o.resolveLab()
	if ch, ok := catalog.IsChoose(err); ok {
		return ch.OpenAll(), nil
	}
	if err != nil {
		return nil, err
	}
	return []*labkit.Lab{kit}, nil
}

// isTerminal reports whether v is a terminal (x/term: a character device
// such as /dev/null is not one).
func isTerminal(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}
