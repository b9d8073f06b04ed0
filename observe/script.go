package observe

import (
	"io/fs"
	"time"
)

// ScriptObs is the outcome of running a learner's script under one
// scenario of its ProbeSpec.
type ScriptObs struct {
	Script     string        `json:"script"`      // path relative to the lab root
	ContentSHA string        `json:"content_sha"` // sha256 of the script that ran
	Scenario   string        `json:"scenario"`
	ExitCode   int           `json:"exit_code"` // -1 when it did not exit (timeout, start failure, signal)
	TimedOut   bool          `json:"timed_out,omitempty"`
	StartErr   string        `json:"start_err,omitempty"` // why it did not start, in the system's words, for logs
	FakeArgv   [][]string    `json:"fake_argv"`           // every argv the fake command was called with
	Output     string        `json:"output"`              // combined stdout+stderr tail, capped
	Truncated  bool          `json:"truncated,omitempty"`
	Duration   time.Duration `json:"duration"`
	Limit      time.Duration `json:"limit,omitempty"` // the wall-time limit the run had (0: not recorded)
	// Start is the typed form of the script's own start failure (exec
	// refused it); nil when it started, or when labmate failed first.
	Start *StartFailure `json:"start,omitempty"`
	// Internal marks a run that failed on labmate's side (its temporary
	// directory, its files, a fork) rather than the script's: the script
	// was never tried, so nothing is known about it. Failure says where
	// and why; StartErr words it for logs.
	Internal bool           `json:"internal,omitempty"`
	Failure  *ScriptFailure `json:"failure,omitempty"`
	// Sandbox is how the run was contained ("namespaces", "landlock",
	// "none"; "" when not known, as in version 1 traces).
	Sandbox string `json:"sandbox,omitempty"`
	// Traps is what the spec's watched files and trap commands saw. Nil
	// when the sandbox could lay out no files (it has no root of its own).
	Traps *ScriptTraps `json:"traps,omitempty"`
	// Seccomp is how the run's system calls were filtered (SeccompNotify,
	// SeccompErrno, SeccompOff); "" when not recorded (traces before
	// version 3).
	Seccomp string `json:"seccomp,omitempty"`
	// Denied are the system calls the filter refused, by name, each once,
	// in order; known only with SeccompNotify.
	Denied []string `json:"denied,omitempty"`
	// Memory is the run's memory limit and what labmate saw of it; nil
	// when not recorded.
	Memory *ScriptMemory `json:"memory,omitempty"`
}

// ScriptTraps is what the layout of a sandboxed run saw.
type ScriptTraps struct {
	Opened []string `json:"opened,omitempty"` // watched files the script opened, in spec order
	Called []string `json:"called,omitempty"` // paths trap commands were called by, in order, each once
}

// How a run's system calls were filtered (ScriptObs.Seccomp).
const (
	// SeccompNotify: a seccomp filter refused the denied calls and labmate
	// saw each (ScriptObs.Denied).
	SeccompNotify = "notify"
	// SeccompErrno: a seccomp filter refused them; the kernel offered no
	// way to see which.
	SeccompErrno = "errno"
	// SeccompOff: no filter (the kernel or the binary allowed none).
	SeccompOff = "off"
)

// ScriptMemory is a run's memory limit and what was seen of it.
type ScriptMemory struct {
	Limit int64 `json:"limit"` // bytes of memory each process may allocate (0: unlimited)
	// Peak is the largest resident size one process of the run reached,
	// in bytes (0: not measured).
	Peak int64 `json:"peak,omitempty"`
	// Refused: the filter saw an allocation larger than the limit and
	// refused it.
	Refused bool `json:"refused,omitempty"`
}

// Reached reports whether the run used its memory up to the limit: an
// allocation past it was refused, or a process grew to three quarters
// of it. The limit counts memory a process mapped but has not touched
// yet, which its resident size does not show: a process refused memory
// by the kernel is seen at 85 to 100 percent, one that doubles a buffer
// at as little as 75.
func (m *ScriptMemory) Reached() bool {
	return m != nil && m.Limit > 0 && (m.Refused || m.Peak >= m.Limit/4*3)
}

// StartFailure is why exec refused the learner's script: the script's
// own doing, unlike a ScriptFailure.
type StartFailure struct {
	// Errno is exec's error by its portable name: "ENOEXEC" (no #! line
	// and no binary), "ENOENT" (the interpreter after #! is missing),
	// "EACCES", "ENOTDIR", "ELOOP", ...; "" when the reason is unknown.
	Errno string `json:"errno,omitempty"`
	// NoExecBit: the file has no execute bit, so it was not tried.
	NoExecBit bool `json:"no_exec_bit,omitempty"`
}

// Stages at which labmate itself can fail to set up a script run
// (ScriptFailure.Stage).
const (
	FailTempDir  = "temp-dir"  // creating the run's directory in the temp dir
	FailRunFiles = "run-files" // writing the fake, the script's copy, the run's subdirectories
	FailNoExec   = "noexec"    // the temp dir is on a file system that forbids executing files
	FailPipe     = "pipe"      // making the pipe for the script's output
	FailSpawn    = "spawn"     // forking the script's process (no processes or memory left)
	FailSandbox  = "sandbox"   // setting up the sandbox failed after it was probed
	FailPanic    = "panic"     // a bug in the prober
)

// ScriptFailure is labmate's own failure to set up a run: the typed form
// of an Internal ScriptObs, for checks to word.
type ScriptFailure struct {
	Stage string `json:"stage"`          // FailTempDir, ...
	Path  string `json:"path,omitempty"` // the directory concerned, for the stages about one
	// Errno is the operating system's error name ("ENOSPC", "EACCES"),
	// portable across systems; "" when the failure had none (a panic).
	Errno string `json:"errno,omitempty"`
}

// ProbeSpec asks a prober to run a learner's script for real: once per
// scenario, with a fake command of the given name first on PATH that
// prints the scenario's Stdout for any arguments and records its argv,
// in a sandbox the spec describes. The prober reruns only when the
// script's content changes.
type ProbeSpec struct {
	Script      string     // lab-relative path of the script
	FakeCommand string     // name the script must call through PATH
	Scenarios   []Scenario // each run gets its own temp dir
	Sandbox     SandboxSpec
}

// Scenario is one run of a probed script.
type Scenario struct {
	Name   string
	Stdout string
}

// SandboxSpec is a lab's policy for the sandbox its script runs in, the
// way bubblewrap or nsjail take one: what the new root shows and holds,
// what is watched, the environment and the limits. The prober applies
// what its mode can: only a sandbox with a root of its own (namespaces)
// binds, lays out files and places trap commands; every mode applies Env
// and Limits. A zero SandboxSpec is the prober's defaults.
type SandboxSpec struct {
	// Binds are the host paths the new root shows, read-only; nil means
	// the prober's defaults (the system's directories).
	Binds []Bind
	// Devices are the names under /dev the new root has, bound from the
	// host; nil means the prober's defaults (null, zero, full, random,
	// urandom).
	Devices []string
	// Files are laid out read-only in the new root, over what a bind
	// shows there.
	Files []SandboxFile
	// Commands are absolute paths where a trap command stands: calling
	// one is recorded (ScriptTraps.Called) and then acts as the fake.
	Commands []string
	// Env is added to the script's environment (KEY=VALUE), replacing an
	// entry of the same name.
	Env []string
	// Limits bound every process of a run; zero fields are the defaults.
	Limits Limits
}

// Bind shows a host path in the new root, read-only.
type Bind struct {
	Host   string // absolute host path
	Inside string // where the script sees it; "" is the same path
}

// SandboxFile is a file laid out in the new root.
type SandboxFile struct {
	Path    string      // absolute, as the script sees it
	Content string      //
	Mode    fs.FileMode // permission bits; 0 is 0644
	// Watch: record whether the script opened it (ScriptTraps.Opened).
	Watch bool
}

// Limits bound each process of a run (rlimits); zero is the default.
type Limits struct {
	CPUSeconds int   // CPU time of each process
	FileSize   int64 // bytes of one written file
	Procs      int   // processes of the run at once
	Memory     int64 // bytes of memory each process may allocate
}
