package doctor

import (
	"path/filepath"
	"strings"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/scriptprobe"
	"github.com/labhub/labmate/sandbox/prebuilt"
)

// sandboxProbe names how step 4's script will be contained here, and
// why not more strongly: the sandbox mode and the system-call filter.
func sandboxProbe() Finding {
	mode, why := scriptprobe.Sandbox()
	filter := scriptprobe.Seccomp()
	filterText := " " + content.Msg("ops.doctor.seccomp."+filter)
	switch {
	case mode == scriptprobe.SandboxNamespaces && filter == observe.SeccompNotify:
		return finding("sandbox", OK, content.Msg("ops.doctor.sandbox.namespaces")+filterText)
	case mode == scriptprobe.SandboxNamespaces:
		return finding("sandbox", Warn, content.Msg("ops.doctor.sandbox.namespaces")+filterText, fix("sandbox_userns"))
	case mode == scriptprobe.SandboxLandlock:
		return finding("sandbox", Warn, content.Msg("ops.doctor.sandbox.landlock", "why", why[scriptprobe.SandboxNamespaces])+filterText, fix("sandbox_userns"))
	}
	return finding("sandbox", Warn, content.Msg("ops.doctor.sandbox.none",
		"why_ns", why[scriptprobe.SandboxNamespaces], "why_ll", why[scriptprobe.SandboxLandlock])+filterText, fix("sandbox_userns"))
}

// binariesProbe says whether the sandbox's binaries are still those
// labmate installed or built (prebuilt.Changed): a binary replaced since
// runs with nobody vouching for it. Nothing when there is no bin dir or
// no record of it.
func binariesProbe(binDir string) []Finding {
	if binDir == "" {
		return nil
	}
	changed, recorded, err := prebuilt.Changed(binDir, nil)
	switch {
	case err != nil:
		return []Finding{finding("binaries", Warn, content.Msg("ops.doctor.binaries.unreadable", "bin_dir", binDir, "err", err))}
	case !recorded:
		return nil
	case len(changed) > 0:
		paths := make([]string, len(changed))
		for i, b := range changed {
			paths[i] = filepath.Join(binDir, b)
		}
		return []Finding{finding("binaries", Fail, content.Msg("ops.doctor.binaries.changed", "changed", strings.Join(changed, ", "), "bin_dir", binDir),
			fix("binaries", "paths", strings.Join(paths, " ")))}
	}
	n, _ := prebuilt.Recorded(binDir)
	return []Finding{finding("binaries", OK, content.Msg("ops.doctor.binaries.same", "bin_dir", binDir, "count", n))}
}
