package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/catalog/labcmd"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/verify"
	"github.com/labhub/labmate/sandbox"
)

// verifyOptions are `labmate lab verify`'s flags.
type verifyOptions struct {
	*common
	watch   bool
	record  string
	mutants bool
	steps   []int
	shard   string // K/N
	shardK  int
	shardN  int
	pace    time.Duration
	timeout time.Duration
	binDir  string
	// progress writes each case's line to stderr as it is decided, also
	// when stderr is not a terminal (the table on stdout has them all).
	progress bool
	streams  cli.Streams
}

// newLabVerifyCmd is `labmate lab verify [ID|DIR]`: the author's proof of
// a lab. Exit 0 when every case holds, 1 when one does not (a surviving
// near-miss, a declared case that does not hold), 2 when the proof cannot
// run (no sandbox, a cluster that is not one) or could not decide a case
// (a near-miss whose baseline the environment kept from being set up).
func newLabVerifyCmd(c *common, streams cli.Streams) *cobra.Command {
	o := &verifyOptions{common: c, streams: streams}
	cmd := cli.NewCommand("lab.verify", "[ID|DIR] "+cli.FlagsUse(), cli.MaxArgs(1), func(cmd *cobra.Command, args []string) int {
		return o.Run(cmd.Context(), args)
	})
	fs := cmd.Flags()
	fs.BoolVar(&o.watch, "watch", false, content.Msg("verify.flag.watch"))
	fs.StringVar(&o.record, "record", "", content.Msg("verify.flag.record"))
	fs.BoolVar(&o.mutants, "mutants", false, content.Msg("verify.flag.mutants"))
	fs.IntSliceVar(&o.steps, "mutants-step", nil, content.Msg("verify.flag.mutants_step"))
	fs.StringVar(&o.shard, "mutants-shard", "", content.Msg("verify.flag.mutants_shard"))
	fs.DurationVar(&o.pace, "pace", 3*time.Second, content.Msg("verify.flag.pace"))
	fs.DurationVar(&o.timeout, "timeout", 0, content.Msg("verify.flag.timeout"))
	fs.StringVar(&o.binDir, "bin-dir", "", content.Msg("cli.flag.bin_dir"))
	fs.BoolVar(&o.progress, "progress", false, content.Msg("verify.flag.progress"))
	cli.Metavars(fs, map[string]string{"record": "FILE", "bin-dir": "DIR", "mutants-shard": "K/N"})
	_ = cmd.MarkFlagFilename("record", "jsonl")
	cmd.ValidArgsFunction = labcmd.CompleteLabs
	return cmd
}

// Run proves the lab (again on every save with --watch).
func (o *verifyOptions) Run(ctx context.Context, args []string) int {
	o.labArg(args)
	if o.watch && o.labDir == "" {
		fmt.Fprintln(o.streams.ErrOut, content.Msg("verify.watch_needs_dir"))
		return cli.ExitUsage
	}
	shard, shards, ok := verify.ParseShard(o.shard)
	if !ok {
		fmt.Fprintln(o.streams.ErrOut, content.Msg("verify.bad_shard", "shard", o.shard))
		return cli.ExitUsage
	}
	o.shardK, o.shardN = shard, shards
	if (o.mutants || o.shardN > 0) && o.record != "" {
		fmt.Fprintln(o.streams.ErrOut, content.Msg("verify.mutants_and_record"))
		return cli.ExitUsage
	}
	if o.watch && o.record != "" {
		// Each recording is a change in the lab directory: the watch
		// would prove and record again, without end.
		fmt.Fprintln(o.streams.ErrOut, content.Msg("verify.watch_and_record"))
		return cli.ExitUsage
	}
	if !o.watch {
		return o.once(ctx)
	}
	err := verify.Watch(ctx, o.labDir, func() {
		fmt.Fprintln(o.streams.Out, content.Msg("verify.rerun", "at", time.Now().Format("15:04:05")))
		o.once(ctx)
	})
	if err != nil {
		fmt.Fprintln(o.streams.ErrOut, content.Msg("verify.watch_failed", "dir", o.labDir, "err", err))
		return cli.ExitUsage
	}
	return cli.ExitOK
}

func (o *verifyOptions) once(ctx context.Context) int {
	var kit *labkit.Lab
	var err error
	if o.labDir != "" {
		kit, err = catalog.OpenDir(o.labDir) // afresh: with --watch, after each save
	} else {
		kit, err = o.resolveLab()
	}
	if err != nil {
		return exitFor(err, o.streams.ErrOut)
	}
	// Progress is for a person watching a long proof; a script reads the
	// table, which has every case, and would get each one twice.
	var progress io.Writer
	if o.progress || isTerminal(o.streams.ErrOut) {
		progress = o.streams.ErrOut
	}
	res, err := verify.Run(ctx, verify.Options{
		Lab: kit, Kubeconfig: o.kubeconfig, Context: o.kubeCtx, NoCluster: o.noCluster,
		BinDir: sandbox.Options{BinDir: o.binDir}.ResolvedBinDir(), Record: o.record, Mutants: o.mutants || len(o.steps) > 0 || o.shardN > 0, MutantSteps: o.steps, Shard: o.shardK, Shards: o.shardN, Pace: o.pace, Labmate: version,
		Timeout: o.timeout, Progress: progress,
	})
	var ee *verify.EnvError
	if errors.As(err, &ee) {
		fmt.Fprintln(o.streams.ErrOut, ee.Msg)
		return cli.ExitUsage
	}
	if err != nil {
		fmt.Fprintln(o.streams.ErrOut, err)
		return cli.ExitUsage
	}
	res.WriteTable(o.streams.Out)
	switch {
	case !res.OK():
		return cli.ExitFail
	case len(res.Unproven()) > 0:
		return cli.ExitUsage // could not prove: the environment, not the lab
	}
	return cli.ExitOK
}
