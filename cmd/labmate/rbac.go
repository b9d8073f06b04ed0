package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/observe/cluster"
)

// rbacOptions are `labmate lab rbac`'s flags.
type rbacOptions struct {
	*common
	user, group, serviceAccount string
	streams                     cli.Streams
}

// newLabRBACCmd is `labmate lab rbac [ID|DIR]`: the least a lab's reader
// needs on a cluster, as YAML to apply, derived from what the lab watches.
func newLabRBACCmd(c *common, streams cli.Streams) *cobra.Command {
	o := &rbacOptions{common: c, streams: streams}
	cmd := cli.NewCommand("lab.rbac", "[ID|DIR] "+cli.FlagsUse(), cli.MaxArgs(1), func(cmd *cobra.Command, args []string) int {
		return o.Run(args)
	})
	fs := cmd.Flags()
	fs.StringVar(&o.user, "user", "", content.Msg("cli.flag.rbac_user"))
	fs.StringVar(&o.group, "group", "", content.Msg("cli.flag.rbac_group"))
	fs.StringVar(&o.serviceAccount, "serviceaccount", "", content.Msg("cli.flag.rbac_sa"))
	cli.Metavars(fs, map[string]string{"user": "NAME", "group": "NAME", "serviceaccount": "NAMESPACE:NAME"})
	cmd.MarkFlagsMutuallyExclusive("user", "group", "serviceaccount")
	cmd.ValidArgsFunction = completeLabs
	return cmd
}

// Run prints the roles (and bindings) and returns the exit code.
func (o *rbacOptions) Run(args []string) int {
	o.labArg(args)
	kit, err := o.resolveLab()
	if err != nil {
		return exitFor(err, o.streams.ErrOut)
	}
	subject, err := o.subject()
	if err != nil {
		return exitFor(err, o.streams.ErrOut)
	}
	objs := cluster.RBAC(kit.Scope, kit.ID(), subject)
	if len(objs) == 0 {
		fmt.Fprintln(o.streams.ErrOut, content.Msg("cli.rbac.nothing", "lab", kit.ID()))
		return cli.ExitOK
	}
	out, err := cluster.YAML(objs)
	if err != nil {
		fmt.Fprintln(o.streams.ErrOut, err)
		return cli.ExitFail
	}
	fmt.Fprint(o.streams.Out, content.Msg("cli.rbac.header", "lab", kit.ID())+"\n"+out)
	return cli.ExitOK
}

// labArg reads the lab argument: an installed lab's ID or a directory.
func (c *common) labArg(args []string) {
	if len(args) != 1 {
		return
	}
	c.lab, c.labDir = catalog.Arg(args[0])
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
			return cluster.Subject{}, envError{content.Msg("cli.rbac.bad_sa", "value", o.serviceAccount)}
		}
		return cluster.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}, nil
	}
	return cluster.Subject{}, nil
}
