package labcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/lockfile"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/verify"
	"github.com/labhub/labmate/sandbox"
)

// verifyOptions are `labmate lab verify`'s flags.
type verifyOptions struct {
	Watch       bool
	Record      string
	Mutants     bool
	MutantSteps []int
	Shard       string // K/N
	Lanes       int
	Pace        time.Duration
	Timeout     time.Duration
	BinDir      string
	// Progress writes each case's line to stderr as it is decided, also
	// when stderr is not a terminal (the table on stdout has them all).
	Progress bool
	// JSON prints the proof as one JSON document instead of the table;
	// JUnit writes it as JUnit XML to this file besides.
	JSON  bool
	JUnit string

	streams        cli.Streams
	f              cli.Factory
	dir            string // the lab's directory, "" for an installed or built-in lab
	shardK, shardN int
	shardOK        bool
}

// newVerifyCmd is `labmate lab verify [ID|DIR]`: the author's proof of a
// lab. Exit 0 when every case holds, 1 when one does not (a surviving
// near-miss, a declared case that does not hold), 2 when the proof cannot
// run (no sandbox, a cluster that is not one) or could not decide a case
// (a near-miss whose baseline the environment kept from being set up).
func newVerifyCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &verifyOptions{streams: streams}
	cmd := cli.Command("lab.verify", "[ID|DIR] "+cli.FlagsUse(), cli.MaxArgs(1), f, o)
	fs := cmd.Flags()
	fs.BoolVar(&o.Watch, "watch", false, content.Msg("verify.flag.watch"))
	fs.StringVar(&o.Record, "record", "", content.Msg("verify.flag.record"))
	fs.BoolVar(&o.Mutants, "mutants", false, content.Msg("verify.flag.mutants"))
	fs.IntSliceVar(&o.MutantSteps, "mutants-step", nil, content.Msg("verify.flag.mutants_step"))
	fs.StringVar(&o.Shard, "mutants-shard", "", content.Msg("verify.flag.mutants_shard"))
	fs.IntVar(&o.Lanes, "lanes", 2, content.Msg("verify.flag.lanes"))
	fs.DurationVar(&o.Pace, "pace", 3*time.Second, content.Msg("verify.flag.pace"))
	fs.DurationVar(&o.Timeout, "timeout", 0, content.Msg("verify.flag.timeout"))
	fs.StringVar(&o.BinDir, "bin-dir", "", content.Msg("cli.flag.bin_dir"))
	fs.BoolVar(&o.Progress, "progress", false, content.Msg("verify.flag.progress"))
	fs.BoolVar(&o.JSON, "json", false, content.Msg("verify.flag.json"))
	fs.StringVar(&o.JUnit, "junit", "", content.Msg("verify.flag.junit"))
	cli.Metavars(fs, map[string]string{"record": "FILE", "bin-dir": "DIR", "mutants-shard": "K/N", "junit": "FILE"})
	_ = cmd.MarkFlagFilename("record", "jsonl")
	_ = cmd.MarkFlagFilename("junit", "xml")
	cmd.ValidArgsFunction = cli.CompleteLabs
	return cmd
}

// Complete takes the lab the argument names (none: the flags') and the
// shard. The lab is opened when the proof runs: with --watch, again
// after each save.
func (o *verifyOptions) Complete(f cli.Factory, _ *cobra.Command, args []string) error {
	o.f = cli.LabArg(f, args)
	o.dir = o.f.LabDir()
	o.shardK, o.shardN, o.shardOK = verify.ParseShard(o.Shard)
	return nil
}

// Validate refuses flags that cannot work together.
func (o *verifyOptions) Validate() error {
	switch {
	case o.Watch && o.dir == "":
		return cli.UsageErr("verify.watch_needs_dir")
	case !o.shardOK:
		return cli.UsageErr("verify.bad_shard", "shard", o.Shard)
	case o.Lanes < 1:
		return cli.UsageErr("verify.bad_lanes", "lanes", o.Lanes)
	case (o.Mutants || o.shardN > 0) && o.Record != "":
		return cli.UsageErr("verify.mutants_and_record")
	case o.Watch && o.Record != "":
		// Each recording is a change in the lab directory: the watch
		// would prove and record again, without end.
		return cli.UsageErr("verify.watch_and_record")
	}
	return nil
}

// Run proves the lab (again on every save with --watch, each proof's end
// said as it comes): nil when every case holds, exit code 1 when one
// does not, 2 when the proof could not run or decide a case.
func (o *verifyOptions) Run(ctx context.Context) error {
	if !o.Watch {
		return o.once(ctx)
	}
	dir := o.dir
	err := verify.Watch(ctx, dir, func() {
		fmt.Fprintln(o.streams.Out, content.Msg("verify.rerun", "at", time.Now().Format("15:04:05")))
		// Each proof's end is a line of the watch, not the command's end.
		cli.Say(o.streams.ErrOut, o.once(ctx))
	})
	if err != nil {
		return cli.UsageErr("verify.watch_failed", "dir", dir, "err", err)
	}
	return nil
}

func (o *verifyOptions) once(ctx context.Context) error {
	var kit *labkit.Lab
	var err error
	if dir := o.dir; dir != "" {
		kit, err = catalog.OpenDir(dir) // afresh: with --watch, after each save
	} else {
		kit, err = o.f.Lab()
	}
	if err != nil {
		return cli.Env(err)
	}
	// Progress is for a person watching a long proof; a script reads the
	// table, which has every case, and would get each one twice.
	var progress io.Writer
	if o.Progress || cli.IsTerminal(o.streams.ErrOut) {
		progress = o.streams.ErrOut
	}
	opts := verify.Options{
		Lab:    kit,
		BinDir: sandbox.Options{BinDir: o.BinDir}.ResolvedBinDir(), Record: o.Record, Mutants: o.Mutants || len(o.MutantSteps) > 0 || o.shardN > 0,
		MutantSteps: o.MutantSteps, Shard: o.shardK, Shards: o.shardN, Pace: o.Pace, Labmate: o.f.Version(),
		Timeout: o.Timeout, Progress: progress,
	}
	if len(kit.ClusterSteps()) > 0 {
		opts.Cluster = o.f.Cluster() // a lab of file steps alone needs none
		// The near-misses tried on more sandboxes at once, each made for
		// this proof and deleted after it; a shard is already one of
		// several proofs at once.
		if opts.Mutants && o.shardN == 0 && !opts.Cluster.Off {
			for k := 2; k <= o.Lanes; k++ {
				opts.Lanes = append(opts.Lanes, o.lane(kit.Text.ID, k))
			}
		}
	}
	res, err := verify.Run(ctx, opts)
	var ee *verify.EnvError
	if errors.As(err, &ee) {
		return cli.Exit(cli.ExitUsage, ee.Msg)
	}
	if err != nil {
		return cli.Env(err)
	}
	if o.JUnit != "" {
		var b bytes.Buffer
		err := res.WriteJUnit(&b)
		if err == nil {
			err = lockfile.WriteAtomic(o.JUnit, b.Bytes(), 0o644)
		}
		if err != nil {
			return cli.Exit(cli.ExitUsage, content.Msg("verify.junit_failed", "file", o.JUnit, "err", err))
		}
	}
	if o.JSON {
		if err := res.WriteJSON(o.streams.Out); err != nil {
			return cli.Quiet(cli.ExitUsage) // stdout is gone: nowhere to say more
		}
	} else {
		res.WriteTable(o.streams.Out)
	}
	switch {
	case !res.OK():
		return cli.Quiet(cli.ExitFail)
	case len(res.Unproven()) > 0:
		return cli.Quiet(cli.ExitUsage) // could not prove: the environment, not the lab
	}
	return nil
}

// lane makes sandbox k of the proof of lab id (labmate-verify-ID-K),
// which the proof deletes when it is done with it.
func (o *verifyOptions) lane(id string, k int) verify.Lane {
	return func(ctx context.Context) (kube.Target, func(), error) {
		so := sandbox.Options{Name: fmt.Sprintf("labmate-verify-%s-%d", id, k), BinDir: o.BinDir}
		if err := sandbox.Up(ctx, so); err != nil {
			return kube.Target{}, nil, err
		}
		release := func() { _ = sandbox.Down(context.WithoutCancel(ctx), so) }
		target := o.f.Sandbox(sandbox.Kubeconfig(so))
		if target.Err != nil {
			release()
			return kube.Target{}, nil, target.Err
		}
		return target, release, nil
	}
}
