package labcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/observe/cluster"
)

// LabFor is the lab a command works on, from its [ID|DIR] argument (none:
// what the flags name); its error is Korean, a usage or environment
// problem.
type LabFor func(args []string) (*labkit.Lab, error)

// rbacOptions are `labmate lab rbac`'s flags.
type rbacOptions struct {
	user, group, serviceAccount string
	labFor                      LabFor
	streams                     cli.Streams
}

// NewRBACCmd is `labmate lab rbac [ID|DIR]`: the least a lab's reader
// needs on a cluster, as YAML to apply, derived from what the lab watches.
func NewRBACCmd(streams cli.Streams, labFor LabFor) *cobra.Command {
	o := &rbacOptions{labFor: labFor, streams: streams}
	cmd := cli.NewCommand("lab.rbac", "[ID|DIR] "+cli.FlagsUse(), cli.MaxArgs(1), func(cmd *cobra.Command, args []string) int {
		return o.Run(args)
	})
	fs := cmd.Flags()
	fs.StringVar(&o.user, "user", "", content.Msg("cli.flag.rbac_user"))
	fs.StringVar(&o.group, "group", "", content.Msg("cli.flag.rbac_group"))
	fs.StringVar(&o.serviceAccount, "serviceaccount", "", content.Msg("cli.flag.rbac_sa"))
	cli.Metavars(fs, map[string]string{"user": "NAME", "group": "NAME", "serviceaccount": "NAMESPACE:NAME"})
	cmd.MarkFlagsMutuallyExclusive("user", "group", "serviceaccount")
	cmd.ValidArgsFunction = CompleteLabs
	return cmd
}

// Run prints the roles (and bindings) and returns the exit code.
func (o *rbacOptions) Run(args []string) int {
	return cli.ExitWith(o.run(args), o.streams.ErrOut)
}

func (o *rbacOptions) run(args []string) error {
	kit, err := o.labFor(args)
	if err != nil {
		return cli.Exit(cli.ExitUsage, err.Error())
	}
	subject, err := o.subject()
	if err != nil {
		return err
	}
	objs := cluster.RBAC(kit.Scope, kit.ID(), subject)
	if len(objs) == 0 {
		fmt.Fprintln(o.streams.ErrOut, content.Msg("cli.rbac.nothing", "lab", kit.ID()))
		return nil
	}
	out, err := cluster.YAML(objs)
	if err != nil {
		return err
	}
	fmt.Fprint(o.streams.Out, content.Msg("cli.rbac.header", "lab", kit.ID())+"\n"+out)
	return nil
}

// subject is the one the flags name (none: the roles alone).
func (o *rbacOptions) subject() (cluster.Subject, error) {
	switch {
	case o.user != "":
		return cluster.Subject{Kind: rbacv1.UserKind, Name: o.user}, nil
	case o.group != "":
		return cluster.Subject{Kind: rbacv1.GroupKind, Name: o.group}, nil
	case o.serviceAccount != "":
		ns, name, ok := strings.Cut(o.serviceAccount, ":")
		if !ok || ns == "" || name == "" {
			return cluster.Subject{}, cli.UsageErr("cli.rbac.bad_sa", "value", o.serviceAccount)
		}
		return cluster.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}, nil
	}
	return cluster.Subject{}, nil
}
