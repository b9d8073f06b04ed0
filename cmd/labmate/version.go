package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
)

// newVersionCmd is `labmate version`.
func newVersionCmd(streams cli.Streams) *cobra.Command {
	return cli.NewCommand("version", "", cli.NoArgs, func(*cobra.Command, []string) int {
		fmt.Fprintln(streams.Out, "labmate", versionString(version, readBuildInfo))
		return cli.ExitOK
	})
}

var readBuildInfo = debug.ReadBuildInfo

// versionString is the injected version or, for a source build, the
// module version and the VCS revision Go recorded in the binary.
func versionString(injected string, info func() (*debug.BuildInfo, bool)) string {
	if injected != "" && injected != "dev" {
		return injected
	}
	bi, ok := info()
	if !ok {
		return "dev"
	}
	v := "dev"
	if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
		v = mv
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		return v + " (" + content.Msg("cli.version_dirty", "rev", rev) + ")"
	}
	return v + " (" + rev + ")"
}
