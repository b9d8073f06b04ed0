package labcmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/observe/cluster"
)

// rbacOptions are `labmate lab rbac`'s flags.
type rbacOptions struct {
	User, Group, ServiceAccount string

	streams cli.Streams
	kit     *labkit.Lab
	subject cluster.Subject
}

// newRBACCmd is `labmate lab rbac [ID|DIR]`: the least a lab's reader
// needs on a cluster, as YAML to apply, derived from what the lab
// watches.
func newRBACCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &rbacOptions{streams: streams}
	cmd := cli.Command("lab.rbac", "[ID|DIR] "+cli.FlagsUse(), cli.MaxArgs(1), f, o)
	fs := cmd.Flags()
	fs.StringVar(&o.User, "user", "", content.Msg("cli.flag.rbac_user"))
	fs.StringVar(&o.Group, "group", "", content.Msg("cli.flag.rbac_group"))
	fs.StringVar(&o.ServiceAccount, "serviceaccount", "", content.Msg("cli.flag.rbac_sa"))
	cli.Metavars(fs, map[string]string{"user": "NAME", "group": "NAME", "serviceaccount": "NAMESPACE:NAME"})
	cmd.MarkFlagsMutuallyExclusive("user", "group", "serviceaccount")
	cmd.ValidArgsFunction = cli.CompleteLabs
	return cmd
}

// Complete finds the lab the argument (or the flags) name.
func (o *rbacOptions) Complete(f cli.Factory, _ *cobra.Command, args []string) error {
	var err error
	o.kit, err = cli.LabArg(f, args).Lab()
	return err
}

// Validate reads the subject the flags name.
func (o *rbacOptions) Validate() error {
	var err error
	o.subject, err = o.subjectOf()
	return err
}

// Run prints the roles (and bindings); a lab that reads nothing of a
// cluster needs none, which is said.
func (o *rbacOptions) Run(context.Context) error {
	kit := o.kit
	objs := cluster.RBAC(kit.Scope, kit.ID(), o.subject)
	if len(objs) == 0 {
		fmt.Fprintln(o.streams.ErrOut, content.Msg("cli.rbac.nothing", "lab", kit.ID())) // a note, not a failure
		return nil
	}
	out, err := cluster.YAML(objs)
	if err != nil {
		return err
	}
	fmt.Fprint(o.streams.Out, content.Msg("cli.rbac.header", "lab", kit.ID())+"\n"+out)
	return nil
}

// subjectOf is the one the flags name (none: the roles alone).
func (o *rbacOptions) subjectOf() (cluster.Subject, error) {
	switch {
	case o.User != "":
		return cluster.Subject{Kind: rbacv1.UserKind, Name: o.User}, nil
	case o.Group != "":
		return cluster.Subject{Kind: rbacv1.GroupKind, Name: o.Group}, nil
	case o.ServiceAccount != "":
		ns, name, ok := strings.Cut(o.ServiceAccount, ":")
		if !ok || ns == "" || name == "" {
			return cluster.Subject{}, cli.UsageErr("cli.rbac.bad_sa", "value", o.ServiceAccount)
		}
		return cluster.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}, nil
	}
	return cluster.Subject{}, nil
}
