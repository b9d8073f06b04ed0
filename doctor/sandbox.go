package doctor

import (
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe/scriptprobe"
)

// sandboxProbe names how step 4's script will be contained here, and
// why not more strongly.
func sandboxProbe() Finding {
	mode, why := scriptprobe.Sandbox()
	switch mode {
	case scriptprobe.SandboxNamespaces:
		return finding("sandbox", OK, content.Msg("ops.doctor.sandbox.namespaces"))
	case scriptprobe.SandboxLandlock:
		return finding("sandbox", Warn, content.Msg("ops.doctor.sandbox.landlock", "why", why[scriptprobe.SandboxNamespaces]), fix("sandbox_userns"))
	}
	return finding("sandbox", Warn, content.Msg("ops.doctor.sandbox.none",
		"why_ns", why[scriptprobe.SandboxNamespaces], "why_ll", why[scriptprobe.SandboxLandlock]), fix("sandbox_userns"))
}
