package scriptprobe

import (
	"encoding/json"
	"os"
	"sync"

	"github.com/labhub/labmate/observe"
)

// SandboxMode is how a learner's script is contained, strongest first.
type SandboxMode string

const (
	// SandboxNamespaces: new user, mount, PID, network, IPC and UTS
	// namespaces per run; a read-only root built from the spec (binds,
	// devices, laid-out files, trap commands) with only the run directory
	// writable; labmate's own init as PID 1, so every process of the run
	// dies with it.
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

// SeccompVar, when set to a filter mode, caps the strongest system-call
// filter tried (observe.SeccompNotify, SeccompErrno, SeccompOff): for
// tests, and for machines where the notifying filter misbehaves.
const SeccompVar = "LABMATE_SCRIPT_SECCOMP"

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
	// Inner: this is the run's first process inside the namespaces,
	// started by their PID 1 (namespaces mode only).
	Inner bool `json:"inner,omitempty"`
	// Root is the host directory the new root file system is built on
	// (namespaces); RunDir the host run directory, mounted writable at
	// InsideRunDir; Layer mirrors the root with the spec's files and trap
	// commands; Binds and Devices are what the root shows of the host.
	Root    string     `json:"root,omitempty"`
	RunDir  string     `json:"run_dir"`
	Layer   string     `json:"layer,omitempty"`
	Binds   []bindSpec `json:"binds,omitempty"`
	Devices []string   `json:"devices,omitempty"`
	// Script, Dir and Env are as the script sees them.
	Script string   `json:"script"`
	Dir    string   `json:"dir"`
	Env    []string `json:"env"`
	// UID and GID the script runs as (inside the user namespace in
	// namespaces mode); -1 keeps the helper's.
	UID int `json:"uid"`
	GID int `json:"gid"`
	// Limits are the rlimits of every process; Seccomp the strongest
	// system-call filter to try.
	Limits  observe.Limits `json:"limits"`
	Seccomp string         `json:"seccomp"`
}

// bindSpec is one host path the new root shows, read-only.
type bindSpec struct {
	Host   string `json:"host"`
	Inside string `json:"inside"`
}

func encodeConfig(c initConfig) string {
	b, _ := json.Marshal(c)
	return string(b)
}

// initStatus is what the helper reports on fd 3: the namespaces helper
// when the script's main process ended, any helper when the script did
// not start or its own setup failed.
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

// Seccomp is the system-call filter runs get here: the strongest the
// kernel offers, capped by SeccompVar; none in a binary without the
// helper entry, which cannot load one.
func Seccomp() string {
	if !hasHook() {
		return observe.SeccompOff
	}
	got := filterAvailable()
	rank := map[string]int{observe.SeccompOff: 0, observe.SeccompErrno: 1, observe.SeccompNotify: 2}
	if c, ok := rank[os.Getenv(SeccompVar)]; ok && c < rank[got] {
		return os.Getenv(SeccompVar)
	}
	return got
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
