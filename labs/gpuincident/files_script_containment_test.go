package gpuincident

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/internal/testbin"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/scriptprobe"
)

// escapeProbe is step 4's probe with the prober's escape helper (system
// calls made directly; observe/scriptprobe/testdata/escape) reachable as
// "$ESCAPE" by a script run in mode: bound into the namespaces sandbox's
// root, at its host path elsewhere. The lab's own policy is kept.
func escapeProbe(t *testing.T, mode scriptprobe.SandboxMode) observe.ProbeSpec {
	t.Helper()
	// In a directory anyone may reach: a root labmate runs the script
	// as nobody.
	dir := filepath.Dir(testbin.Build(t, "../../observe/scriptprobe/testdata/escape"))
	spec := *stepCheckScript.Probe
	spec.Sandbox.Env = []string{"ESCAPE=" + filepath.Join(dir, "escape")}
	if mode == scriptprobe.SandboxNamespaces {
		spec.Sandbox.Binds = append(scriptprobe.SystemBinds(), observe.Bind{Host: dir, Inside: "/escape"})
		spec.Sandbox.Env = []string{"ESCAPE=/escape/escape"}
	}
	return spec
}

// A check script that tries to make a namespace, mount, trace, and
// allocate past the memory limit, then answers yes everywhere: each try
// is refused, and step 4 says so in Korean, in the failing check and in
// the observed view, in every mode this machine runs.
func TestCheckScriptEscapesAreRefusedAndSaid(t *testing.T) {
	const script = "#!/bin/sh\n\"$ESCAPE\" calls >/dev/null\n\"$ESCAPE\" big >/dev/null\n\"$ESCAPE\" grow >/dev/null\ncontainerd config dump >/dev/null\nexit 0\n"
	for i, mode := range append(sandboxModes(t), scriptprobe.SandboxNone) {
		// Named by number: the mode's name in the temp root's path would
		// read as the prober's English leaking.
		t.Run(fmt.Sprint("mode", i), func(t *testing.T) {
			root := labRoot(t, nil)
			writeLabFile(t, filepath.Join(root, checkScriptPath), []byte(script), 0o755)
			runs := probeSpec(t, root, escapeProbe(t, mode), scriptprobe.Options{Sandbox: mode})
			ev := evalStep(t, stepCheckScript, root, observeRoot(t, root, runs...))
			r := result(t, ev, sRunc)
			for _, w := range []string{"종료 코드가 1 이어야 하는데 0", "허용되지 않은 시스템 호출을 거부했습니다(unshare, mount, umount2 외 ", "ptrace 를 쓸 수 없습니다", "메모리 한도를 넘는 할당이 거부되었습니다 (한도 256MiB)"} {
				if r.Status != checks.Failed || !strings.Contains(r.Message, w) {
					t.Errorf("%s: %s, message lacks %q: %s", sRunc, r.Status, w, r.Message)
				}
			}
			label := scenarioLabel(scenarioRuncOnly)
			if got := fact(ev, msg("files.fact.denied", "scenario", label)); !strings.Contains(got, "허용되지 않은 시스템 호출이 거부되었습니다: unshare, mount, umount2, ptrace") || !strings.Contains(got, "kexec_load") {
				t.Errorf("denied fact %q", got)
			}
			if got := fact(ev, msg("files.fact.memory", "scenario", label)); got != "메모리 한도를 넘는 할당이 거부되었습니다 (한도 256MiB)" {
				t.Errorf("memory fact %q", got)
			}
			if got := fact(ev, msg("files.fact.seccomp")); got != msg("files.fact.seccomp_notify") {
				t.Errorf("seccomp fact %q", got)
			}
			if r := result(t, ev, sNvidia); r.Status != checks.Passed || runs[0].Script.Sandbox != string(mode) {
				t.Errorf("%s in %s: %s: %s", sNvidia, runs[0].Script.Sandbox, r.Status, r.Message)
			}
			assertNoProberEnglish(t, ev)
		})
	}
}

// Growing step by step to the limit is said as such; the observed view
// names the filter that ran, also when it could only refuse, or not
// filter at all.
func TestCheckScriptNamesItsFilterAndMemory(t *testing.T) {
	const script = "#!/bin/sh\n\"$ESCAPE\" grow >/dev/null\ncontainerd config dump | grep -qF 'containerd.runtimes.nvidia'\n"
	mode := sandboxModes(t)[0]
	for _, tc := range []struct{ filter, key string }{
		{"", "files.fact.seccomp_notify"},
		{observe.SeccompErrno, "files.fact.seccomp_errno"},
		{observe.SeccompOff, "files.fact.seccomp_off"},
	} {
		root := labRoot(t, nil)
		writeLabFile(t, filepath.Join(root, checkScriptPath), []byte(script), 0o755)
		runs := probeSpec(t, root, escapeProbe(t, mode), scriptprobe.Options{Sandbox: mode, Seccomp: tc.filter})
		ev := evalStep(t, stepCheckScript, root, observeRoot(t, root, runs...))
		if got := fact(ev, msg("files.fact.seccomp")); got != msg(tc.key) {
			t.Errorf("%q: seccomp fact %q", tc.filter, got)
		}
		got := fact(ev, msg("files.fact.memory", "scenario", scenarioLabel(scenarioNvidia)))
		if !strings.Contains(got, "메모리 한도(256MiB) 가까이 썼습니다") || !strings.Contains(got, "가장 큰 프로세스") {
			t.Errorf("%q: memory fact %q", tc.filter, got)
		}
		// The script still answers right: a limit it reached is a fact,
		// not a failure.
		assertAllPassed(t, ev, 10)
	}
}
