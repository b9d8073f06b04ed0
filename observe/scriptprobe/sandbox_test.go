package scriptprobe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/observe"
)

// testModes are the sandbox modes this machine can run, strongest
// first; each is forced in turn through Options.Sandbox. The namespaces
// mode must be available where the kernel allows it (as on the
// developers' machines), or the tests would silently test less.
func testModes(t *testing.T) []SandboxMode {
	t.Helper()
	var modes []SandboxMode
	for _, capMode := range []SandboxMode{SandboxNamespaces, SandboxLandlock, SandboxNone} {
		if m, _ := sandboxCapped(capMode); m == capMode {
			modes = append(modes, m)
		}
	}
	if os.Getenv("LABMATE_REQUIRE_NAMESPACES") == "1" && (len(modes) == 0 || modes[0] != SandboxNamespaces) {
		t.Fatalf("namespaces sandbox unavailable: %v", modes)
	}
	return modes
}

func TestSandboxModesFallBack(t *testing.T) {
	m, why := sandboxCapped(SandboxNone)
	if m != SandboxNone || why[SandboxNamespaces] == "" || why[SandboxLandlock] == "" {
		t.Errorf("capped at none: %s %v", m, why)
	}
	m, why = sandboxCapped(SandboxLandlock)
	if m == SandboxNamespaces || why[SandboxNamespaces] == "" {
		t.Errorf("capped at landlock: %s %v", m, why)
	}
	if m == SandboxNone && why[SandboxLandlock] == "" {
		t.Errorf("landlock unavailable without a reason")
	}
	if landlockABI() > 0 && m != SandboxLandlock {
		t.Errorf("the kernel offers Landlock ABI %d but the mode is %s (%v)", landlockABI(), m, why)
	}
	t.Logf("modes here: %v", testModes(t))
}

// A binary without the helper entry never re-executes itself.
func TestNoHookNoHelper(t *testing.T) {
	hookMu.Lock()
	hooked = false
	hookMu.Unlock()
	defer func() { hookMu.Lock(); hooked = true; hookMu.Unlock() }()
	m, why := detect("")
	if m != SandboxNone || !strings.Contains(why[SandboxNamespaces], "helper") {
		t.Errorf("without the hook: %s %v", m, why)
	}
}

// Hostile scripts: whatever they try, nothing outside the run directory
// changes, nothing keeps running, labmate lives on.
func TestHostileScriptsAreContained(t *testing.T) {
	for _, mode := range testModes(t) {
		if mode == SandboxNone {
			continue // uncontained by definition; the sweep tests cover it
		}
		t.Run(string(mode), func(t *testing.T) {
			outside := t.TempDir()
			marker := filepath.Join(outside, "marker")
			victim := filepath.Join(outside, "victim")
			if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			sleep := uniqueSleep(t)
			for _, tc := range []struct{ name, script string }{
				{"absolute write", "#!/bin/sh\necho x > " + marker + "\necho x > /tmp/../" + strings.TrimPrefix(marker, "/") + "\n"},
				{"relative escape", "#!/bin/sh\ncd ../../../../../../..\necho x > ." + marker + "\n"},
				{"rm -rf unset dir", "#!/bin/sh\nrm -rf \"$DIR\"/" + strings.TrimPrefix(outside, "/") + " 2>/dev/null\nrm -f " + victim + "\n"},
				{"setsid env -i", "#!/bin/sh\nsetsid env -i sleep " + sleep + " &\nsleep 0.1\n"},
				{"double fork", "#!/bin/sh\n(sh -c 'sleep " + sleep + " &' &)\nsleep 0.1\n"},
				{"kill parent", "#!/bin/sh\nkill -9 $PPID\nkill -9 -1\nexit 0\n"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					// Every script ends by itself; the 30 s only bound a
					// loaded machine. A run the timeout cut short would pass
					// the checks below without having tried its attack, so
					// it fails here, and a script that ends with exit 0
					// must have got there.
					r := runOne(t, mode, tc.script, 30*time.Second)
					if r.Internal {
						t.Fatalf("run failed on labmate's side: %+v", r)
					}
					if r.TimedOut {
						t.Fatalf("the timeout ended the run before the script did: %+v", r)
					}
					if strings.HasSuffix(tc.script, "\nexit 0\n") && r.ExitCode != 0 {
						t.Errorf("the script did not get to its exit 0: %+v", r)
					}
					if _, err := os.Stat(marker); err == nil {
						t.Errorf("the script wrote %s", marker)
					}
					if b, err := os.ReadFile(victim); err != nil || string(b) != "keep" {
						t.Errorf("the script changed %s: %q %v", victim, b, err)
					}
					// Only a PID namespace ends everything: under Landlock a
					// process that dropped the run's tag (env -i) after
					// setsid outlives the sweep (a known limit, in the report).
					if left := procsMatching("", sleep); len(left) > 0 && mode == SandboxNamespaces {
						t.Errorf("processes survived: %v", left)
					}
				})
			}
		})
	}
}

// A fork bomb is bounded by the process limit and ended by the timeout.
func TestForkBombIsBounded(t *testing.T) {
	for _, mode := range testModes(t) {
		if mode != SandboxNamespaces {
			continue // without a user namespace the bomb runs as labmate's user
		}
		const timeout = 2 * time.Second
		begin := time.Now()
		r := runOne(t, mode, "#!/bin/sh\nb() { b | b & }\nb\nwait\n", timeout)
		// Bounded, not fast: a bomb the timeout did not end would run on.
		// Ending it (killing what it forked) gets 30 s on a loaded machine.
		if took := time.Since(begin); took > timeout+30*time.Second || r.Internal {
			t.Errorf("fork bomb: %+v after %v", r, took)
		}
	}
}

// trapSpec is a spec with a layout: a watched file the script must not
// read, and trap commands at the fake's usual absolute places (one where
// the host has no parent directory).
var trapSpec = observe.SandboxSpec{
	Files: []observe.SandboxFile{
		{Path: "/etc/svc/app.conf", Content: "alpha = on\n", Watch: true},
		{Path: "/etc/svc/other.conf", Content: "unwatched\n"},
	},
	Commands: []string{"/usr/bin/svctl", "/usr/local/bin/svctl", "/bin/svctl", "/opt/svc/bin/svctl"},
}

// Reading the watched file by any route, and calling the fake by an
// absolute path, are observed as facts in the namespaces sandbox.
func TestTrapsObserveTheRun(t *testing.T) {
	if testModes(t)[0] != SandboxNamespaces {
		t.Skip("traps need the namespaces sandbox")
	}
	for _, tc := range []struct {
		name, script string
		opened       bool
		called       string
	}{
		{"correct", "#!/bin/sh\n[ -d /etc/svc ]\nCONF_DIR=/etc/svc\ncat /etc/svc/other.conf >/dev/null\nsvctl show config | grep -q 'features.alpha'\n", false, ""},
		{"literal read", "#!/bin/sh\ngrep -q alpha /etc/svc/app.conf\n", true, ""},
		{"glob read", "#!/bin/sh\ncat /etc/sv*/app.* >/dev/null\n", true, ""},
		{"variable read", "#!/bin/sh\nD=/etc/svc; F=app.conf\nhead -1 \"$D/$F\" >/dev/null\n", true, ""},
		{"stat is not a read", "#!/bin/sh\n[ -f /etc/svc/app.conf ] && ls /etc/svc >/dev/null\n", false, ""},
		{"absolute call", "#!/bin/sh\n/usr/bin/svctl show config >/dev/null\n", false, "/usr/bin/svctl"},
		{"absolute via /bin", "#!/bin/sh\n/bin/svctl show config >/dev/null\n", false, "/bin/svctl"},
		{"absolute /usr/local/bin", "#!/bin/sh\n/usr/local/bin/svctl show config >/dev/null\n", false, "/usr/local/bin/svctl"},
		{"absolute /opt", "#!/bin/sh\n/opt/svc/bin/svctl show config >/dev/null\n", false, "/opt/svc/bin/svctl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The script ends at once; the timeout only bounds a loaded
			// machine (a run it cut short would miss what the traps see).
			r := runSpec(t, SandboxNamespaces, trapSpec, tc.script, 30*time.Second)
			if r.Traps == nil {
				t.Fatalf("no traps: %+v", r)
			}
			if got := strings.Join(r.Traps.Opened, ","); (got == "/etc/svc/app.conf") != tc.opened || (got != "" && !tc.opened) {
				t.Errorf("opened %q, want opened %v; %+v", got, tc.opened, r)
			}
			if got := strings.Join(r.Traps.Called, ","); got != tc.called {
				t.Errorf("called %q, want %q; output %q", got, tc.called, r.Output)
			}
			if tc.called != "" && (len(r.FakeArgv) != 1 || strings.Join(r.FakeArgv[0], " ") != "show config") {
				t.Errorf("the trap command did not act as the fake: %q", r.FakeArgv)
			}
		})
	}
}

// Without a layout in the spec, the namespaces sandbox lays nothing out:
// the root is the host's system directories only.
func TestNoLayoutWithoutSpec(t *testing.T) {
	if testModes(t)[0] != SandboxNamespaces {
		t.Skip("layouts need the namespaces sandbox")
	}
	// The script ends at once; the timeout only bounds a loaded machine.
	// A run it cut short would print neither word either, so the run
	// must have ended by itself, at its exit 0.
	r := runSpec(t, SandboxNamespaces, observe.SandboxSpec{}, "#!/bin/sh\n[ -e /etc/svc/app.conf ] && echo placed\n[ -e /usr/bin/svctl ] && echo trapped\nexit 0\n", 30*time.Second)
	if r.TimedOut || r.ExitCode != 0 {
		t.Fatalf("the run did not end by itself with exit 0: %+v", r)
	}
	if r.Traps == nil || len(r.Traps.Opened)+len(r.Traps.Called) != 0 || strings.Contains(r.Output, "placed") || strings.Contains(r.Output, "trapped") {
		t.Errorf("run %+v", r)
	}
}

func runOne(t *testing.T, mode SandboxMode, script string, timeout time.Duration) observe.ScriptObs {
	t.Helper()
	return runSpec(t, mode, observe.SandboxSpec{}, script, timeout)
}

// runSpec runs script once under a spec with the given sandbox part.
func runSpec(t *testing.T, mode SandboxMode, sandbox observe.SandboxSpec, script string, timeout time.Duration) observe.ScriptObs {
	t.Helper()
	spec := observe.ProbeSpec{Script: "check.sh", FakeCommand: "svctl", Scenarios: []observe.Scenario{{Name: "s", Stdout: "features.alpha\n"}}, Sandbox: sandbox}
	opts := Options{Sandbox: mode, Timeout: timeout, TempDir: reachableTempDir(t)}.withDefaults()
	o := runScenario(context.Background(), opts, spec, spec.Scenarios[0], []byte(script), 0o755, "x", "/lab/check.sh")
	if o.Sandbox != string(mode) {
		t.Errorf("ran in %q, want %q", o.Sandbox, mode)
	}
	if left, _ := os.ReadDir(opts.TempDir); len(left) != 0 {
		t.Errorf("run directories left behind: %v", left)
	}
	return o
}

// reachableTempDir is a temp dir the unprivileged user a root labmate
// runs scripts as can reach (t.TempDir's are private to root).
func reachableTempDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	if os.Getuid() == 0 {
		for _, p := range []string{filepath.Dir(d), d} {
			if err := os.Chmod(p, 0o711); err != nil {
				t.Fatal(err)
			}
		}
	}
	return d
}

// sharedDir is a directory outside any run that an unsandboxed script
// may write to, whoever it runs as.
func sharedDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join(reachableTempDir(t), "shared")
	if err := os.Mkdir(d, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o777); err != nil {
		t.Fatal(err)
	}
	return d
}
