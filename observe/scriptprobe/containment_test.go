package scriptprobe

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/internal/testbin"
	"github.com/labhub/labmate/observe"
)

// buildEscape builds testdata/escape (system calls made directly, no
// tool of the host's needed) into a directory the script's user can
// reach, and returns the spec that lets a script of the given mode call
// it as "$ESCAPE": bound into the new root in the namespaces sandbox,
// at its host path elsewhere.
func buildEscape(t *testing.T, mode SandboxMode) observe.SandboxSpec {
	t.Helper()
	escape := testbin.Build(t, "./testdata/escape")
	dir := filepath.Dir(escape)
	if mode != SandboxNamespaces {
		return observe.SandboxSpec{Env: []string{"ESCAPE=" + filepath.Join(dir, "escape")}}
	}
	return observe.SandboxSpec{
		Binds: append(SystemBinds(), observe.Bind{Host: dir, Inside: "/escape"}),
		Env:   []string{"ESCAPE=/escape/escape"},
	}
}

// escapeResults are the helper's "<try>=<result>" lines.
func escapeResults(out string) map[string]string {
	res := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			res[k] = v
		}
	}
	return res
}

const escapeScript = "#!/bin/sh\n\"$ESCAPE\" calls\n\"$ESCAPE\" big\n\"$ESCAPE\" grow\nexit 0\n"

// The calls the filter must refuse, each tried by the helper.
var escapeCalls = []string{"unshare", "mount", "umount2", "ptrace", "setns", "bpf", "keyctl", "add_key",
	"perf_event_open", "init_module", "delete_module", "kexec_load"}

// In every mode, a script that tries to make namespaces, mount, trace,
// load modules or kexec is refused each call (EPERM, seen by labmate),
// and one that allocates past the memory limit is refused the memory,
// at once or when it reaches the limit.
func TestScriptCannotEscapeOrExhaust(t *testing.T) {
	for _, mode := range testModes(t) {
		t.Run(string(mode), func(t *testing.T) {
			r := runSpec(t, mode, buildEscape(t, mode), escapeScript, 30*time.Second)
			res := escapeResults(r.Output)
			if r.Seccomp != observe.SeccompNotify {
				t.Fatalf("filter %q, want %q (this kernel offers it); run %+v", r.Seccomp, observe.SeccompNotify, r)
			}
			for _, c := range escapeCalls {
				if res[c] != "EPERM" {
					t.Errorf("%s: %q, want EPERM", c, res[c])
				}
				if !slices.Contains(r.Denied, c) {
					t.Errorf("%s was refused but not seen: denied %v", c, r.Denied)
				}
			}
			// clone3 is refused as unimplemented, clone with a namespace flag
			// as forbidden: either way no process is made.
			if res["clone"] != "EPERM" && res["clone"] != "ENOSYS" || res["clone"] == "EPERM" && !slices.Contains(r.Denied, "clone") {
				t.Errorf("clone with CLONE_NEWUSER: %q, denied %v", res["clone"], r.Denied)
			}
			assertMemoryRefused(t, r, res, true)
		})
	}
}

func assertMemoryRefused(t *testing.T, r observe.ScriptObs, res map[string]string, seen bool) {
	t.Helper()
	if res["big"] != "ENOMEM" || res["grow"] != "ENOMEM" {
		t.Errorf("big %q grow %q, want ENOMEM; output %q", res["big"], res["grow"], r.Output)
	}
	m := r.Memory
	if m == nil || m.Limit != LimitMemory {
		t.Fatalf("memory %+v, want the limit %d", m, LimitMemory)
	}
	if grown, _ := strconv.Atoi(res["grown"]); int64(grown)<<20 > m.Limit {
		t.Errorf("grew %d MiB past the limit", grown)
	}
	if m.Refused != seen || !m.Reached() {
		t.Errorf("memory %+v: refused %v, want %v, and reached", m, m.Refused, seen)
	}
}

// Where the kernel offers no notifying filter the calls are still
// refused, unseen; where it offers none, the run goes on unfiltered and
// says so. The memory limit holds either way.
func TestSeccompFallbacks(t *testing.T) {
	for _, mode := range testModes(t) {
		t.Run(string(mode), func(t *testing.T) {
			spec := buildEscape(t, mode)
			r := runCapped(t, mode, observe.SeccompErrno, spec, escapeScript)
			res := escapeResults(r.Output)
			if r.Seccomp != observe.SeccompErrno || len(r.Denied) != 0 {
				t.Errorf("capped at errno: filter %q denied %v", r.Seccomp, r.Denied)
			}
			for _, c := range escapeCalls {
				if res[c] != "EPERM" {
					t.Errorf("errno filter, %s: %q, want EPERM", c, res[c])
				}
			}
			assertMemoryRefused(t, r, res, false)

			r = runCapped(t, mode, observe.SeccompOff, spec, "#!/bin/sh\n\"$ESCAPE\" big\n\"$ESCAPE\" grow\nexit 0\n")
			if r.Seccomp != observe.SeccompOff || r.ExitCode != 0 {
				t.Errorf("capped at off: %+v", r)
			}
			assertMemoryRefused(t, r, escapeResults(r.Output), false)
		})
	}
}

func runCapped(t *testing.T, mode SandboxMode, filter string, sandbox observe.SandboxSpec, script string) observe.ScriptObs {
	t.Helper()
	t.Setenv(SeccompVar, filter)
	return runSpec(t, mode, sandbox, script, 30*time.Second)
}

// A binary without the helper entry can filter nothing: it says so.
func TestNoHelperNoFilter(t *testing.T) {
	hookMu.Lock()
	hooked = false
	hookMu.Unlock()
	defer func() { hookMu.Lock(); hooked = true; hookMu.Unlock() }()
	r := runSpec(t, SandboxNone, observe.SandboxSpec{}, "#!/bin/sh\nexit 0\n", 30*time.Second)
	if r.Seccomp != observe.SeccompOff || r.Memory != nil || r.ExitCode != 0 {
		t.Errorf("without the helper: %+v", r)
	}
}

// The spec's environment reaches the script and its limits apply; the
// run's tag cannot be replaced.
func TestSpecEnvAndLimits(t *testing.T) {
	for _, mode := range testModes(t) {
		spec := buildEscape(t, mode)
		spec.Env = append(spec.Env, "LAB_MODE=strict", RunTagVar+"=forged")
		spec.Limits.Memory = 128 << 20
		r := runSpec(t, mode, spec, "#!/bin/sh\necho \"mode=$LAB_MODE\"\necho \"tag=$"+RunTagVar+"\"\n\"$ESCAPE\" grow\n", 30*time.Second)
		res := escapeResults(r.Output)
		if res["mode"] != "strict" || res["tag"] == "forged" || res["tag"] == "" {
			t.Errorf("%s: environment %q", mode, r.Output)
		}
		if grown, _ := strconv.Atoi(res["grown"]); r.Memory == nil || r.Memory.Limit != 128<<20 || res["grow"] != "ENOMEM" || grown > 128 {
			t.Errorf("%s: memory %+v, grew %s MiB", mode, r.Memory, res["grown"])
		}
	}
}

// A spec the sandbox cannot build fails on labmate's side, naming no
// fault of the script.
func TestBadSpecIsLabmates(t *testing.T) {
	for _, s := range []observe.SandboxSpec{
		{Files: []observe.SandboxFile{{Path: "etc/relative"}}},
		{Files: []observe.SandboxFile{{Path: "/tmp/x"}}},
		{Commands: []string{"/labmate/bin/tool"}},
		{Commands: []string{"/usr/bin/../bin/tool"}},
		{Binds: []observe.Bind{{Host: "relative"}}},
		{Devices: []string{"../sda"}},
		{Env: []string{"NOVALUE"}},
	} {
		if checkSpec(s) == nil {
			t.Errorf("%+v accepted", s)
		}
		r := runSpec(t, SandboxNone, s, "#!/bin/sh\nexit 0\n", 5*time.Second)
		if !r.Internal || r.Failure == nil || r.Failure.Stage != FailSandbox || r.Start != nil {
			t.Errorf("%+v: %+v", s, r)
		}
	}
	if err := checkSpec(trapSpec); err != nil {
		t.Errorf("the trap spec: %v", err)
	}
}

// The script's own start failures are typed by exec's errno, never by
// the system's words.
func TestStartFailuresAreTyped(t *testing.T) {
	for _, mode := range testModes(t) {
		for _, tc := range []struct{ script, errno string }{
			{"no shebang\n", "ENOEXEC"},
			{"#!/no/such/shell\n", "ENOENT"},
		} {
			// The start fails at once; the timeout only bounds a loaded
			// machine (a run it cut short would say timed out instead).
			r := runSpec(t, mode, observe.SandboxSpec{}, tc.script, 30*time.Second)
			if r.Internal || r.Start == nil || r.Start.Errno != tc.errno || r.StartErr == "" {
				t.Errorf("%s %q: %+v", mode, tc.script, r)
			}
		}
	}
}
