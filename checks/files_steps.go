package checks

// Placeholder until the file checks land; every step reports unknown.
var (
	stepMainConfig   = Step{Number: 1, ID: "main-config"}
	stepDropIn       = Step{Number: 2, ID: "dropin"}
	stepMergeVerdict = Step{Number: 3, ID: "merge-verdict"}
	stepCheckScript  = Step{Number: 4, ID: "check-script"}
)
