// Package labcmd is `labmate lab`: the installed labs' commands (list,
// install, pack, remove) and the lab's reader's roles (rbac), each a
// cobra command around the catalog and labstore (kubectl's pkg/cmd
// shape). It knows nothing of a run; cmd/labmate adds the commands that
// open one (verify) and hands rbac the lab the flags name.
package labcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/internal/lockfile"
	"github.com/labhub/labmate/internal/termtext"
	"github.com/labhub/labmate/labstore"
)

// NewCmd is `labmate lab`: list, install, pack and remove, and the
// commands more adds (verify and rbac, which cmd/labmate wires).
func NewCmd(streams cli.Streams, more ...*cobra.Command) *cobra.Command {
	cmd := cli.NewCommand("lab", content.Msg("cli.help.command_arg"), cli.NoArgs, func(cmd *cobra.Command, _ []string) int {
		_ = cmd.Help()
		return cli.ExitOK
	})
	cmd.AddCommand(newListCmd(streams), newInstallCmd(streams), newPackCmd(streams), newRemoveCmd(streams))
	cmd.AddCommand(more...)
	return cmd
}

// newListCmd is `labmate lab list [--json]`.
func newListCmd(streams cli.Streams) *cobra.Command {
	var asJSON bool
	cmd := cli.NewCommand("lab.list", cli.FlagsUse(), cli.NoArgs, func(*cobra.Command, []string) int {
		entries, err := catalog.Entries()
		if err != nil {
			fmt.Fprintln(streams.ErrOut, content.Msg("cli.store.unreadable", "err", err))
		}
		if asJSON {
			enc := json.NewEncoder(streams.Out)
			enc.SetIndent("", "  ")
			if err := enc.Encode(entries); err != nil {
				return cli.ExitUsage
			}
			return cli.ExitOK
		}
		for _, e := range termtext.Deep(entries) { // an installed lab's title
			fmt.Fprintln(streams.Out, content.Msg("cli.lab_line", "lab", e.Lab, "version", e.Version,
				"source", content.Msg("cli.store.source_"+e.Source), "steps", e.Steps, "title", e.Title))
			if e.Shadowed() {
				fmt.Fprintln(streams.Out, content.Msg("cli.store.shadowed_line", "id", e.ID, "lab", e.Lab))
			}
		}
		return cli.ExitOK
	})
	cmd.Flags().BoolVar(&asJSON, "json", false, content.Msg("cli.flag.json"))
	return cmd
}

// newInstallCmd is `labmate lab install DIR|FILE.tar.gz`.
func newInstallCmd(streams cli.Streams) *cobra.Command {
	cmd := cli.NewCommand("lab.install", "DIR|FILE.tar.gz", cli.ExactArgs(1), func(_ *cobra.Command, args []string) int {
		in, err := install(args[0])
		if err != nil {
			fmt.Fprintln(streams.ErrOut, storeError(args[0], err))
			return cli.ExitFail
		}
		fmt.Fprintln(streams.Out, content.Msg("cli.store.installed", "id", in.ID, "version", in.Version, "dir", in.Dir, "sum", in.Sum))
		if in.Replaced != "" {
			fmt.Fprintln(streams.Out, content.Msg("cli.store.replaced", "id", in.ID, "version", in.Version, "old", in.Replaced))
		}
		if in.Shadowed {
			fmt.Fprintln(streams.Out, content.Msg("cli.store.shadowed", "id", in.ID, "lab", catalog.InstalledRef(*in)))
		} else {
			fmt.Fprintln(streams.Out, content.Msg("cli.store.open_with", "lab", catalog.InstalledRef(*in)))
		}
		return cli.ExitOK
	})
	return cmd
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

// newPackCmd is `labmate lab pack DIR [-o FILE]`.
func newPackCmd(streams cli.Streams) *cobra.Command {
	var out string
	cmd := cli.NewCommand("lab.pack", "DIR "+cli.FlagsUse(), cli.ExactArgs(1), func(_ *cobra.Command, args []string) int {
		archive, kit, err := labstore.PackLab(args[0])
		if err != nil {
			fmt.Fprintln(streams.ErrOut, storeError(args[0], err))
			return cli.ExitFail
		}
		if out == "" {
			out = kit.ID() + "-" + kit.Text.Version + ".tar.gz"
		}
		if err := lockfile.WriteAtomic(out, archive, 0o644); err != nil {
			fmt.Fprintln(streams.ErrOut, content.Msg("cli.store.write_failed", "file", out, "err", err))
			return cli.ExitFail
		}
		fmt.Fprintln(streams.Out, content.Msg("cli.store.packed", "file", out, "size", len(archive), "sum", labstore.Sum(archive)))
		return cli.ExitOK
	})
	cmd.Flags().StringVarP(&out, "output", "o", "", content.Msg("cli.store.flag_output"))
	cli.Metavars(cmd.Flags(), map[string]string{"output": "FILE"})
	_ = cmd.MarkFlagFilename("output", "tar.gz")
	return cmd
}

// newRemoveCmd is `labmate lab remove ID[@VERSION]`.
func newRemoveCmd(streams cli.Streams) *cobra.Command {
	cmd := cli.NewCommand("lab.remove", "ID[@VERSION]", cli.ExactArgs(1), func(_ *cobra.Command, args []string) int {
		gone, err := labstore.Uninstall(catalog.StoreRef(args[0]))
		if err != nil {
			fmt.Fprintln(streams.ErrOut, storeError(args[0], err))
			return cli.ExitFail
		}
		for _, in := range gone {
			fmt.Fprintln(streams.Out, content.Msg("cli.store.removed", "id", in.ID, "version", in.Version))
		}
		return cli.ExitOK
	})
	cmd.ValidArgsFunction = completeInstalled
	return cmd
}

// storeError words a failed install, pack or remove: a labstore refusal
// says itself in Korean; any other error (a file that cannot be read)
// is wrapped in a Korean line naming what was asked for.
func storeError(arg string, err error) string {
	var r *labstore.Refusal
	if errors.As(err, &r) {
		return r.Error()
	}
	return content.Msg("cli.store.failed", "arg", arg, "err", err)
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

// CompleteLabs lists what --lab takes: the embedded labs and the
// installed ones (catalog.List).
func CompleteLabs(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	labs, _ := catalog.List() // a completion has nowhere to say the store is unreadable
	for _, l := range labs {
		out = append(out, cobra.CompletionWithDesc(l.Ref, l.Text.Title))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
