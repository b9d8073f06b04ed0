package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labstore"
)

// The instructor's side of the class's lab: pack the lab a --lab names
// (class init --lab, class lab push) and store it in the class.

// packClassLab packs the lab a --lab value names, for the class to carry:
// a directory, or a lab named as --lab names one (labref.go: ID is the
// built-in lab of that ID, else the installed one; ID@embedded,
// ID@installed, ID@VERSION). A built-in lab that needs labmate's Go code
// cannot travel: ship is false, and learners run their own labmate's
// copy, as before labs travelled.
func packClassLab(ref string) (a class.LabArchive, ship bool, err error) {
	if fi, err := os.Stat(ref); err == nil && fi.IsDir() {
		return packDir(ref)
	}
	id, which, _ := strings.Cut(ref, "@")
	if l, err := content.Load(id); err == nil && (which == refEmbedded || which == "") {
		return packEmbedded(l)
	}
	if which == refInstalled {
		ref = id
	}
	in, err := labstore.Find(ref)
	if err != nil {
		return class.LabArchive{}, false, err
	}
	return packDir(in.Dir)
}

// packDir packs a lab directory with one load of the lab, after its
// special files are refused (labstore.PackLab): a FIFO named lab.toml is
// never opened.
func packDir(dir string) (class.LabArchive, bool, error) {
	b, kit, err := labstore.PackLab(dir)
	if err != nil {
		return class.LabArchive{}, false, err
	}
	return class.NewLabArchive(kit.ID(), kit.Text.Version, b), true, nil
}

// packEmbedded packs a built-in lab (labstore.PackEmbedded: the bytes
// its directory packs to); one that needs Go does not travel.
func packEmbedded(l *content.Lab) (class.LabArchive, bool, error) {
	b, err := labstore.PackEmbedded(l.ID)
	var r *labstore.Refusal
	if errors.As(err, &r) && r.Reason == labstore.GoChecks {
		return class.LabArchive{ID: l.ID, Version: l.Version}, false, nil
	}
	if err != nil {
		return class.LabArchive{}, false, err
	}
	return class.NewLabArchive(l.ID, l.Version, b), true, nil
}

// storeLab puts the lab the class carries into its namespace, or says
// that the one lab named is built in and does not travel.
func (o *classInitOptions) storeLab(ctx context.Context) error {
	if o.ship == nil {
		if len(o.Labs) == 1 {
			fmt.Fprintln(o.streams.Out, content.Msg("class.cli.lab_builtin", "lab", o.Labs[0]))
		}
		return nil
	}
	a, err := class.StoreLab(ctx, o.cs, o.Namespace, *o.ship)
	if err != nil {
		return exitError{exitFail, content.Msg("class.cli.lab_store_failed", "ns", o.Namespace, "err", classLabErr(err))}
	}
	fmt.Fprintln(o.streams.Out, content.Msg("class.cli.lab_stored", "lab", a.ID, "version", a.Version,
		"size", class.ByteSize(len(a.Bytes)), "sum", a.Sum))
	return nil
}

// ---------------------------------------------------------------- lab push

// classLabPushOptions is `labmate class lab push DIR|ID`: a new copy of
// the class's lab, mid-workshop.
type classLabPushOptions struct {
	adminFlags
	streams ioStreams
}

func newClassLabCmd(streams ioStreams) *cobra.Command {
	cmd := newCommand("class.lab", "push", noArgs, nil)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return &usageError{cmd: cmd, msg: content.Msg("class.cli.lab_which")}
	}
	o := &classLabPushOptions{streams: streams}
	push := newCommand("class.lab.push", "DIR|ID", cobra.ExactArgs(1), nil)
	push.RunE = func(cmd *cobra.Command, args []string) error { return o.Run(cmd.Context(), args[0]) }
	push.ValidArgsFunction = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs // a lab directory
	}
	o.bind(push)
	cmd.AddCommand(push)
	return cmd
}

// Run packs the lab and replaces the class's copy with it.
func (o *classLabPushOptions) Run(ctx context.Context, ref string) error {
	a, ship, err := packClassLab(ref)
	switch {
	case err != nil:
		return usageErr("class.cli.lab_refused", "lab", ref, "err", err)
	case !ship:
		return usageErr("class.cli.lab_cannot_travel", "lab", a.ID)
	case len(a.Bytes) > class.MaxLabBytes:
		return exitError{exitUsage, class.LabTooBig{Size: len(a.Bytes)}.Error()}
	}
	_, cs, ns, err := o.load(30 * time.Second)
	if err != nil {
		return err
	}
	stored, same, err := class.PushLab(ctx, cs, ns, a)
	switch {
	case errors.Is(err, class.ErrNoLab):
		return exitError{exitUsage, content.Msg("class.cli.push_no_lab", "ns", ns)}
	case err != nil:
		return exitError{exitFail, content.Msg("class.cli.lab_store_failed", "ns", ns, "err", classLabErr(err))}
	case same:
		fmt.Fprintln(o.streams.Out, content.Msg("class.cli.push_same", "lab", stored.ID, "version", stored.Version, "sum", stored.Sum))
	default:
		fmt.Fprintln(o.streams.Out, content.Msg("class.cli.lab_stored", "lab", stored.ID, "version", stored.Version,
			"size", class.ByteSize(len(stored.Bytes)), "sum", stored.Sum))
	}
	return nil
}
