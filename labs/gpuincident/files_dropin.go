package gpuincident

import (
	"strings"

	"github.com/labhub/labmate/checks"
)

// Step 2: the drop-in the NVIDIA container toolkit writes.

const nvidiaBinary = "/usr/bin/nvidia-container-runtime"

var (
	nvidiaTypePath    = []string{"plugins", criPlugin, "containerd", "runtimes", "nvidia", "runtime_type"}
	nvidiaBinaryPath  = []string{"plugins", criPlugin, "containerd", "runtimes", "nvidia", "options", "BinaryName"}
	nvidiaSystemdPath = []string{"plugins", criPlugin, "containerd", "runtimes", "nvidia", "options", "SystemdCgroup"}
)

func evalDropIn(in checks.Input) checks.StepEval {
	tf := checks.OpenTOML(in, "dropin", dropInPath)
	specs := []checks.KeySpec{
		dropInVersionSpec,
		{ID: "dropin.nvidia-runtime-type", Path: nvidiaTypePath, Anchor: runtimeAnchor, Want: runcRuntimeType, Hint: runtimeTypeHint, PathHint: pathHints},
		{ID: "dropin.nvidia-binary-name", Path: nvidiaBinaryPath, Anchor: runtimeAnchor, Want: nvidiaBinary, Hint: binaryNameHint, PathHint: pathHints},
		{ID: "dropin.nvidia-systemd-cgroup", Path: nvidiaSystemdPath, Anchor: runtimeAnchor, Want: true, Hint: systemdHint, PathHint: pathHints},
	}
	ev := checks.StepEval{Checks: []checks.Result{tf.File, tf.Parse}, Observed: fileFacts(tf)}
	for _, s := range specs {
		switch {
		case tf.Doc == nil:
			ev.Checks = append(ev.Checks, waitingOnParse(s))
		case s.ID == dropInVersionSpec.ID:
			ev.Checks = append(ev.Checks, checkDropInVersion(in, tf.Doc))
		default:
			ev.Checks = append(ev.Checks, tf.Doc.Check(in, s))
		}
	}
	if d := tf.Doc; d != nil {
		runtimes, _ := runtimeNames(d)
		ev.Observed = append(ev.Observed,
			valueFact(d, "version", []string{"version"}),
			checks.Fact{Label: msg("files.fact.runtimes"), Value: checks.JoinOr(msg, runtimes, ", ")},
			valueFact(d, "runtimes.nvidia.runtime_type", nvidiaTypePath),
			valueFact(d, "runtimes.nvidia.options.BinaryName", nvidiaBinaryPath),
			valueFact(d, "runtimes.nvidia.options.SystemdCgroup", nvidiaSystemdPath),
		)
	}
	// Whether containerd would read this file at all is the main
	// config's business: show it here, where the learner looks.
	verdict := msg("files.fact.imports_unreadable")
	if main := checks.OpenTOML(in, "main-config", mainConfigPath); main.Doc != nil {
		verdict = importsVerdict(in, main.Doc)
	}
	ev.Observed = append(ev.Observed, checks.Fact{Label: msg("files.fact.imports_dropin"), Value: verdict})
	return ev
}

// dropInVersionSpec: the drop-in's own `version`, when it has one.
var dropInVersionSpec = checks.KeySpec{ID: "dropin.version", Path: []string{"version"}, Anchor: -1, Want: int64(2), Hint: versionHint, PathHint: pathHints}

// checkDropInVersion judges the drop-in's top-level version. Without one
// the drop-in is right: containerd 1.x merges each import into the root
// config (services/server/config/config.go, LoadConfig/mergeConfig:
// mergo.WithOverride leaves the root's version 2 where the import's is 0),
// and containerd 2.x migrates each import by its own version and errors
// only when it is higher than the root's
// (cmd/containerd/server/config/config.go); the plugin names here are
// the full ones, which no migration renames. A version it does write is
// judged: 1 overrides the root's 2 in 1.x's merge (the config is then
// read as version 1, where the CRI plugin is `cri`: RELEASES.md, Daemon
// Configuration), 3 is past what 1.x accepts (ValidateVersion refuses a version
// above CurrentConfigVersion, 2 in 1.x), a string is no
// version (the TOML decode into an int fails). A `version` key put under
// a table is shown where it is.
func checkDropInVersion(in checks.Input, d *checks.TOMLDoc) checks.Result {
	s := dropInVersionSpec
	if _, ok := d.Get(s.Path); ok {
		return d.Check(in, s)
	}
	elsewhere := false
	d.Walk(func(p []string, _ any) {
		if strings.EqualFold(p[len(p)-1], "version") {
			elsewhere = true
		}
	})
	if elsewhere {
		return d.Missing(in, s)
	}
	return checks.Pass(s.ID, msg("files.dropin.version_absent"))
}

func binaryNameHint(got any) string {
	s, _ := got.(string)
	switch {
	case strings.Contains(s, "hook"):
		return msg("files.hint.binary_hook")
	case !strings.HasPrefix(strings.TrimSpace(s), "/"):
		return msg("files.hint.binary_relative")
	}
	return stringHint(got, nvidiaBinary)
}
