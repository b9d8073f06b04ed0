package checks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/labhub/labmate/observe"
)

// Step 4: a script that judges the loaded config, run for real against a
// fake containerd.

const (
	scenarioNvidia   = "nvidia"
	scenarioRuncOnly = "runc-only"
	fakeCommand      = "containerd"
	// mainConfigOnNode is what the lab's grader forbids the script to read.
	mainConfigOnNode = "/etc/containerd/config.toml"
	// startErrNotExecutable is what the prober reports for a script
	// without an execute bit (scriptprobe.NotExecutable; a test keeps
	// them equal).
	startErrNotExecutable = "not executable"
)

// Stages at which the prober fails on its own side (ScriptObs.Internal),
// the prefix of StartErr: scriptprobe.FailTempDir and the others; a test
// keeps them equal.
const (
	failTempDir  = "temp-dir"
	failRunFiles = "run-files"
	failNoExec   = "noexec"
	failPipe     = "pipe"
	failSpawn    = "spawn"
	failPanic    = "panic"
)

// checkScriptProbe asks the prober to run the script twice: against a
// loaded config with the nvidia runtime, and one with runc only.
var checkScriptProbe = &observe.ProbeSpec{
	Script:      checkScriptPath,
	FakeCommand: fakeCommand,
	Scenarios: []observe.Scenario{
		{Name: scenarioNvidia, Stdout: configDump(true)},
		{Name: scenarioRuncOnly, Stdout: configDump(false)},
	},
}

// configDump is what `containerd config dump` prints on a containerd 1.7
// node (trimmed to the parts that matter), with or without the nvidia
// runtime handler loaded. The runc-only dump never says "nvidia".
func configDump(nvidia bool) string {
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
      default_runtime_name = "runc"
      discard_unpacked_layers = false
      snapshotter = "overlayfs"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]
`)
	if nvidia {
		b.WriteString(dumpRuntime("nvidia", nvidiaBinary))
	}
	b.WriteString(dumpRuntime("runc", ""))
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

var (
	// A `containerd config dump` call by name (not through a path).
	reDumpCall = regexp.MustCompile(`(?:^|[^\w./-])containerd\s+config\s+dump\b`)
	// An absolute path to the containerd binary (not a directory on the
	// way to a file, like /etc/containerd/config.toml).
	reAbsContainerd = regexp.MustCompile(`(?:^|[^\w.])((?:/[\w.+-]+)*/containerd)(?:[^/.\w-]|$)`)
)

// codeLines are the script's lines (index 0 is line 1) with comment lines
// blanked.
func codeLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "#") {
			lines[i] = ""
		} else {
			lines[i] = strings.TrimRight(l, "\r")
		}
	}
	return lines
}

// firstLine returns the number of the first line satisfying ok, or 0.
func firstLine(lines []string, ok func(string) bool) int {
	for i, l := range lines {
		if ok(l) {
			return i + 1
		}
	}
	return 0
}

func evalCheckScript(in Input) StepEval {
	const (
		idExec, idShebang, idCalls = "check-script.executable", "check-script.shebang", "check-script.calls-dump"
		idAbs, idMainCfg           = "check-script.no-abs-containerd", "check-script.no-main-config"
		idFake, idNvidia, idRunc   = "check-script.fake-called", "check-script.run-nvidia", "check-script.run-runc-only"
	)
	type pending struct{ id, what string }
	static := []pending{
		{idExec, msg("files.script.what_exec")}, {idShebang, "#!"}, {idCalls, "containerd config dump"},
		{idAbs, msg("files.script.what_abs")}, {idMainCfg, mainConfigOnNode},
	}
	dynamic := []pending{
		{idFake, msg("files.script.what_fake")},
		{idNvidia, msg("files.script.what_run", "scenario", scenarioNvidia)},
		{idRunc, msg("files.script.what_run", "scenario", scenarioRuncOnly)},
	}
	f := in.Snap.File(checkScriptPath)
	text, bad := readText(in, "check-script.file", checkScriptPath)
	if bad != nil {
		ev := StepEval{Checks: []Result{*bad}, Observed: []Fact{{Label: msg("files.fact.file"), Value: bad.Message}}}
		for _, p := range append(static, dynamic...) {
			ev.Checks = append(ev.Checks, waiting(p.id, msg("files.wait.file", "what", p.what)))
		}
		return ev
	}
	p := shown(in, checkScriptPath)
	mode := f.Mode.Perm().String()
	ev := StepEval{Checks: []Result{passed("check-script.file", msg("files.file.ok", "path", p, "size", len(text)))}}
	add := func(r Result) { ev.Checks = append(ev.Checks, r) }

	executable := f.Mode&0o111 != 0
	if executable {
		add(passed(idExec, msg("files.script.exec_ok", "mode", mode)))
	} else {
		add(failed(idExec, msg("files.script.exec_missing", "path", p, "mode", mode), msg("files.script.exec_expected"), mode, checkScriptPath))
	}

	first := lineAt(text, 1)
	firstSeen := first
	if strings.TrimSpace(first) == "" {
		firstSeen = msg("files.script.blank_line")
	}
	switch {
	case strings.HasPrefix(text, "#!") && strings.HasSuffix(strings.SplitN(text, "\n", 2)[0], "\r"):
		add(failed(idShebang, msg("files.script.shebang_crlf", "line", first), msg("files.script.shebang_lf"), msg("files.script.crlf_seen"), where(checkScriptPath, 1)))
	case strings.HasPrefix(text, "#!"):
		add(passed(idShebang, msg("files.script.shebang_ok", "line", first)))
	case strings.HasPrefix(text, "\uFEFF#!"):
		add(failed(idShebang, msg("files.script.shebang_bom"), "#!/bin/sh", firstSeen, where(checkScriptPath, 1)))
	case strings.Contains(text, "#!"):
		add(failed(idShebang, msg("files.script.shebang_not_first", "line", firstSeen), "#!/bin/sh", firstSeen, where(checkScriptPath, 1)))
	default:
		add(failed(idShebang, msg("files.script.shebang_missing", "line", firstSeen), "#!/bin/sh", firstSeen, where(checkScriptPath, 1)))
	}

	code := codeLines(text)
	if n := firstLine(code, reDumpCall.MatchString); n > 0 {
		add(passed(idCalls, msg("files.script.calls_ok", "line", n, "text", clip(strings.TrimSpace(code[n-1]), 60))))
	} else {
		add(failed(idCalls, msg("files.script.calls_missing"), "containerd config dump", msg("files.seen.absent"), checkScriptPath))
	}

	if n := firstLine(code, reAbsContainerd.MatchString); n > 0 {
		abs := reAbsContainerd.FindStringSubmatch(code[n-1])[1]
		add(failed(idAbs, msg("files.script.abs_containerd", "line", n, "abs", abs), "containerd", abs, where(checkScriptPath, n)))
	} else {
		add(passed(idAbs, msg("files.script.abs_ok")))
	}

	all := strings.Split(text, "\n")
	if n := firstLine(all, func(l string) bool { return strings.Contains(l, mainConfigOnNode) }); n > 0 {
		seen := clip(strings.TrimSpace(all[n-1]), 60)
		add(failed(idMainCfg, msg("files.script.mentions_main_config", "line", n, "text", seen, "file", mainConfigOnNode),
			msg("files.script.main_config_expected", "file", mainConfigOnNode), seen, where(checkScriptPath, n)))
	} else {
		add(passed(idMainCfg, msg("files.script.main_config_ok", "file", mainConfigOnNode)))
	}

	sum := sha256.Sum256(f.Content)
	sha := hex.EncodeToString(sum[:])
	ev.Observed = []Fact{
		{Label: msg("files.fact.file"), Value: msg("files.fact.script_file", "path", p, "mode", mode, "sha", sha[:12])},
	}
	runs := in.Snap.ScriptRuns(checkScriptPath)
	current := map[string]observe.ScriptObs{}
	for _, name := range []string{scenarioNvidia, scenarioRuncOnly} {
		r, ok := runs[name]
		if ok && r.ContentSHA == sha && !(r.StartErr == startErrNotExecutable && executable) {
			current[name] = r
		}
		_, isCurrent := current[name]
		ev.Observed = append(ev.Observed, runFacts(name, r, isCurrent)...)
	}
	if !executable {
		for _, p := range dynamic {
			add(waiting(p.id, msg("files.script.wait_exec", "what", p.what)))
		}
		return ev
	}
	if len(current) < 2 {
		for _, p := range dynamic {
			add(waiting(p.id, msg("files.script.wait_run", "what", p.what)))
		}
		return ev
	}
	add(checkFakeCalled(idFake, current))
	add(checkRun(idNvidia, current[scenarioNvidia], 0))
	add(checkRun(idRunc, current[scenarioRuncOnly], 1))
	return ev
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

// osReasonKeys say in Korean why labmate could not set up a run.
var osReasonKeys = map[string]string{
	osNoSuchFile:                       "files.script.reason.no_such_file",
	"not a directory":                  "files.script.reason.not_dir",
	"permission denied":                "files.script.reason.denied",
	"operation not permitted":          "files.script.reason.denied",
	"read-only file system":            "files.script.reason.read_only",
	"no space left on device":          "files.script.reason.no_space",
	"disk quota exceeded":              "files.script.reason.quota",
	"too many open files":              "files.script.reason.too_many_files",
	"too many open files in system":    "files.script.reason.too_many_files",
	"resource temporarily unavailable": "files.script.reason.no_resources",
	"cannot allocate memory":           "files.script.reason.no_resources",
}

// internalFailure splits the StartErr of a run labmate could not set up:
// "<stage>: <temp dir>: <reason>" or "<stage>: <reason>" (see
// scriptprobe.FailTempDir). reason is already Korean; it is empty for a
// panic or a stage this check does not know.
func internalFailure(startErr string) (stage, dir, reason string) {
	stage, detail, _ := strings.Cut(startErr, ": ")
	why := detail
	switch stage {
	case failTempDir, failRunFiles, failNoExec:
		if i := strings.LastIndex(detail, ": "); i >= 0 {
			dir, why = detail[:i], detail[i+2:]
		}
	case failPipe, failSpawn:
	default:
		return stage, "", ""
	}
	if key, ok := osReasonKeys[why]; ok {
		return stage, dir, msg(key)
	}
	return stage, dir, msg("files.script.reason.other")
}

func internalReason(startErr string) string {
	if _, _, reason := internalFailure(startErr); reason != "" {
		return reason
	}
	return msg("files.script.internal.no_reason")
}

// isInternal reports whether r failed on labmate's side. The stage
// prefix says so too (no operating system's reason starts with one), for
// runs read back from a trace that did not keep ScriptObs.Internal.
func isInternal(r observe.ScriptObs) bool {
	if r.Internal {
		return true
	}
	stage, _, ok := strings.Cut(r.StartErr, ": ")
	switch stage {
	case failTempDir, failRunFiles, failNoExec, failPipe, failSpawn, failPanic:
		return ok
	}
	return false
}

// labmateFailed is the result of a check whose run labmate could not set
// up: an error of the check, naming the cause, never the script's fault.
func labmateFailed(id string, r observe.ScriptObs) Result {
	stage, dir, reason := internalFailure(r.StartErr)
	var m string
	switch stage {
	case failTempDir:
		m = msg("files.script.internal.temp_dir", "dir", dir, "reason", reason)
	case failRunFiles:
		m = msg("files.script.internal.run_files", "dir", dir, "reason", reason)
	case failNoExec:
		m = msg("files.script.internal.noexec", "dir", dir)
	case failPipe:
		m = msg("files.script.internal.pipe", "reason", reason)
	case failSpawn:
		m = msg("files.script.internal.spawn", "reason", reason)
	case failPanic:
		m = msg("files.script.internal.panic")
	default:
		m = msg("files.script.internal.other")
	}
	return Result{ID: id, Status: Error, Message: m, Observed: msg("files.script.internal.seen", "reason", internalReason(r.StartErr))}
}

// calledWithDump reports whether the fake saw `config dump`.
func calledWithDump(r observe.ScriptObs) bool {
	for _, argv := range r.FakeArgv {
		if len(argv) >= 2 && argv[0] == "config" && argv[1] == "dump" {
			return true
		}
	}
	return false
}

func checkFakeCalled(id string, runs map[string]observe.ScriptObs) Result {
	for _, name := range []string{scenarioNvidia, scenarioRuncOnly} {
		r := runs[name]
		switch {
		case calledWithDump(r):
			continue
		case isInternal(r):
			return labmateFailed(id, r)
		case r.StartErr != "":
			return failed(id, msg("files.script.fake_not_started", "scenario", name, "reason", startReason(r.StartErr)),
				"containerd config dump", msg("files.script.not_run"), checkScriptPath)
		case len(r.FakeArgv) == 0:
			return failed(id, msg("files.script.fake_never_called", "scenario", name, "fake", fakeCommand),
				"containerd config dump", msg("files.script.fake_silent"), checkScriptPath)
		default:
			return failed(id, msg("files.script.fake_wrong_args", "scenario", name, "argv", argvText(r.FakeArgv)),
				"containerd config dump", argvText(r.FakeArgv), checkScriptPath)
		}
	}
	return passed(id, msg("files.script.fake_ok", "argv", argvText(runs[scenarioNvidia].FakeArgv)))
}

func checkRun(id string, r observe.ScriptObs, want int) Result {
	expected := msg("files.script.exit_expected", "code", want)
	tail := outputTail(r.Output, 3)
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
		return failed(id, msg("files.script.start_failed", "scenario", r.Scenario, "reason", reason)+hint,
			expected, reason, checkScriptPath)
	case r.TimedOut:
		return failed(id, msg("files.script.timed_out", "scenario", r.Scenario, "after", r.Duration.Round(100*time.Millisecond), "tail", tail),
			expected, msg("files.script.timeout_seen"), checkScriptPath)
	case r.ExitCode == want:
		return passed(id, msg("files.script.exit_ok", "scenario", r.Scenario, "code", r.ExitCode))
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
	case r.ExitCode == 0:
		hint = msg("files.script.hint_always_zero")
	default:
		hint = msg("files.script.hint_exit_one")
	}
	return failed(id, msg("files.script.exit_wrong", "scenario", r.Scenario, "want", want, "got", r.ExitCode, "tail", tail)+hint,
		expected, msg("files.script.exit_seen", "code", r.ExitCode), checkScriptPath)
}

// runFacts are the observed lines for one scenario's run.
func runFacts(name string, r observe.ScriptObs, current bool) []Fact {
	label := msg("files.fact.run", "scenario", name)
	if !current {
		return []Fact{{Label: label, Value: msg("files.fact.run_pending")}}
	}
	var outcome string
	raw := msg("files.fact.raw_label")
	switch {
	case isInternal(r):
		outcome = msg("files.fact.run_internal", "reason", internalReason(r.StartErr), "raw", raw, "err", r.StartErr)
	case r.StartErr == startErrNotExecutable:
		outcome = msg("files.fact.run_not_executable")
	case r.StartErr != "":
		outcome = msg("files.fact.run_start_err", "reason", startReason(r.StartErr), "raw", raw, "err", r.StartErr)
	case r.TimedOut:
		outcome = msg("files.fact.run_timeout", "after", r.Duration.Round(100*time.Millisecond))
	default:
		outcome = msg("files.fact.run_exit", "code", r.ExitCode, "after", r.Duration.Round(time.Millisecond))
	}
	argv := msg("files.script.fake_silent")
	if len(r.FakeArgv) > 0 {
		argv = argvText(r.FakeArgv)
	}
	out := outputTail(r.Output, 5)
	if r.Truncated {
		out = msg("files.fact.truncated") + " " + out
	}
	return []Fact{
		{Label: label, Value: outcome},
		{Label: msg("files.fact.fake_argv", "scenario", name), Value: argv},
		{Label: msg("files.fact.output", "scenario", name), Value: out},
	}
}

// argvText renders every call the fake saw: "containerd config dump".
func argvText(calls [][]string) string {
	parts := make([]string, len(calls))
	for i, argv := range calls {
		parts[i] = clip(strings.TrimSpace(fakeCommand+" "+strings.Join(argv, " ")), 60)
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
			lines = append(lines, clip(l, 160))
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
