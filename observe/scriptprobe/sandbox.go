package scriptprobe

import (
	"encoding/json"
	"os"
	"sync"
)

// SandboxMode is how a learner's script is contained, strongest first.
type SandboxMode string

const (
	// SandboxNamespaces: new user, mount, PID, network, IPC and UTS
	// namespaces per run; a read-only root with only the run directory
	// writable; labmate's own init as PID 1, so every process of the run
	// dies with it; traps for the node's config file and for containerd
	// at its absolute locations.
	SandboxNamespaces SandboxMode = "namespaces"
	// SandboxLandlock: Landlock rules allow writes only under the run
	// directory; the process-group kill and the tag sweep end the run.
	SandboxLandlock SandboxMode = "landlock"
	// SandboxNone: the script runs with labmate's own powers, bounded
	// only by the limits, the process-group kill and the tag sweep.
	SandboxNone SandboxMode = "none"
)

// SandboxVar, when set to a mode, caps the strongest mode tried (for
// tests and for machines where a mode misbehaves): "landlock" skips the
// namespaces, "none" skips both.
const SandboxVar = "LABMATE_SCRIPT_SANDBOX"

// Limits of one run, in every mode (rlimits, set before the script is
// exec'd).
const (
	LimitCPUSeconds = 10       // CPU time of each process
	LimitFileSize   = 16 << 20 // bytes of one written file
	LimitProcs      = 64       // processes of the run at once
)

// initEnv marks a process started as labmate's sandbox helper; initArg
// is its first argument. Both must be present, so neither a stray
// environment nor a user's argument makes labmate act as an init.
const (
	initEnv = "LABMATE_SANDBOX_INIT"
	initArg = "__labmate-sandbox-init"
)

var (
	hookMu sync.Mutex
	hooked bool
)

// IsInit reports whether this process was started as labmate's sandbox
// helper; if so the caller must call InitMain at once. Every binary that
// runs learners' scripts calls it at the top of main (and TestMain): a
// binary that never called it cannot act as the helper, so the prober
// falls back to a mode without one.
func IsInit() bool {
	hookMu.Lock()
	hooked = true
	hookMu.Unlock()
	return len(os.Args) > 2 && os.Args[1] == initArg && os.Getenv(initEnv) == "1"
}

func hasHook() bool {
	hookMu.Lock()
	defer hookMu.Unlock()
	return hooked
}

// initConfig is what the parent hands the helper (as os.Args[2]).
type initConfig struct {
	Mode SandboxMode `json:"mode"`
	// Probe: set the sandbox up, then exit without running anything.
	Probe bool `json:"probe,omitempty"`
	// Root is the host directory the new root file system is built on
	// (namespaces); RunDir the host run directory, mounted writable at
	// InsideRunDir; TrapDir holds the trap layers.
	Root    string `json:"root,omitempty"`
	RunDir  string `json:"run_dir"`
	TrapDir string `json:"trap_dir,omitempty"`
	// Script, Dir and Env are as the script sees them.
	Script string   `json:"script"`
	Dir    string   `json:"dir"`
	Env    []string `json:"env"`
	// UID and GID the script runs as (inside the user namespace in
	// namespaces mode); -1 keeps the helper's.
	UID int `json:"uid"`
	GID int `json:"gid"`
}

func encodeConfig(c initConfig) string {
	b, _ := json.Marshal(c)
	return string(b)
}

// initStatus is what the namespaces helper reports on fd 3 when the
// script's main process ended.
type initStatus struct {
	Started  bool   `json:"started"`
	Exit     int    `json:"exit"` // -1 when killed by a signal
	StartErr string `json:"start_err,omitempty"`
	Errno    int    `json:"errno,omitempty"`
	Setup    string `json:"setup,omitempty"` // a failed setup step, for the probe
}

// InsideRunDir is where the run directory appears inside the namespaces
// sandbox.
const InsideRunDir = "/labmate"

// ConfigTrap is the node's main containerd config: the lab's grader
// forbids the script to read it, and inside the namespaces sandbox it is
// a trap file whose opening is observed.
const ConfigTrap = "/etc/containerd/config.toml"

// TrapDirs are the usual absolute locations of containerd: inside the
// namespaces sandbox each holds a trap command that records that it was
// called by its absolute path, then acts as the fake.
var TrapDirs = []string{"/usr/bin", "/usr/local/bin", "/usr/sbin", "/usr/local/sbin", "/bin", "/sbin", "/opt/containerd/bin"}

var (
	detectMu sync.Mutex
	detected = map[SandboxMode]detection{}
)

type detection struct {
	mode SandboxMode
	why  map[SandboxMode]string
}

// Sandbox returns the strongest mode this process can use, and for each
// stronger mode why it cannot (the operating system's words, for logs
// and doctor). SandboxVar caps the mode. The answer is probed once.
func Sandbox() (SandboxMode, map[SandboxMode]string) {
	return sandboxCapped(SandboxMode(os.Getenv(SandboxVar)))
}

// sandboxCapped is Sandbox with an explicit cap ("" for none), probed
// once per cap.
func sandboxCapped(capMode SandboxMode) (SandboxMode, map[SandboxMode]string) {
	detectMu.Lock()
	defer detectMu.Unlock()
	d, ok := detected[capMode]
	if !ok {
		d.mode, d.why = detect(capMode)
		detected[capMode] = d
	}
	return d.mode, d.why
}

// detect tries the modes from the strongest down to cap.
func detect(capMode SandboxMode) (SandboxMode, map[SandboxMode]string) {
	why := map[SandboxMode]string{}
	order := []SandboxMode{SandboxNamespaces, SandboxLandlock}
	switch capMode {
	case SandboxLandlock:
		why[SandboxNamespaces] = "disabled by " + SandboxVar
		order = order[1:]
	case SandboxNone:
		why[SandboxNamespaces] = "disabled by " + SandboxVar
		why[SandboxLandlock] = "disabled by " + SandboxVar
		order = nil
	}
	for _, m := range order {
		if !hasHook() {
			why[m] = "this binary has no sandbox helper entry (scriptprobe.IsInit)"
			continue
		}
		if err := probeMode(m); err != nil {
			why[m] = err.Error()
			continue
		}
		return m, why
	}
	return SandboxNone, why
}
