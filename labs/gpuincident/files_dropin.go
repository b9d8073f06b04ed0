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
	// The drop-in is written in config version 2 (its plugin names say
	// so) and must say it: version 1 reads plugins by their short names,
	// version 3 is containerd 2.x's layout.
	specs := []checks.KeySpec{
		{ID: "dropin.version", Path: []string{"version"}, Anchor: -1, Want: int64(2), Hint: versionHint, PathHint: pathHints},
		{ID: "dropin.nvidia-runtime-type", Path: nvidiaTypePath, Anchor: runtimeAnchor, Want: runcRuntimeType, Hint: runtimeTypeHint, PathHint: pathHints},
		{ID: "dropin.nvidia-binary-name", Path: nvidiaBinaryPath, Anchor: runtimeAnchor, Want: nvidiaBinary, Hint: binaryNameHint, PathHint: pathHints},
		{ID: "dropin.nvidia-systemd-cgroup", Path: nvidiaSystemdPath, Anchor: runtimeAnchor, Want: true, Hint: systemdHint, PathHint: pathHints},
	}
	ev := checks.StepEval{Checks: []checks.Result{tf.File, tf.Parse}, Observed: fileFacts(tf)}
	for _, s := range specs {
		if tf.Doc == nil {
			ev.Checks = append(ev.Checks, waitingOnParse(s))
		} else {
			ev.Checks = append(ev.Checks, tf.Doc.Check(in, s))
		}
	}
	if d := tf.Doc; d != nil {
		runtimes, _ := runtimeNames(d)
		ev.Observed = append(ev.Observed,
			valueFact(d, "version", []string{"version"}),
			checks.Fact{Label: msg("files.fact.runtimes"), Value: checks.JoinOr(runtimes, ", ")},
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
