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
					r := runOne(t, mode, tc.script, time.Second)
					if r.Internal {
						t.Fatalf("run failed on labmate's side: %+v", r)
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
		begin := time.Now()
		r := runOne(t, mode, "#!/bin/sh\nb() { b | b & }\nb\nwait\n", 2*time.Second)
		if took := time.Since(begin); took > 5*time.Second || r.Internal {
			t.Errorf("fork bomb: %+v after %v", r, took)
		}
	}
}

// Reading the node's config by any route, and calling containerd by an
// absolute path, are observed as facts in the namespaces sandbox.
func TestTrapsObserveTheRun(t *testing.T) {
	if testModes(t)[0] != SandboxNamespaces {
		t.Skip("traps need the namespaces sandbox")
	}
	for _, tc := range []struct {
		name, script string
		config       bool
		abs          string
	}{
		{"correct", "#!/bin/sh\n[ -d /var/lib/containerd ]\nCONF_DIR=/etc/containerd\ncontainerd config dump | grep -q 'containerd.runtimes.nvidia'\n", false, ""},
		{"literal read", "#!/bin/sh\ngrep -q nvidia /etc/containerd/config.toml\n", true, ""},
		{"glob read", "#!/bin/sh\ncat /etc/contain*/*.toml >/dev/null\n", true, ""},
		{"variable read", "#!/bin/sh\nD=/etc/containerd; F=config.toml\nhead -1 \"$D/$F\" >/dev/null\n", true, ""},
		{"stat is not a read", "#!/bin/sh\n[ -f /etc/containerd/config.toml ] && ls /etc/containerd >/dev/null\n", false, ""},
		{"absolute call", "#!/bin/sh\n/usr/bin/containerd config dump >/dev/null\n", false, "/usr/bin/containerd"},
		{"absolute via /bin", "#!/bin/sh\n/bin/containerd config dump >/dev/null\n", false, "/bin/containerd"},
		{"absolute /usr/local/bin", "#!/bin/sh\n/usr/local/bin/containerd config dump >/dev/null\n", false, "/usr/local/bin/containerd"},
		{"absolute /opt", "#!/bin/sh\n/opt/containerd/bin/containerd config dump >/dev/null\n", false, "/opt/containerd/bin/containerd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runOne(t, SandboxNamespaces, tc.script, 5*time.Second)
			if r.Traps == nil {
				t.Fatalf("no traps: %+v", r)
			}
			if got := len(r.Traps.ConfigOpened) > 0; got != tc.config {
				t.Errorf("config opened %v, want %v; %+v", got, tc.config, r)
			}
			if got := strings.Join(r.Traps.AbsCalls, ","); got != tc.abs {
				t.Errorf("absolute calls %q, want %q; output %q", got, tc.abs, r.Output)
			}
		})
	}
}

func runOne(t *testing.T, mode SandboxMode, script string, timeout time.Duration) observe.ScriptObs {
	t.Helper()
	spec := observe.ProbeSpec{Script: "check.sh", FakeCommand: "containerd", Scenarios: []observe.Scenario{{Name: "s", Stdout: "containerd.runtimes.nvidia\n"}}}
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
