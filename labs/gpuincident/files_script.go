package gpuincident

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
)

// Step 4: a script that judges the loaded config, run for real against a
// fake containerd.

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
		if ok && r.ContentSHA == sha && !(r.Start != nil && r.Start.NoExecBit && executable) {
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
	ev.Observed = append(ev.Observed, sandboxFacts(current, allCurrent)...)
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

// sandboxFacts say how the runs were contained: the lesson and the
// learner's safety both depend on it. The system-call filter is named
// where the runs recorded it (traces before version 3 did not).
func sandboxFacts(current map[string]observe.ScriptObs, all bool) []checks.Fact {
	label := msg("files.fact.sandbox")
	if !all {
		return []checks.Fact{{Label: label, Value: msg("files.fact.run_pending")}}
	}
	r := current[scenarioNvidia]
	// The prober's mode names (scriptprobe.SandboxNamespaces, ...).
	value := msg("files.fact.sandbox_unknown")
	switch r.Sandbox {
	case "namespaces":
		value = msg("files.fact.sandbox_namespaces")
	case "landlock":
		value = msg("files.fact.sandbox_landlock")
	case "none":
		value = msg("files.fact.sandbox_none")
	}
	facts := []checks.Fact{{Label: label, Value: value}}
	if key, ok := seccompKeys[r.Seccomp]; ok {
		facts = append(facts, checks.Fact{Label: msg("files.fact.seccomp"), Value: msg(key)})
	}
	return facts
}

// seccompKeys word the system-call filter of the runs.
var seccompKeys = map[string]string{
	observe.SeccompNotify: "files.fact.seccomp_notify",
	observe.SeccompErrno:  "files.fact.seccomp_errno",
	observe.SeccompOff:    "files.fact.seccomp_off",
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
		for _, a := range r.Traps.Called {
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
		if r.Traps != nil && slices.Contains(r.Traps.Opened, mainConfigOnNode) {
			return true
		}
	}
	return false
}
