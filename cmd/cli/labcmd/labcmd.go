// Package labcmd is `labmate lab`: the installed labs' commands (list,
// install, pack, remove) around the catalog and labstore, the lab's
// reader's roles (rbac), and the author's proof of a lab (verify).
package labcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/lockfile"
	"github.com/labhub/labmate/internal/termtext"
	"github.com/labhub/labmate/labstore"
)

// NewCmd is `labmate lab`: list, install, pack, remove, rbac and verify.
func NewCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	cmd := cli.NewCommand("lab", content.Msg("cli.help.command_arg"), cli.NoArgs, func(cmd *cobra.Command, _ []string) error {
		return cmd.Help()
	})
	cmd.AddCommand(newListCmd(f, streams), newInstallCmd(f, streams), newPackCmd(f, streams), newRemoveCmd(f, streams),
		newVerifyCmd(f, streams), newRBACCmd(f, streams), newNewCmd(f, streams),
		newEvalCmd(f, streams))
	return cmd
}

// listOptions is `labmate lab list [--json]`.
type listOptions struct {
	JSON    bool
	streams cli.Streams
}

func newListCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &listOptions{streams: streams}
	cmd := cli.Command("lab.list", cli.FlagsUse(), cli.NoArgs, f, o)
	cmd.Flags().BoolVar(&o.JSON, "json", false, content.Msg("cli.flag.json"))
	return cmd
}

// Complete has nothing to find: every lab is listed.
func (o *listOptions) Complete(cli.Factory, *cobra.Command, []string) error { return nil }

// Run lists the labs; a store that cannot be read is said and the rest
// listed.
func (o *listOptions) Run(context.Context) error {
	entries, err := catalog.Entries()
	if err != nil {
		fmt.Fprintln(o.streams.ErrOut, content.Msg("cli.store.unreadable", "err", err))
	}
	if o.JSON {
		enc := json.NewEncoder(o.streams.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(entries); err != nil {
			return cli.Quiet(cli.ExitUsage) // stdout is gone: nowhere to say more
		}
		return nil
	}
	for _, e := range termtext.Deep(entries) { // an installed lab's title
		fmt.Fprintln(o.streams.Out, content.Msg("cli.lab_line", "lab", e.Lab, "version", e.Version,
			"source", content.Msg("cli.store.source_"+e.Source), "steps", e.Steps, "title", e.Title))
		if e.Shadowed() {
			fmt.Fprintln(o.streams.Out, content.Msg("cli.store.shadowed_line", "id", e.ID, "lab", e.Lab))
		}
	}
	return nil
}

// installOptions is `labmate lab install DIR|FILE.tar.gz`.
type installOptions struct {
	streams cli.Streams
	arg     string
}

func newInstallCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	return cli.Command("lab.install", "DIR|FILE.tar.gz", cli.ExactArgs(1), f, &installOptions{streams: streams})
}

// Complete takes the lab argument; the store checks what it installs.
func (o *installOptions) Complete(_ cli.Factory, _ *cobra.Command, args []string) error {
	o.arg = args[0]
	return nil
}

// Run installs a lab directory, or an archive file.
func (o *installOptions) Run(context.Context) error {
	in, err := install(o.arg)
	if err != nil {
		return storeError(o.arg, err)
	}
	out := o.streams.Out
	fmt.Fprintln(out, content.Msg("cli.store.installed", "id", in.ID, "version", in.Version, "dir", in.Dir, "sum", in.Sum))
	if in.Replaced != "" {
		fmt.Fprintln(out, content.Msg("cli.store.replaced", "id", in.ID, "version", in.Version, "old", in.Replaced))
	}
	if in.Shadowed {
		fmt.Fprintln(out, content.Msg("cli.store.shadowed", "id", in.ID, "lab", catalog.InstalledRef(*in)))
	} else {
		fmt.Fprintln(out, content.Msg("cli.store.open_with", "lab", catalog.InstalledRef(*in)))
	}
	return nil
}

// install installs a lab directory, or an archive file.
func install(arg string) (*labstore.Installed, error) {
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		abs, err := filepath.Abs(arg)
		if err != nil {
			return nil, err
		}
		return labstore.InstallDir(abs, abs)
	}
	return labstore.InstallFile(arg)
}

// packOptions is `labmate lab pack DIR [-o FILE]`.
type packOptions struct {
	Out     string
	streams cli.Streams
	dir     string
}

func newPackCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &packOptions{streams: streams}
	cmd := cli.Command("lab.pack", "DIR "+cli.FlagsUse(), cli.ExactArgs(1), f, o)
	cmd.Flags().StringVarP(&o.Out, "output", "o", "", content.Msg("cli.store.flag_output"))
	cli.Metavars(cmd.Flags(), map[string]string{"output": "FILE"})
	_ = cmd.MarkFlagFilename("output", "tar.gz")
	return cmd
}

// Complete takes the lab directory; packing checks the lab.
func (o *packOptions) Complete(_ cli.Factory, _ *cobra.Command, args []string) error {
	o.dir = args[0]
	return nil
}

// Run packs the lab and writes the archive.
func (o *packOptions) Run(context.Context) error {
	archive, kit, err := labstore.PackLab(o.dir)
	if err != nil {
		return storeError(o.dir, err)
	}
	out := o.Out
	if out == "" {
		out = kit.ID() + "-" + kit.Text.Version + ".tar.gz"
	}
	if err := lockfile.WriteAtomic(out, archive, 0o644); err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("cli.store.write_failed", "file", out, "err", err))
	}
	fmt.Fprintln(o.streams.Out, content.Msg("cli.store.packed", "file", out, "size", len(archive), "sum", labstore.Sum(archive)))
	return nil
}

// removeOptions is `labmate lab remove ID[@VERSION]`.
type removeOptions struct {
	streams cli.Streams
	ref     string
}

func newRemoveCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	cmd := cli.Command("lab.remove", "ID[@VERSION]", cli.ExactArgs(1), f, &removeOptions{streams: streams})
	cmd.ValidArgsFunction = completeInstalled
	return cmd
}

// Complete takes the lab reference; the store says what it does not
// have.
func (o *removeOptions) Complete(_ cli.Factory, _ *cobra.Command, args []string) error {
	o.ref = args[0]
	return nil
}

// Run removes the installed lab.
func (o *removeOptions) Run(context.Context) error {
	gone, err := labstore.Uninstall(catalog.StoreRef(o.ref))
	if err != nil {
		return storeError(o.ref, err)
	}
	for _, in := range gone {
		fmt.Fprintln(o.streams.Out, content.Msg("cli.store.removed", "id", in.ID, "version", in.Version))
	}
	return nil
}

// storeError is a failed install, pack or remove (exit code 1): a
// labstore refusal says itself in Korean; any other error (a file that
// cannot be read) is wrapped in a Korean line naming what was asked for.
func storeError(arg string, err error) error {
	var r *labstore.Refusal
	if errors.As(err, &r) {
		return cli.Fail(r)
	}
	return cli.Exit(cli.ExitFail, content.Msg("cli.store.failed", "arg", arg, "err", err))
}

// completeInstalled lists the installed labs (lab remove).
func completeInstalled(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	all, _ := labstore.List()
	var out []cobra.Completion
	for _, in := range all {
		out = append(out, cobra.CompletionWithDesc(in.ID+"@"+in.Version, in.Title))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
