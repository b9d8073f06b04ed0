package checks

import "strings"

// Step 2: the drop-in the NVIDIA container toolkit writes.

const nvidiaBinary = "/usr/bin/nvidia-container-runtime"

var (
	nvidiaTypePath    = runtimePath("nvidia", "runtime_type")
	nvidiaBinaryPath  = runtimePath("nvidia", "options", "BinaryName")
	nvidiaSystemdPath = runtimePath("nvidia", "options", "SystemdCgroup")
)

func evalDropIn(in Input) StepEval {
	tf := openTOML(in, "dropin", dropInPath)
	specs := []keySpec{
		{id: "dropin.nvidia-runtime-type", path: nvidiaTypePath, anchor: runtimeAnchor, want: runcRuntimeType, hint: runtimeTypeHint},
		{id: "dropin.nvidia-binary-name", path: nvidiaBinaryPath, anchor: runtimeAnchor, want: nvidiaBinary, hint: binaryNameHint},
		{id: "dropin.nvidia-systemd-cgroup", path: nvidiaSystemdPath, anchor: runtimeAnchor, want: true, hint: systemdHint},
	}
	ev := StepEval{Checks: []Result{tf.file, tf.parse}, Observed: fileFacts(tf)}
	for _, s := range specs {
		if tf.doc == nil {
			ev.Checks = append(ev.Checks, waitingOnParse(s))
		} else {
			ev.Checks = append(ev.Checks, tf.doc.check(in, s))
		}
	}
	if d := tf.doc; d != nil {
		runtimes, _ := d.runtimeNames()
		ev.Observed = append(ev.Observed,
			Fact{Label: msg("files.fact.runtimes"), Value: joinOr(runtimes, ", ")},
			d.valueFact("runtimes.nvidia.runtime_type", nvidiaTypePath),
			d.valueFact("runtimes.nvidia.options.BinaryName", nvidiaBinaryPath),
			d.valueFact("runtimes.nvidia.options.SystemdCgroup", nvidiaSystemdPath),
		)
	}
	// Whether containerd would read this file at all is the main
	// config's business: show it here, where the learner looks.
	verdict := msg("files.fact.imports_unreadable")
	if main := openTOML(in, "main-config", mainConfigPath); main.doc != nil {
		verdict = importsVerdict(in, main.doc)
	}
	ev.Observed = append(ev.Observed, Fact{Label: msg("files.fact.imports_dropin"), Value: verdict})
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
