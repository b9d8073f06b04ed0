package gpuincident

import (
	"fmt"
	"strings"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

// Step 4: how a run of the script is judged and worded.

// startReasonKeys say in Korean why the learner's script did not start,
// by exec's error (observe.StartFailure.Errno).
var startReasonKeys = map[string]string{
	"ENOEXEC": "files.script.start.exec_format",
	"ENOENT":  "files.script.start.no_interpreter",
	"EACCES":  "files.script.start.denied",
	"ENOTDIR": "files.script.start.not_dir",
	"ELOOP":   "files.script.start.loop",
}

// startHintKeys add what to do for the start failures a learner makes.
var startHintKeys = map[string]string{
	"ENOEXEC": "files.script.hint_exec_format",
	"ENOENT":  "files.script.hint_interpreter",
}

func startReason(f observe.StartFailure) string {
	if key, ok := startReasonKeys[f.Errno]; ok {
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
		case r.Start != nil:
			return checks.Fail(id, msg("files.script.fake_not_started", "scenario", name, "reason", startReason(*r.Start)),
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
	case r.Start != nil:
		reason := startReason(*r.Start)
		hint := ""
		if key, ok := startHintKeys[r.Start.Errno]; ok {
			hint = msg(key)
		}
		return checks.Fail(id, msg("files.script.start_failed", "scenario", name, "reason", reason)+hint,
			expected, reason, checkScriptPath)
	case r.TimedOut:
		limit := msg("files.script.limit_unknown")
		if r.Limit > 0 {
			limit = content.Duration(r.Limit)
		}
		return checks.Fail(id, msg("files.script.timed_out", "scenario", name, "limit", limit, "tail", tail)+containment(r),
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
	return checks.Fail(id, msg("files.script.exit_wrong", "scenario", name, "want", want, "got", r.ExitCode, "tail", tail)+hint+containment(r),
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
	case r.Start != nil && r.Start.NoExecBit:
		outcome = msg("files.fact.run_not_executable")
	case r.Start != nil:
		outcome = msg("files.fact.run_start_err", "reason", startReason(*r.Start), "raw", raw, "err", r.StartErr)
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
		if len(r.Traps.Opened) > 0 {
			parts = append(parts, msg("files.fact.traps_config", "file", strings.Join(r.Traps.Opened, ", ")))
		}
		if len(r.Traps.Called) > 0 {
			parts = append(parts, msg("files.fact.traps_abs", "abs", strings.Join(r.Traps.Called, ", ")))
		}
		if len(parts) > 0 {
			seen = strings.Join(parts, "; ")
		}
		facts = append(facts, checks.Fact{Label: msg("files.fact.traps", "scenario", scenarioLabel(name)), Value: seen})
	}
	return append(facts, containmentFacts(name, r)...)
}

// containmentFacts say what the sandbox refused the run: system calls,
// memory past the limit.
func containmentFacts(name string, r observe.ScriptObs) []checks.Fact {
	var facts []checks.Fact
	if len(r.Denied) > 0 {
		facts = append(facts, checks.Fact{Label: msg("files.fact.denied", "scenario", scenarioLabel(name)),
			Value: msg("files.fact.denied_calls", "calls", strings.Join(r.Denied, ", "))})
	}
	if m := r.Memory; m.Reached() {
		v := msg("files.fact.memory_reached", "limit", mebibytes(m.Limit), "peak", mebibytes(m.Peak))
		if m.Refused {
			v = msg("files.fact.memory_refused", "limit", mebibytes(m.Limit))
		}
		facts = append(facts, checks.Fact{Label: msg("files.fact.memory", "scenario", scenarioLabel(name)), Value: v})
	}
	return facts
}

// containment is what a failed run's message adds when the sandbox
// refused it something: the likely reason it did not do what it should.
func containment(r observe.ScriptObs) string {
	var note string
	if n := len(r.Denied); n > 3 {
		note += msg("files.script.note_denied", "calls", msg("files.script.calls_more", "calls", strings.Join(r.Denied[:3], ", "), "more", n-3))
	} else if n > 0 {
		note += msg("files.script.note_denied", "calls", strings.Join(r.Denied, ", "))
	}
	switch m := r.Memory; {
	case m.Reached() && m.Refused:
		note += msg("files.script.note_memory_refused", "limit", mebibytes(m.Limit))
	case m.Reached():
		note += msg("files.script.note_memory_reached", "limit", mebibytes(m.Limit), "peak", mebibytes(m.Peak))
	}
	return note
}

// mebibytes is a size for learners: "256MiB".
func mebibytes(n int64) string { return fmt.Sprintf("%dMiB", n>>20) }

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
