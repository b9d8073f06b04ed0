package gpuincident

import (
	"strings"
	"testing"

	"github.com/labhub/labmate/observe/scriptprobe"
)

// sandboxModes are the modes this machine runs scripts in: the
// namespaces sandbox where the kernel allows it, and the fallback forced
// the way a machine without user namespaces gets it.
func sandboxModes(t *testing.T) []scriptprobe.SandboxMode {
	t.Helper()
	var modes []scriptprobe.SandboxMode
	if m, _ := scriptprobe.Sandbox(); m == scriptprobe.SandboxNamespaces {
		modes = append(modes, m)
	}
	return append(modes, scriptprobe.SandboxLandlock)
}

// The cases, run for real in every mode: correct scripts pass
// whatever their text looks like; wrong ones fail naming what the script
// did (observed by the traps) or what its commands say (read by the
// shell parser where no trap could be placed).
func TestCheckScriptJudgedByWhatItDoes(t *testing.T) {
	for _, mode := range sandboxModes(t) {
		probe := &scriptprobe.Options{Sandbox: mode}
		trapped := mode == scriptprobe.SandboxNamespaces
		t.Run(string(mode), func(t *testing.T) {
			vs := []variant{
				{name: "awk pattern with /containerd", fixture: "check-script/correct-awk.sh", probe: probe},
				{name: "directory test, variable and backslash continuation", fixture: "check-script/correct-continuation.sh", probe: probe},
				{name: "quoted command name and sed pattern", fixture: "check-script/correct-quoted-name.sh", probe: probe},
			}
			if trapped {
				// The trap commands act as the fake, so only the rule fails.
				vs = append(vs, variant{name: "absolute path to containerd", fixture: "check-script/abs-path.sh", probe: probe,
					fail: map[string][]string{sAbs: {"실행 중", "/usr/bin/containerd", "2번째 줄", "PATH"}}})
				// The trap file holds what was written (an nvidia table):
				// the script says yes where nothing was loaded.
				for _, fx := range []struct{ name, fixture, line string }{
					{"reads the config file", "reads-config-file.sh", "3번째 줄"},
					{"reads the config by glob", "reads-config-glob.sh", "2번째 줄"},
					{"reads the config through variables", "reads-config-variable.sh", "4번째 줄"},
				} {
					vs = append(vs, variant{name: fx.name, fixture: "check-script/" + fx.fixture, probe: probe,
						fail: map[string][]string{
							sCalls:   {"containerd config dump"},
							sMainCfg: {"실행 중", "열었습니다", fx.line, "설정 전체가 아닙니다"},
							sFake:    {"한 번도 불리지 않았습니다"},
							sRunc:    {"종료 코드가 1 이어야 하는데 0"},
							sNvDef:   {"종료 코드가 1 이어야 하는데 0"},
						}})
				}
			} else {
				vs = append(vs, variant{name: "absolute path to containerd", fixture: "check-script/abs-path.sh", probe: probe, unless: "/usr/bin/containerd",
					fail: map[string][]string{
						sAbs:    {"2번째 줄", "/usr/bin/containerd", "PATH"},
						sFake:   {"한 번도 불리지 않았습니다", "절대 경로"},
						sNvidia: {"종료 코드가 0 이어야 하는데 1"},
					}})
				for _, fx := range []struct{ name, fixture, line string }{
					{"reads the config file", "reads-config-file.sh", "3번째 줄"},
					{"reads the config by glob", "reads-config-glob.sh", "2번째 줄"},
					{"reads the config through variables", "reads-config-variable.sh", "4번째 줄"},
				} {
					vs = append(vs, variant{name: fx.name, fixture: "check-script/" + fx.fixture, probe: probe, unless: "/etc/containerd/config.toml",
						fail: map[string][]string{
							sCalls:   {"containerd config dump"},
							sMainCfg: {fx.line, "가리킵니다", "설정 전체가 아닙니다"},
							sFake:    {"한 번도 불리지 않았습니다"},
							sNvidia:  {"종료 코드가 0 이어야 하는데 2"},
							sRunc:    {"종료 코드가 1 이어야 하는데 2"},
							sNvDef:   {"종료 코드가 1 이어야 하는데 2"},
						}})
				}
			}
			runVariants(t, stepCheckScript, checkScriptPath, vs)
		})
	}
}

// The sandbox in use is named in the observed view.
func TestCheckScriptNamesItsSandbox(t *testing.T) {
	for _, mode := range sandboxModes(t) {
		root := labRoot(t, nil)
		runs := probeScript(t, root, scriptprobe.Options{Sandbox: mode})
		ev := evalStep(t, stepCheckScript, root, observeRoot(t, root, runs...))
		got := fact(ev, msg("files.fact.sandbox"))
		want := map[scriptprobe.SandboxMode]string{scriptprobe.SandboxNamespaces: "네임스페이스", scriptprobe.SandboxLandlock: "Landlock", scriptprobe.SandboxNone: "격리 없음"}
		ran := runs[0].Script.Sandbox
		if !strings.Contains(got, want[scriptprobe.SandboxMode(ran)]) {
			t.Errorf("%s (ran in %s): sandbox fact %q", mode, ran, got)
		}
		if trapped := runs[0].Script.Traps != nil; trapped != (ran == string(scriptprobe.SandboxNamespaces)) {
			t.Errorf("%s: traps %v in mode %s", mode, trapped, ran)
		}
	}
}

// The text rules, where no trap could be placed: commands and their
// arguments as the shell reads them.
func TestReadShell(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		dump, abs    int
		absPath      string
		cfg          int
		parseErr     bool
	}{
		{"reference", "#!/bin/sh\nif containerd config dump | grep -qF 'containerd.runtimes.nvidia'; then\n  exit 0\nfi\nexit 1\n", 2, 0, "", 0, false},
		{"awk pattern", "#!/bin/sh\ncontainerd config dump | awk '/containerd\\.runtimes\\.nvidia/'\n", 2, 0, "", 0, false},
		{"sed pattern", "#!/bin/sh\ncontainerd config dump | sed -n '/containerd.runtimes.nvidia/p'\n", 2, 0, "", 0, false},
		{"directory test", "#!/bin/sh\n[ -d /var/lib/containerd ] && containerd config dump\n", 2, 0, "", 0, false},
		{"variable of a directory", "#!/bin/sh\nCONF_DIR=/etc/containerd\ncontainerd config dump\n", 3, 0, "", 0, false},
		{"backslash continuation", "#!/bin/sh\ncontainerd \\\n  config \\\n  dump | grep -q x\n", 2, 0, "", 0, false},
		{"quoted name", "#!/bin/sh\n\"containerd\" config dump\n", 2, 0, "", 0, false},
		{"command substitution", "#!/bin/sh\nout=$(containerd config dump)\n", 2, 0, "", 0, false},
		{"wrapped by command", "#!/bin/sh\ncommand containerd config dump\n", 2, 0, "", 0, false},
		{"comment", "#!/bin/sh\n# not /etc/containerd/config.toml, not /usr/bin/containerd config dump\ncontainerd config dump\n", 3, 0, "", 0, false},
		{"absolute path", "#!/bin/sh\n/usr/bin/containerd config dump\n", 2, 2, "/usr/bin/containerd", 0, false},
		{"absolute path in a variable", "#!/bin/sh\nC=/usr/local/bin/containerd\n$C config dump\n", 3, 3, "/usr/local/bin/containerd", 0, false},
		{"literal read", "#!/bin/sh\ncontainerd config dump\ngrep nvidia /etc/containerd/config.toml\n", 2, 0, "", 3, false},
		{"redirect read", "#!/bin/sh\nwhile read l; do :; done < /etc/containerd/config.toml\n", 0, 0, "", 2, false},
		{"glob read", "#!/bin/sh\ncat /etc/contain*/*.toml\n", 0, 0, "", 2, false},
		{"variable read", "#!/bin/sh\nD=/etc/containerd\nF=config.toml\ncat \"$D/$F\"\n", 0, 0, "", 4, false},
		{"existence test is no read", "#!/bin/sh\n[ -f /etc/containerd/config.toml ] && echo yes\n", 0, 0, "", 0, false},
		{"syntax error", "#!/bin/sh\nif containerd config dump then\nfi\n", 0, 0, "", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := readShell(tc.script)
			if (st.parseErr != nil) != tc.parseErr {
				t.Fatalf("parse error %v", st.parseErr)
			}
			if st.dumpLine != tc.dump || st.absLine != tc.abs || st.absPath != tc.absPath || st.cfgLine != tc.cfg {
				t.Errorf("dump %d abs %d %q cfg %d; want %d %d %q %d", st.dumpLine, st.absLine, st.absPath, st.cfgLine, tc.dump, tc.abs, tc.absPath, tc.cfg)
			}
		})
	}
}
