package labcmd

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/termtext"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/cluster"
)

// evalOptions is `labmate lab eval [ID|DIR] EXPR`: the author's REPL, one
// CEL expression compiled as a rule of the lab compiles
// (labkit.Lab.Eval) and evaluated on a manifest and the lab cluster as
// such a rule sees them.
type evalOptions struct {
	File    string
	Object  string // KIND/NAME or KIND/NAMESPACE/NAME
	Type    string
	Step    int // whose own predicates the expression reads too
	Timeout time.Duration

	streams               cli.Streams
	f                     cli.Factory
	expr                  string
	kind, namespace, name string
}

// evalTypes are the check types whose rules are CEL.
var evalTypes = []string{"object", "manifest", "witness", "report"}

func newEvalCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &evalOptions{streams: streams}
	args := func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cli.ExactArgs(1)(cmd, args)
		}
		return cli.MaxArgs(2)(cmd, args)
	}
	cmd := cli.Command("lab.eval", "[ID|DIR] EXPR "+cli.FlagsUse(), args, f, o)
	fs := cmd.Flags()
	fs.StringVar(&o.File, "file", "", content.Msg("lab.eval.flag_file"))
	fs.StringVar(&o.Object, "object", "", content.Msg("lab.eval.flag_object"))
	fs.StringVar(&o.Type, "type", "object", content.Msg("lab.eval.flag_type"))
	fs.IntVar(&o.Step, "step", 0, content.Msg("lab.eval.flag_step"))
	fs.DurationVar(&o.Timeout, "timeout", 30*time.Second, content.Msg("lab.eval.flag_timeout"))
	cli.Metavars(fs, map[string]string{"file": "FILE", "object": "KIND/[NS/]NAME", "type": "TYPE"})
	_ = cmd.MarkFlagFilename("file", "yaml", "yml")
	_ = cmd.RegisterFlagCompletionFunc("type", cobra.FixedCompletions(evalTypes, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("step", cli.CompleteSteps(f))
	cmd.ValidArgsFunction = cli.CompleteLabs
	return cmd
}

// Complete takes the lab the first of two arguments names (one: the
// flags') and the expression.
func (o *evalOptions) Complete(f cli.Factory, _ *cobra.Command, args []string) error {
	o.f = cli.LabArg(f, args[:len(args)-1])
	o.expr = args[len(args)-1]
	parts := strings.Split(o.Object, "/")
	switch len(parts) {
	case 2:
		o.kind, o.name = parts[0], parts[1]
	case 3:
		o.kind, o.namespace, o.name = parts[0], parts[1], parts[2]
	}
	return nil
}

// Validate refuses an object named in no form a rule names one, and a
// check type whose rules are not CEL.
func (o *evalOptions) Validate() error {
	switch {
	case o.Object != "" && (o.kind == "" || o.name == ""):
		return cli.UsageErr("lab.eval.bad_object", "object", o.Object)
	case !slices.Contains(evalTypes, o.Type):
		return cli.UsageErr("lab.eval.bad_type", "type", o.Type, "types", strings.Join(evalTypes, ", "))
	}
	return nil
}

// Run evaluates the expression and prints its value, or says why it has
// none (exit 1). A step the lab does not have is a usage error, as
// check --step's.
func (o *evalOptions) Run(ctx context.Context) error {
	kit, err := o.f.Lab()
	if err != nil {
		return cli.Env(err)
	}
	if n := len(kit.Text.Steps); o.Step < 0 || o.Step > n {
		return cli.Exit(cli.ExitUsage, content.Msg("cli.step_range", "step", o.Step, "max", n))
	}
	in := labkit.EvalInput{Expr: o.expr, Type: o.Type, File: o.File, Kind: o.kind, Namespace: o.namespace, Name: o.name, Step: o.Step}
	if o.File != "" {
		if in.Data, err = os.ReadFile(o.File); err != nil {
			return cli.Exit(cli.ExitUsage, content.Msg("lab.eval.no_file", "file", o.File, "err", err))
		}
	}
	if o.kind != "" || strings.Contains(o.expr, "cluster") {
		if in.Cluster, err = o.observe(ctx, kit); err != nil {
			return err
		}
	}
	res, err := kit.Eval(in)
	if err != nil { // CEL's own message shows the place with a caret
		return cli.Exit(cli.ExitFail, termtext.Clean(err.Error()))
	}
	out := o.streams.Out
	if res.NoObject {
		fmt.Fprintln(o.streams.ErrOut, content.Msg("lab.eval.no_object", "object", o.Object))
	}
	if res.Absent {
		fmt.Fprintln(out, content.Msg("lab.eval.absent"))
		return nil
	}
	// What the lab's files and the cluster hold is not labmate's text.
	fmt.Fprintln(out, content.Msg("lab.eval.value", "value", termtext.Clean(res.JSON)))
	fmt.Fprintln(out, content.Msg("lab.eval.type", "type", res.Type))
	if res.Text != strings.Trim(res.JSON, `"`) {
		fmt.Fprintln(out, content.Msg("lab.eval.shown", "text", termtext.Clean(res.Text)))
	}
	return nil
}

// observe is the lab cluster as a run of the lab sees it (its [cluster]
// scope, through the run's cluster source); with none, an empty one, and
// why, on stderr.
func (o *evalOptions) observe(ctx context.Context, kit *labkit.Lab) (*observe.Snapshot, error) {
	target := o.f.Cluster()
	if target.Reach() != kube.Connected {
		fmt.Fprintln(o.streams.ErrOut, content.Msg("lab.eval.no_cluster", "why", target.Problem()))
		return nil, nil
	}
	root, err := os.MkdirTemp("", "labmate-eval-")
	if err != nil {
		return nil, cli.Exit(cli.ExitUsage, content.Msg("verify.tmp", "err", err))
	}
	defer os.RemoveAll(root)
	// No steps: the run reads no file of a root, only the cluster.
	snap, warnings, err := labrun.Observed(ctx, labrun.Options{Lab: kit.Text, Root: root, Cluster: target, Scope: kit.Scope}, o.Timeout)
	if err != nil {
		return nil, cli.Env(err)
	}
	for _, w := range warnings {
		fmt.Fprintln(o.streams.ErrOut, w)
	}
	if !snap.Synced[cluster.SourceName] {
		fmt.Fprintln(o.streams.ErrOut, content.Msg("lab.eval.not_synced", "timeout", o.Timeout))
	}
	return snap, nil
}
