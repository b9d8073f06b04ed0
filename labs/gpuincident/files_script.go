package gpuincident

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

// Step 4: a script that judges the loaded config, run for real against a
// fake containerd.

const (
	scenarioNvidia   = "nvidia"
	scenarioRuncOnly = "runc-only"
	// scenarioNvidiaDefault: runc only, although the word nvidia appears
	// (default_runtime_name, a runc BinaryName): the common trap where a
	// grep for the bare word lies. Not the incident node's dump (neither
	// seed shows it; its default runtime was runc).
	scenarioNvidiaDefault = "nvidia-default-only"
	fakeCommand           = "containerd"
	// mainConfigOnNode is what the lab's grader forbids the script to read.
	mainConfigOnNode = "/etc/containerd/config.toml"
	// startErrNotExecutable is what the prober reports for a script
	// without an execute bit (scriptprobe.NotExecutable; a test keeps
	// them equal).
	startErrNotExecutable = "not executable"
)

// scriptScenarios are the runs step 4 asks for, in order, with the exit
// code each must end with and the check that says so.
var scriptScenarios = []struct {
	name string
	exit int
	id   string
}{
	{scenarioNvidia, 0, "check-script.run-nvidia"},
	{scenarioRuncOnly, 1, "check-script.run-runc-only"},
	{scenarioNvidiaDefault, 1, "check-script.run-nvidia-default"},
}

// scenarioLabel is a scenario's name for learners.
func scenarioLabel(name string) string {
	switch name {
	case scenarioNvidia:
		return msg("files.script.scenario.nvidia")
	case scenarioRuncOnly:
		return msg("files.script.scenario.runc-only")
	case scenarioNvidiaDefault:
		return msg("files.script.scenario.nvidia-default-only")
	}
	return name
}

// checkScriptProbe asks the prober to run the script once per scenario.
var checkScriptProbe = &observe.ProbeSpec{
	Script:      checkScriptPath,
	FakeCommand: fakeCommand,
	Scenarios: []observe.Scenario{
		{Name: scenarioNvidia, Stdout: configDump(dumpNvidia)},
		{Name: scenarioRuncOnly, Stdout: configDump(dumpRuncOnly)},
		{Name: scenarioNvidiaDefault, Stdout: configDump(dumpNvidiaDefaultOnly)},
	},
}

type dumpKind int

const (
	dumpNvidia dumpKind = iota
	dumpRuncOnly
	dumpNvidiaDefaultOnly
)

// configDump is what `containerd config dump` prints on a containerd 1.7
// node (trimmed to the parts that matter): with the nvidia runtime
// handler loaded; with runc only, never saying "nvidia"; or with runc
// only while the word nvidia appears elsewhere (the default runtime's
// name set by a drop-in whose table was not loaded, and runc pointed at
// the nvidia binary): the trap a grep for the bare word falls into.
func configDump(kind dumpKind) string {
	defaultRuntime, runcBinary := "runc", ""
	if kind == dumpNvidiaDefaultOnly {
		defaultRuntime, runcBinary = "nvidia", nvidiaBinary
	}
	var b strings.Builder
	b.WriteString(`disabled_plugins = []
imports = ["/etc/containerd/config.toml"]
oom_score = 0
plugin_dir = ""
required_plugins = []
root = "/var/lib/containerd"
state = "/run/containerd"
temp = ""
version = 2

[cgroup]
  path = ""

[grpc]
  address = "/run/containerd/containerd.sock"
  gid = 0
  max_recv_message_size = 16777216
  max_send_message_size = 16777216
  uid = 0

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    device_ownership_from_security_context = false
    disable_apparmor = false
    enable_cdi = false
    enable_selinux = false
    max_container_log_line_size = 16384
    sandbox_image = "registry.k8s.io/pause:3.8"

    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/opt/cni/bin"
      conf_dir = "/etc/cni/net.d"

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "` + defaultRuntime + `"
      discard_unpacked_layers = false
      snapshotter = "overlayfs"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]
`)
	if kind == dumpNvidia {
		b.WriteString(dumpRuntime("nvidia", nvidiaBinary))
	}
	b.WriteString(dumpRuntime("runc", runcBinary))
	b.WriteString(`
  [plugins."io.containerd.internal.v1.opt"]
    path = "/opt/containerd"

  [plugins."io.containerd.snapshotter.v1.overlayfs"]
    root_path = ""
    upperdir_label = false

[ttrpc]
  address = ""
  gid = 0
  uid = 0
`)
	return b.String()
}

// dumpRuntime is one runtime handler's tables as config dump prints them.
func dumpRuntime(name, binary string) string {
	t := `plugins."io.containerd.grpc.v1.cri".containerd.runtimes.` + name
	return `
        [` + t + `]
          base_runtime_spec = ""
          cni_conf_dir = ""
          cni_max_conf_num = 0
          container_annotations = []
          pod_annotations = []
          privileged_without_host_devices = false
          runtime_engine = ""
          runtime_path = ""
          runtime_root = ""
          runtime_type = "io.containerd.runc.v2"
          sandbox_mode = "podsandbox"

          [` + t + `.options]
            BinaryName = "` + binary + `"
            SystemdCgroup = true
`
}

func evalCheckScript(in checks.Input) checks.StepEval {
	const (
		idExec, idShebang, idCalls = "check-script.executable", "check-script.shebang", "check-script.calls-dump"
		idAbs, idMainCfg           = "check-script.no-abs-containerd", "check-script.no-main-config"
		idFake                     = "check-script.fake-called"
	)
	type pending struct{ id, what string }
	static := []pending{
		{idExec, msg("files.script.what_exec")}, {idShebang, "#!"}, {idCalls, "containerd config dump"},
		{idAbs, msg("files.script.what_abs")}, {idMainCfg, mainConfigOnNode},
	}
	dynamic := []pending{{idFake, msg("files.script.what_fake")}}
	for _, sc := range scriptScenarios {
		dynamic = append(dynamic, pending{sc.id, msg("files.script.what_run", "scenario", scenarioLabel(sc.name))})
	}
	f := in.Snap.File(checkScriptPath)
	text, bad := checks.ReadText(in, "check-script.file", checkScriptPath)
	if bad != nil {
		ev := checks.StepEval{Checks: []checks.Result{*bad}, Observed: []checks.Fact{{Label: msg("files.fact.file"), Value: bad.Message}}}
		for _, p := range append(static, dynamic...) {
			ev.Checks = append(ev.Checks, checks.Wait(p.id, msg("files.wait.file", "what", p.what)))
		}
		return ev
	}
	p := checks.Shown(in, checkScriptPath)
	mode := f.Mode.Perm().String()
	ev := checks.StepEval{Checks: []checks.Result{checks.Pass("check-script.file", msg("files.file.ok", "path", p, "size", len(text)))}}
	add := func(r checks.Result) { ev.Checks = append(ev.Checks, r) }

	executable := f.Mode&0o111 != 0
	if executable {
		add(checks.Pass(idExec, msg("files.script.exec_ok", "mode", mode)))
	} else {
		add(checks.Fail(idExec, msg("files.script.exec_missing", "path", p, "mode", mode), msg("files.script.exec_expected"), mode, checkScriptPath))
	}

	first := checks.LineAt(text, 1)
	firstSeen := first
	if strings.TrimSpace(first) == "" {
		firstSeen = msg("files.script.blank_line")
	}
	switch {
	case strings.HasPrefix(text, "#!") && strings.HasSuffix(strings.SplitN(text, "\n", 2)[0], "\r"):
		add(checks.Fail(idShebang, msg("files.script.shebang_crlf", "line", first), msg("files.script.shebang_lf"), msg("files.script.crlf_seen"), checks.Where(checkScriptPath, 1)))
	case strings.HasPrefix(text, "#!"):
		add(checks.Pass(idShebang, msg("files.script.shebang_ok", "line", first)))
	case strings.HasPrefix(text, "\uFEFF#!"):
		add(checks.Fail(idShebang, msg("files.script.shebang_bom"), "#!/bin/sh", firstSeen, checks.Where(checkScriptPath, 1)))
	case strings.Contains(text, "#!"):
		add(checks.Fail(idShebang, msg("files.script.shebang_not_first", "line", firstSeen), "#!/bin/sh", firstSeen, checks.Where(checkScriptPath, 1)))
	default:
		add(checks.Fail(idShebang, msg("files.script.shebang_missing", "line", firstSeen), "#!/bin/sh", firstSeen, checks.Where(checkScriptPath, 1)))
	}

	sum := sha256.Sum256(f.Content)
	sha := hex.EncodeToString(sum[:])
	ev.Observed = []checks.Fact{
		{Label: msg("files.fact.file"), Value: msg("files.fact.script_file", "path", p, "mode", mode, "sha", sha[:12])},
	}
	runs := in.Snap.ScriptRuns(checkScriptPath)
	current := map[string]observe.ScriptObs{}
	var runFactsAll []checks.Fact
	for _, sc := range scriptScenarios {
		r, ok := runs[sc.name]
		if ok && r.ContentSHA == sha && !(r.StartErr == startErrNotExecutable && executable) {
			current[sc.name] = r
		}
		_, isCurrent := current[sc.name]
		runFactsAll = append(runFactsAll, runFacts(sc.name, r, isCurrent)...)
	}
	allCurrent := len(current) == len(scriptScenarios)
	// The traps decide what the script did where the sandbox placed them
	// in every run; the script's text is read otherwise.
	trapped := allCurrent
	for _, r := range current {
		trapped = trapped && r.Traps != nil
	}
	ev.Observed = append(ev.Observed, sandboxFact(current, allCurrent))
	ev.Observed = append(ev.Observed, runFactsAll...)

	sh := readShell(text)
	var parseMsg string
	if pe := sh.parseErr; pe != nil {
		parseMsg = msg("files.script.parse_error", "line", pe.Pos.Line(), "col", pe.Pos.Col(), "raw", msg("files.fact.raw_label"), "err", pe.Text)
	}
	switch {
	case sh.dumpLine > 0:
		add(checks.Pass(idCalls, msg("files.script.calls_ok", "line", sh.dumpLine, "text", sh.dumpText)))
	case anyCalledWithDump(current):
		add(checks.Pass(idCalls, msg("files.script.calls_ok_observed", "argv", argvText(current[scenarioNvidia].FakeArgv))))
	case parseMsg != "":
		add(checks.Fail(idCalls, parseMsg, "containerd config dump", msg("files.script.parse_seen"), checks.Where(checkScriptPath, int(sh.parseErr.Pos.Line()))))
	default:
		add(checks.Fail(idCalls, msg("files.script.calls_missing"), "containerd config dump", msg("files.seen.absent"), checkScriptPath))
	}

	lineNote := func(n int) string {
		if n > 0 {
			return msg("files.script.at_line", "line", n)
		}
		return ""
	}
	switch abs := absCalls(current); {
	case trapped && len(abs) > 0:
		n := 0
		if sh.absPath == abs[0] {
			n = sh.absLine
		}
		add(checks.Fail(idAbs, msg("files.script.abs_observed", "abs", strings.Join(abs, ", "), "where", lineNote(n)), "containerd", abs[0], checks.Where(checkScriptPath, n)))
	case trapped:
		add(checks.Pass(idAbs, msg("files.script.abs_ok_observed")))
	case parseMsg != "":
		add(checks.Wait(idAbs, msg("files.script.wait_parse")))
	case sh.absLine > 0:
		add(checks.Fail(idAbs, msg("files.script.abs_containerd", "line", sh.absLine, "abs", sh.absPath), "containerd", sh.absPath, checks.Where(checkScriptPath, sh.absLine)))
	default:
		add(checks.Pass(idAbs, msg("files.script.abs_ok")))
	}

	switch {
	case trapped && configOpened(current):
		add(checks.Fail(idMainCfg, msg("files.script.main_config_observed", "file", mainConfigOnNode, "where", lineNote(sh.cfgLine)),
			msg("files.script.main_config_expected", "file", mainConfigOnNode), msg("files.script.main_config_seen"), checks.Where(checkScriptPath, sh.cfgLine)))
	case trapped:
		add(checks.Pass(idMainCfg, msg("files.script.main_config_ok_observed", "file", mainConfigOnNode)))
	case parseMsg != "":
		add(checks.Wait(idMainCfg, msg("files.script.wait_parse")))
	case sh.cfgLine > 0:
		add(checks.Fail(idMainCfg, msg("files.script.mentions_main_config", "line", sh.cfgLine, "text", sh.cfgText, "file", mainConfigOnNode),
			msg("files.script.main_config_expected", "file", mainConfigOnNode), sh.cfgText, checks.Where(checkScriptPath, sh.cfgLine)))
	default:
		add(checks.Pass(idMainCfg, msg("files.script.main_config_ok", "file", mainConfigOnNode)))
	}

	if !executable {
		for _, p := range dynamic {
			add(checks.Wait(p.id, msg("files.script.wait_exec", "what", p.what)))
		}
		return ev
	}
	if !allCurrent {
		for _, p := range dynamic {
			add(checks.Wait(p.id, msg("files.script.wait_run", "what", p.what)))
		}
		return ev
	}
	add(checkFakeCalled(idFake, current))
	for _, sc := range scriptScenarios {
		add(checkRun(sc.id, current[sc.name], sc.exit))
	}
	return ev
}

// sandboxFact says how the runs were contained: the lesson and the
// learner's safety both depend on it.
func sandboxFact(current map[string]observe.ScriptObs, all bool) checks.Fact {
	label := msg("files.fact.sandbox")
	if !all {
		return checks.Fact{Label: label, Value: msg("files.fact.run_pending")}
	}
	// The prober's mode names (scriptprobe.SandboxNamespaces, ...).
	switch current[scenarioNvidia].Sandbox {
	case "namespaces":
		return checks.Fact{Label: label, Value: msg("files.fact.sandbox_namespaces")}
	case "landlock":
		return checks.Fact{Label: label, Value: msg("files.fact.sandbox_landlock")}
	case "none":
		return checks.Fact{Label: label, Value: msg("files.fact.sandbox_none")}
	}
	return checks.Fact{Label: label, Value: msg("files.fact.sandbox_unknown")}
}

func anyCalledWithDump(runs map[string]observe.ScriptObs) bool {
	for _, r := range runs {
		if calledWithDump(r) {
			return true
		}
	}
	return false
}

// absCalls are the absolute paths containerd was called by in any run.
func absCalls(runs map[string]observe.ScriptObs) []string {
	seen := map[string]bool{}
	var out []string
	for _, sc := range scriptScenarios {
		r := runs[sc.name]
		if r.Traps == nil {
			continue
		}
		for _, a := range r.Traps.AbsCalls {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

func configOpened(runs map[string]observe.ScriptObs) bool {
	for _, r := range runs {
		if r.Traps != nil && len(r.Traps.ConfigOpened) > 0 {
			return true
		}
	}
	return false
}

// The operating system's reasons, as the prober reports them (the text of
// a Linux errno). Literals, not syscall's, so a run recorded on one
// system reads the same when replayed on another.
const (
	osExecFormat = "exec format error"
	osNoSuchFile = "no such file or directory"
)

// startReasonKeys say in Korean why the learner's script did not start.
var startReasonKeys = map[string]string{
	osExecFormat:                        "files.script.start.exec_format",
	osNoSuchFile:                        "files.script.start.no_interpreter",
	"permission denied":                 "files.script.start.denied",
	"not a directory":                   "files.script.start.not_dir",
	"too many levels of symbolic links": "files.script.start.loop",
}

func startReason(startErr string) string {
	if key, ok := startReasonKeys[startErr]; ok {
		return msg(key)
	}
	return msg("files.script.start.other")
}

// errnoReasonKeys say in Korean why labmate could not set up a run, by
// the error's portable name (observe.ScriptFailure.Errno).
var errnoReasonKeys = map[string]string{
	"ENOENT":  "files.script.reason.no_such_file",
	"ENOTDIR": "files.script.reason.not_dir",
	"EACCES":  "files.script.reason.denied",
	"EPERM":   "files.script.reason.denied",
	"EROFS":   "files.script.reason.read_only",
	"ENOSPC":  "files.script.reason.no_space",
	"EDQUOT":  "files.script.reason.quota",
	"EMFILE":  "files.script.reason.too_many_files",
	"ENFILE":  "files.script.reason.too_many_files",
	"EAGAIN":  "files.script.reason.no_resources",
	"ENOMEM":  "files.script.reason.no_resources",
}

// failureOf is the typed failure of a run labmate could not set up.
func failureOf(r observe.ScriptObs) observe.ScriptFailure {
	if r.Failure != nil {
		return *r.Failure
	}
	return observe.ScriptFailure{}
}

// internalReason is the Korean reason of labmate's own failure.
func internalReason(r observe.ScriptObs) string {
	f := failureOf(r)
	if f.Stage == observe.FailPanic || f.Stage == "" {
		return msg("files.script.internal.no_reason")
	}
	if key, ok := errnoReasonKeys[f.Errno]; ok {
		return msg(key)
	}
	return msg("files.script.reason.other")
}

// isInternal reports whether r failed on labmate's side.
func isInternal(r observe.ScriptObs) bool { return r.Internal || r.Failure != nil }

// labmateFailed is the result of a check whose run labmate could not set
// up: an error of the check, naming the cause, never the script's fault.
func labmateFailed(id string, r observe.ScriptObs) checks.Result {
	f := failureOf(r)
	reason := internalReason(r)
	var m string
	switch f.Stage {
	case observe.FailTempDir:
		m = msg("files.script.internal.temp_dir", "dir", f.Path, "reason", reason)
	case observe.FailRunFiles:
		m = msg("files.script.internal.run_files", "dir", f.Path, "reason", reason)
	case observe.FailNoExec:
		m = msg("files.script.internal.noexec", "dir", f.Path)
	case observe.FailPipe:
		m = msg("files.script.internal.pipe", "reason", reason)
	case observe.FailSpawn:
		m = msg("files.script.internal.spawn", "reason", reason)
	case observe.FailSandbox:
		m = msg("files.script.internal.sandbox", "reason", reason)
	case observe.FailPanic:
		m = msg("files.script.internal.panic")
	default:
		m = msg("files.script.internal.other")
	}
	return checks.Result{ID: id, Status: checks.Error, Message: m, Observed: msg("files.script.internal.seen", "reason", reason)}
}

// calledWithDump reports whether the fake saw `config dump`.
func calledWithDump(r observe.ScriptObs) bool {
	for _, argv := range r.FakeArgv {
		if hasPair(argv, "config", "dump") {
			return true
		}
	}
	return false
}

func checkFakeCalled(id string, runs map[string]observe.ScriptObs) checks.Result {
	for _, sc := range scriptScenarios {
		r, name := runs[sc.name], scenarioLabel(sc.name)
		switch {
		case calledWithDump(r):
			continue
		case isInternal(r):
			return labmateFailed(id, r)
		case r.StartErr != "":
			return checks.Fail(id, msg("files.script.fake_not_started", "scenario", name, "reason", startReason(r.StartErr)),
				"containerd config dump", msg("files.script.not_run"), checkScriptPath)
		case len(r.FakeArgv) == 0:
			return checks.Fail(id, msg("files.script.fake_never_called", "scenario", name, "fake", fakeCommand),
				"containerd config dump", msg("files.script.fake_silent"), checkScriptPath)
		default:
			return checks.Fail(id, msg("files.script.fake_wrong_args", "scenario", name, "argv", argvText(r.FakeArgv)),
				"containerd config dump", argvText(r.FakeArgv), checkScriptPath)
		}
	}
	return checks.Pass(id, msg("files.script.fake_ok", "argv", argvText(runs[scenarioNvidia].FakeArgv)))
}

func checkRun(id string, r observe.ScriptObs, want int) checks.Result {
	expected := msg("files.script.exit_expected", "code", want)
	tail := outputTail(r.Output, 3)
	name := scenarioLabel(r.Scenario)
	switch {
	case isInternal(r):
		return labmateFailed(id, r)
	case r.StartErr != "":
		reason := startReason(r.StartErr)
		hint := ""
		switch r.StartErr {
		case osExecFormat:
			hint = msg("files.script.hint_exec_format")
		case osNoSuchFile:
			hint = msg("files.script.hint_interpreter")
		}
		return checks.Fail(id, msg("files.script.start_failed", "scenario", name, "reason", reason)+hint,
			expected, reason, checkScriptPath)
	case r.TimedOut:
		limit := msg("files.script.limit_unknown")
		if r.Limit > 0 {
			limit = content.Duration(r.Limit)
		}
		return checks.Fail(id, msg("files.script.timed_out", "scenario", name, "limit", limit, "tail", tail),
			expected, msg("files.script.timeout_seen"), checkScriptPath)
	case r.ExitCode == want:
		return checks.Pass(id, msg("files.script.exit_ok", "scenario", name, "code", r.ExitCode))
	}
	var hint string
	switch {
	case r.ExitCode == 127:
		hint = msg("files.script.hint_127")
	case r.ExitCode == 126:
		hint = msg("files.script.hint_126")
	case r.Scenario == scenarioNvidia && !calledWithDump(r):
		hint = msg("files.script.hint_no_dump")
	case r.Scenario == scenarioNvidia:
		hint = msg("files.script.hint_missed_nvidia")
	case r.Scenario == scenarioNvidiaDefault && r.ExitCode == 0:
		hint = msg("files.script.hint_bare_word")
	case r.ExitCode == 0:
		hint = msg("files.script.hint_always_zero")
	default:
		hint = msg("files.script.hint_exit_one")
	}
	return checks.Fail(id, msg("files.script.exit_wrong", "scenario", name, "want", want, "got", r.ExitCode, "tail", tail)+hint,
		expected, msg("files.script.exit_seen", "code", r.ExitCode), checkScriptPath)
}

// runFacts are the observed lines for one scenario's run.
func runFacts(name string, r observe.ScriptObs, current bool) []checks.Fact {
	label := msg("files.fact.run", "scenario", scenarioLabel(name))
	if !current {
		return []checks.Fact{{Label: label, Value: msg("files.fact.run_pending")}}
	}
	var outcome string
	raw := msg("files.fact.raw_label")
	switch {
	case isInternal(r):
		outcome = msg("files.fact.run_internal", "reason", internalReason(r), "raw", raw, "err", r.StartErr)
	case r.StartErr == startErrNotExecutable:
		outcome = msg("files.fact.run_not_executable")
	case r.StartErr != "":
		outcome = msg("files.fact.run_start_err", "reason", startReason(r.StartErr), "raw", raw, "err", r.StartErr)
	case r.TimedOut:
		limit := msg("files.script.limit_unknown")
		if r.Limit > 0 {
			limit = content.Duration(r.Limit)
		}
		outcome = msg("files.fact.run_timeout", "limit", limit)
	default:
		outcome = msg("files.fact.run_exit", "code", r.ExitCode, "after", content.Duration(r.Duration))
	}
	argv := msg("files.script.fake_silent")
	if len(r.FakeArgv) > 0 {
		argv = argvText(r.FakeArgv)
	}
	out := outputTail(r.Output, 5)
	if r.Truncated {
		out = msg("files.fact.truncated") + " " + out
	}
	facts := []checks.Fact{
		{Label: label, Value: outcome},
		{Label: msg("files.fact.fake_argv", "scenario", scenarioLabel(name)), Value: argv},
		{Label: msg("files.fact.output", "scenario", scenarioLabel(name)), Value: out},
	}
	if r.Traps != nil {
		seen := msg("files.fact.traps_none")
		var parts []string
		if len(r.Traps.ConfigOpened) > 0 {
			parts = append(parts, msg("files.fact.traps_config", "file", strings.Join(r.Traps.ConfigOpened, ", ")))
		}
		if len(r.Traps.AbsCalls) > 0 {
			parts = append(parts, msg("files.fact.traps_abs", "abs", strings.Join(r.Traps.AbsCalls, ", ")))
		}
		if len(parts) > 0 {
			seen = strings.Join(parts, "; ")
		}
		facts = append(facts, checks.Fact{Label: msg("files.fact.traps", "scenario", scenarioLabel(name)), Value: seen})
	}
	return facts
}

// argvText renders every call the fake saw: "containerd config dump".
func argvText(calls [][]string) string {
	parts := make([]string, len(calls))
	for i, argv := range calls {
		parts[i] = checks.Clip(strings.TrimSpace(fakeCommand+" "+strings.Join(argv, " ")), 60)
	}
	if len(parts) > 3 {
		parts = append(parts[:3], fmt.Sprintf("... (+%d)", len(parts)-3))
	}
	return strings.Join(parts, "; ")
}

// outputTail is the last n non-empty lines of a run's output, on one line.
func outputTail(out string, n int) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, checks.Clip(l, 160))
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 0 {
		return msg("files.script.no_output")
	}
	return strings.Join(lines, " | ")
}
