package doctor

import (
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/scriptprobe"
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
