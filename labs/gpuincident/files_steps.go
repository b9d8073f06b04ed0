package gpuincident

import "github.com/labhub/labmate/checks"

// Steps 1-4 of the GPU incident lab judge the learner's files only:
// the main containerd config and the toolkit's drop-in (TOML, parsed),
// the merge verdict computed from them, and a script run for real.
var (
	stepMainConfig = checks.Step{Number: 1, ID: "main-config",
		Files: []string{mainConfigPath}, Eval: evalMainConfig}
	stepDropIn = checks.Step{Number: 2, ID: "dropin",
		Files: []string{dropInPath, mainConfigPath}, Eval: evalDropIn}
	stepMergeVerdict = checks.Step{Number: 3, ID: "merge-verdict",
		Files: []string{mainConfigPath, dropInPath, mergePath}, Eval: evalMergeVerdict}
	stepCheckScript = checks.Step{Number: 4, ID: "check-script",
		Files: []string{checkScriptPath}, Probe: checkScriptProbe, Eval: evalCheckScript}
)
