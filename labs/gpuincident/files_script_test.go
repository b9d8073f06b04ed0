package gpuincident

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/scriptprobe"
)

const (
	sExec    = "check-script.executable"
	sShebang = "check-script.shebang"
	sCalls   = "check-script.calls-dump"
	sAbs     = "check-script.no-abs-containerd"
	sMainCfg = "check-script.no-main-config"
	sFake    = "check-script.fake-called"
	sNvidia  = "check-script.run-nvidia"
	sRunc    = "check-script.run-runc-only"
	sNvDef   = "check-script.run-nvidia-default"
	sFile    = "check-script.file"
)

var dynamicChecks = []string{sFake, sNvidia, sRunc, sNvDef}

func TestCheckScriptReferencePasses(t *testing.T) {
	root := labRoot(t, nil)
	runs := probeScript(t, root, scriptprobe.Options{})
	if len(runs) != 3 {
		t.Fatalf("runs %+v", runs)
	}
	ev := evalStep(t, stepCheckScript, root, observeRoot(t, root, runs...))
	assertAllPassed(t, ev, 10)
	if got := fact(ev, msg("files.fact.sandbox")); got == msg("files.fact.sandbox_unknown") || got == "" {
		t.Errorf("sandbox fact %q", got)
	}
	for _, w := range []struct{ label, want string }{
		{msg("files.fact.run", "scenario", scenarioLabel(scenarioNvidia)), "종료 코드 0"},
		{msg("files.fact.run", "scenario", scenarioLabel(scenarioRuncOnly)), "종료 코드 1"},
		{msg("files.fact.run", "scenario", scenarioLabel(scenarioNvidiaDefault)), "종료 코드 1"},
		{msg("files.fact.fake_argv", "scenario", scenarioLabel(scenarioNvidia)), "containerd config dump"},
		{msg("files.fact.output", "scenario", scenarioLabel(scenarioRuncOnly)), "NOT loaded"},
	} {
		if got := fact(ev, w.label); !strings.Contains(got, w.want) {
			t.Errorf("fact %s = %q, want %q", w.label, got, w.want)
		}
	}
}

func TestCheckScriptWrong(t *testing.T) {
	probe := &scriptprobe.Options{}
	// Long enough for the script to reach its hang on most machines; a
	// loaded one gets longer (see hanging).
	short := &scriptprobe.Options{Timeout: 5 * time.Second}
	runVariants(t, stepCheckScript, checkScriptPath, []variant{
		{name: "not executable", fixture: "check-script/not-executable.sh", probe: probe, wait: dynamicChecks,
			fail: map[string][]string{sExec: {"실행 권한이 없습니다", "-rw-r--r--", "chmod +x"}}},
		{name: "no shebang", fixture: "check-script/no-shebang.sh", probe: probe,
			fail: map[string][]string{
				sShebang: {"#!", "containerd config dump"},
				sFake:    {"시작되지 않아", "실행할 형식"},
				sNvidia:  {"실행할 형식", "#! 가 없으면"},
				sRunc:    {"실행할 형식"},
				sNvDef:   {"실행할 형식"},
			}},
		{name: "shebang on the second line", fixture: "check-script/shebang-second-line.sh", probe: probe,
			fail: map[string][]string{
				sShebang: {"맨 앞"},
				sFake:    {"실행할 형식"}, sNvidia: {"실행할 형식"}, sRunc: {"실행할 형식"}, sNvDef: {"실행할 형식"},
			}},
		{name: "Windows line endings", fixture: "check-script/crlf.sh", probe: probe,
			fail: map[string][]string{
				sShebang: {"CRLF", "sed -i"},
				sFake:    {"인터프리터가 없습니다"}, sNvidia: {"인터프리터가 없습니다", "CRLF"}, sRunc: {"인터프리터가 없습니다"}, sNvDef: {"인터프리터가 없습니다"},
			}},
		// A comment is not a read: the step's text says so, and the check agrees.
		{name: "mentions the config file in a comment", fixture: "check-script/mentions-in-comment.sh", probe: probe},
		{name: "always exits 0", fixture: "check-script/always-zero.sh", probe: probe,
			fail: map[string][]string{
				sRunc:  {"runc 만 로드됨", "종료 코드가 1 이어야 하는데 0", "dumped", "grep"},
				sNvDef: {"종료 코드가 1 이어야 하는데 0"},
			}},
		{name: "prints found but exits 0 either way", fixture: "check-script/found-but-exit-zero.sh", probe: probe,
			fail: map[string][]string{sRunc: {"종료 코드가 1 이어야 하는데 0", "(출력 없음)"}, sNvDef: {"종료 코드가 1 이어야 하는데 0"}}},
		{name: "exits 2 without nvidia", fixture: "check-script/exit-two.sh", probe: probe,
			fail: map[string][]string{sRunc: {"종료 코드가 1 이어야 하는데 2", "no nvidia", "정확히 1"}, sNvDef: {"종료 코드가 1 이어야 하는데 2"}}},
		{name: "looks for the table name without quotes", fixture: "check-script/wrong-pattern.sh", probe: probe,
			fail: map[string][]string{sNvidia: {"nvidia 핸들러 로드됨", "종료 코드가 0 이어야 하는데 1", `[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]`}}},
		// The common trap: the word is there, the handler is not.
		{name: "greps the bare word nvidia", fixture: "check-script/bare-word.sh", probe: probe,
			fail: map[string][]string{sNvDef: {"기본 런타임 이름만 nvidia", "종료 코드가 1 이어야 하는데 0", "default_runtime_name", "containerd.runtimes.nvidia 를 찾으세요"}}},
		{name: "calls containerd with other arguments", fixture: "check-script/wrong-args.sh", probe: probe,
			fail: map[string][]string{
				sCalls: {"containerd config dump"},
				// The fake prints its dump whatever it is asked, so the
				// runs pass; only the argv gives the mistake away.
				sFake: {"config dump 가 아닌", "containerd dump config"},
			}},
		{name: "hangs", fixture: "check-script/hangs.sh", probe: short, started: "checking",
			fail: map[string][]string{
				sNvidia: {"시간 제한 5초 안에 끝나지 않아", "checking", "표준 입력"},
				sRunc:   {"끝나지 않아"},
				sNvDef:  {"끝나지 않아"},
			}},
		// Where traps saw the runs they decide; the text rules need a parse.
		{name: "syntax error", fixture: "check-script/syntax-error.sh", probe: probe,
			wait: waitWithoutTraps(sAbs, sMainCfg),
			fail: map[string][]string{
				sCalls:  {"셸 문법으로 읽을 수 없습니다", "4번째 줄"},
				sFake:   {"한 번도 불리지 않았습니다"},
				sNvidia: {"종료 코드가 0 이어야 하는데 2", "Syntax error"},
				sRunc:   {"종료 코드가 1 이어야 하는데 2", "Syntax error"},
				sNvDef:  {"종료 코드가 1 이어야 하는데 2"},
			}},
	})
}

func scriptObs(content, scenario string, exit int, argv ...[]string) observe.Observation {
	sum := sha256.Sum256([]byte(content))
	return observe.Observation{Time: time.Now(), Script: &observe.ScriptObs{
		Script: checkScriptPath, ContentSHA: hex.EncodeToString(sum[:]), Scenario: scenario,
		ExitCode: exit, FakeArgv: argv, Output: "out of " + scenario, Duration: 30 * time.Millisecond,
	}}
}

// The runs in the snapshot count only for the script as it is now.
func TestCheckScriptWaitsForRunsOfTheCurrentContent(t *testing.T) {
	root := labRoot(t, nil)
	ref := readFixture(t, reference+"/"+checkScriptPath)
	dump := []string{"config", "dump"}
	notExec := scriptObs(ref, scenarioNvidia, -1)
	notExec.Script.StartErr, notExec.Script.Start = scriptprobe.NotExecutable, &observe.StartFailure{NoExecBit: true}
	for _, tc := range []struct {
		name string
		runs []observe.Observation
		want checks.Status
	}{
		{"no runs yet", nil, checks.Waiting},
		{"one scenario only", []observe.Observation{scriptObs(ref, scenarioNvidia, 0, dump)}, checks.Waiting},
		{"two scenarios of three", []observe.Observation{scriptObs(ref, scenarioNvidia, 0, dump), scriptObs(ref, scenarioRuncOnly, 1, dump)}, checks.Waiting},
		{"runs of an older version", []observe.Observation{
			scriptObs(ref+"# old\n", scenarioNvidia, 0, dump), scriptObs(ref+"# old\n", scenarioRuncOnly, 1, dump),
			scriptObs(ref+"# old\n", scenarioNvidiaDefault, 1, dump)}, checks.Waiting},
		{"a run from before chmod +x", []observe.Observation{notExec, scriptObs(ref, scenarioRuncOnly, 1, dump), scriptObs(ref, scenarioNvidiaDefault, 1, dump)}, checks.Waiting},
		{"runs of this version", []observe.Observation{
			scriptObs(ref, scenarioNvidia, 0, []string{"--version"}, dump), scriptObs(ref, scenarioRuncOnly, 1, dump),
			scriptObs(ref, scenarioNvidiaDefault, 1, dump)}, checks.Passed},
	} {
		ev := evalStep(t, stepCheckScript, root, observeRoot(t, root, tc.runs...))
		for _, id := range dynamicChecks {
			if r := result(t, ev, id); r.Status != tc.want {
				t.Errorf("%s: %s is %s: %s", tc.name, id, r.Status, r.Message)
			}
		}
		if tc.want == checks.Waiting && !strings.Contains(fact(ev, msg("files.fact.run", "scenario", scenarioLabel(scenarioRuncOnly)))+
			fact(ev, msg("files.fact.run", "scenario", scenarioLabel(scenarioNvidia)))+
			fact(ev, msg("files.fact.run", "scenario", scenarioLabel(scenarioNvidiaDefault))), "대기") {
			t.Errorf("%s: the observed panel does not say a run is pending", tc.name)
		}
	}
}

func TestCheckScriptProbeSpec(t *testing.T) {
	p := stepCheckScript.Probe
	if p == nil || p.Script != checkScriptPath || p.FakeCommand != "containerd" || len(p.Scenarios) != 3 {
		t.Fatalf("probe %+v", p)
	}
	nvidiaTable := `[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]`
	runcTable := `[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]`
	for _, sc := range p.Scenarios {
		var tree map[string]any
		d := &checks.TOMLDoc{}
		if err := tomlUnmarshal(sc.Stdout, &tree); err != nil {
			t.Errorf("%s: the dump is not TOML: %v", sc.Name, err)
			continue
		}
		d.Tree = tree
		names, _ := runtimeNames(d)
		switch sc.Name {
		case scenarioNvidia:
			if !strings.Contains(sc.Stdout, nvidiaTable) || strings.Join(names, ",") != "nvidia,runc" {
				t.Errorf("nvidia dump defines %v", names)
			}
		case scenarioRuncOnly:
			if strings.Contains(sc.Stdout, "nvidia") || !strings.Contains(sc.Stdout, runcTable) || strings.Join(names, ",") != "runc" {
				t.Errorf("runc-only dump defines %v", names)
			}
		case scenarioNvidiaDefault:
			// The word is there, outside any comment; the table is not.
			if !strings.Contains(sc.Stdout, `default_runtime_name = "nvidia"`) || !strings.Contains(sc.Stdout, `BinaryName = "/usr/bin/nvidia-container-runtime"`) ||
				strings.Contains(sc.Stdout, "containerd.runtimes.nvidia") || strings.Contains(sc.Stdout, "#") || strings.Join(names, ",") != "runc" {
				t.Errorf("nvidia-default-only dump defines %v", names)
			}
		default:
			t.Errorf("unknown scenario %s", sc.Name)
		}
	}
	sb := p.Sandbox
	if len(sb.Files) != 1 || sb.Files[0].Path != mainConfigOnNode || !sb.Files[0].Watch || !strings.Contains(sb.Files[0].Content, "runtimes.nvidia") {
		t.Errorf("the config trap: %+v", sb.Files)
	}
	if len(sb.Commands) != len(containerdDirs) || !slices.Contains(sb.Commands, "/usr/bin/containerd") || !slices.Contains(sb.Commands, "/opt/containerd/bin/containerd") {
		t.Errorf("the trap commands: %v", sb.Commands)
	}
}

func tomlUnmarshal(s string, v any) error { return toml.Unmarshal([]byte(s), v) }

// waitWithoutTraps is ids where the default sandbox places no traps.
func waitWithoutTraps(ids ...string) []string {
	if m, _ := scriptprobe.Sandbox(); m == scriptprobe.SandboxNamespaces {
		return nil
	}
	return ids
}
