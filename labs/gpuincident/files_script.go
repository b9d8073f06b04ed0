package gpuincident

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
)

// Step 4: a script that judges the merged config, run for real against a
// fake containerd.
//
// Rules and sources: steps/04-check-script.md, 사실 근거 (config dump
// merges the main config and imports, containerd
// cmd/containerd/command/config.go; a handler is a runtimes.<name>
// table, containerd docs/cri/config.md; the LabHub page's grader refuses
// reading /etc/containerd/config.toml).

// The checks of step 4.
const (
	idExec, idShebang, idCalls = "check-script.executable", "check-script.shebang", "check-script.calls-dump"
	idAbs, idMainCfg           = "check-script.no-abs-containerd", "check-script.no-main-config"
	idFake                     = "check-script.fake-called"
)

// pending is a check that cannot be judged yet, and what it is about.
type pending struct{ id, what string }

func evalCheckScript(in checks.Input) checks.StepEval {
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
		return waitAll(ev, append(static, dynamic...), "files.wait.file")
	}
	p := checks.Shown(in, checkScriptPath)
	mode := f.Mode.Perm().String()
	ev := checks.StepEval{Checks: []checks.Result{checks.Pass("check-script.file", msg("files.file.ok", "path", p, "size", len(text)))}}
	executable := f.Mode&0o111 != 0
	if executable {
		ev.Checks = append(ev.Checks, checks.Pass(idExec, msg("files.script.exec_ok", "mode", mode)))
	} else {
		ev.Checks = append(ev.Checks, checks.Fail(idExec, msg("files.script.exec_missing", "path", p, "mode", mode), msg("files.script.exec_expected"), mode, checkScriptPath))
	}
	ev.Checks = append(ev.Checks, shebangResult(text))

	sum := sha256.Sum256(f.Content)
	sha := hex.EncodeToString(sum[:])
	ev.Observed = []checks.Fact{
		{Label: msg("files.fact.file"), Value: msg("files.fact.script_file", "path", p, "mode", mode, "sha", sha[:12])},
	}
	cur := currentRuns(in.Snap.ScriptRuns(checkScriptPath), sha, executable)
	ev.Observed = append(ev.Observed, sandboxFacts(cur.runs, cur.all)...)
	ev.Observed = append(ev.Observed, cur.facts...)

	sh := readShell(text)
	ev.Checks = append(ev.Checks, textResults(sh, cur)...)
	switch {
	case !executable:
		return waitAll(ev, dynamic, "files.script.wait_exec")
	case !cur.all:
		return waitAll(ev, dynamic, "files.script.wait_run")
	}
	ev.Checks = append(ev.Checks, checkFakeCalled(idFake, cur.runs))
	for _, sc := range scriptScenarios {
		ev.Checks = append(ev.Checks, checkRun(sc.id, cur.runs[sc.name], sc.exit))
	}
	return ev
}

// waitAll adds a waiting result for each of ps, worded by key.
func waitAll(ev checks.StepEval, ps []pending, key string) checks.StepEval {
	for _, p := range ps {
		ev.Checks = append(ev.Checks, checks.Wait(p.id, msg(key, "what", p.what)))
	}
	return ev
}

// shebangResult judges the script's first line.
func shebangResult(text string) checks.Result {
	first := checks.LineAt(text, 1)
	firstSeen := first
	if strings.TrimSpace(first) == "" {
		firstSeen = msg("files.script.blank_line")
	}
	switch {
	case strings.HasPrefix(text, "#!") && strings.HasSuffix(strings.SplitN(text, "\n", 2)[0], "\r"):
		return checks.Fail(idShebang, msg("files.script.shebang_crlf", "line", first), msg("files.script.shebang_lf"), msg("files.script.crlf_seen"), checks.Where(checkScriptPath, 1))
	case strings.HasPrefix(text, "#!"):
		return checks.Pass(idShebang, msg("files.script.shebang_ok", "line", first))
	case strings.HasPrefix(text, "\uFEFF#!"):
		return checks.Fail(idShebang, msg("files.script.shebang_bom"), "#!/bin/sh", firstSeen, checks.Where(checkScriptPath, 1))
	case strings.Contains(text, "#!"):
		return checks.Fail(idShebang, msg("files.script.shebang_not_first", "line", firstSeen), "#!/bin/sh", firstSeen, checks.Where(checkScriptPath, 1))
	}
	return checks.Fail(idShebang, msg("files.script.shebang_missing", "line", firstSeen), "#!/bin/sh", firstSeen, checks.Where(checkScriptPath, 1))
}

// current is what the runs of the script as it is now showed.
type current struct {
	runs  map[string]observe.ScriptObs // by scenario, only runs of this content
	all   bool                         // every scenario ran this content
	facts []checks.Fact                // each scenario's run, for the observed view
	// trapped: the traps decide what the script did where the sandbox
	// placed them in every run; the script's text is read otherwise.
	trapped bool
}

// currentRuns keeps the runs of the content with hash sha (a run from
// before chmod +x does not count for an executable script).
func currentRuns(runs map[string]observe.ScriptObs, sha string, executable bool) current {
	c := current{runs: map[string]observe.ScriptObs{}}
	for _, sc := range scriptScenarios {
		r, ok := runs[sc.name]
		if ok && r.ContentSHA == sha && !(r.Start != nil && r.Start.NoExecBit && executable) {
			c.runs[sc.name] = r
		}
		_, isCurrent := c.runs[sc.name]
		c.facts = append(c.facts, runFacts(sc.name, r, isCurrent)...)
	}
	c.all = len(c.runs) == len(scriptScenarios)
	c.trapped = c.all
	for _, r := range c.runs {
		c.trapped = c.trapped && r.Traps != nil
	}
	return c
}

// textResults judge what the script calls and reads: by what the traps
// saw where they were placed, by its commands as the shell reads them
// otherwise.
func textResults(sh shellText, cur current) []checks.Result {
	var parseMsg string
	if pe := sh.parseErr; pe != nil {
		parseMsg = msg("files.script.parse_error", "line", pe.Pos.Line(), "col", pe.Pos.Col(), "raw", msg("files.fact.raw_label"), "err", pe.Text)
	}
	var out []checks.Result
	switch {
	case sh.dumpLine > 0:
		out = append(out, checks.Pass(idCalls, msg("files.script.calls_ok", "line", sh.dumpLine, "text", sh.dumpText)))
	case anyCalledWithDump(cur.runs):
		out = append(out, checks.Pass(idCalls, msg("files.script.calls_ok_observed", "argv", argvText(cur.runs[scenarioNvidia].FakeArgv))))
	case parseMsg != "":
		out = append(out, checks.Fail(idCalls, parseMsg, "containerd config dump", msg("files.script.parse_seen"), checks.Where(checkScriptPath, int(sh.parseErr.Pos.Line()))))
	default:
		out = append(out, checks.Fail(idCalls, msg("files.script.calls_missing"), "containerd config dump", msg("files.seen.absent"), checkScriptPath))
	}
	return append(out, absResult(sh, cur, parseMsg), mainConfigResult(sh, cur, parseMsg))
}

func lineNote(n int) string {
	if n > 0 {
		return msg("files.script.at_line", "line", n)
	}
	return ""
}

// absResult: containerd called through PATH, not by an absolute path.
func absResult(sh shellText, cur current, parseMsg string) checks.Result {
	switch abs := absCalls(cur.runs); {
	case cur.trapped && len(abs) > 0:
		n := 0
		if sh.absPath == abs[0] {
			n = sh.absLine
		}
		return checks.Fail(idAbs, msg("files.script.abs_observed", "abs", strings.Join(abs, ", "), "where", lineNote(n)), "containerd", abs[0], checks.Where(checkScriptPath, n))
	case cur.trapped:
		return checks.Pass(idAbs, msg("files.script.abs_ok_observed"))
	case parseMsg != "":
		return checks.Wait(idAbs, msg("files.script.wait_parse"))
	case sh.absLine > 0:
		return checks.Fail(idAbs, msg("files.script.abs_containerd", "line", sh.absLine, "abs", sh.absPath), "containerd", sh.absPath, checks.Where(checkScriptPath, sh.absLine))
	}
	return checks.Pass(idAbs, msg("files.script.abs_ok"))
}

// mainConfigResult: the node's main config is not what the script reads.
func mainConfigResult(sh shellText, cur current, parseMsg string) checks.Result {
	expected := msg("files.script.main_config_expected", "file", mainConfigOnNode)
	switch {
	case cur.trapped && configOpened(cur.runs):
		return checks.Fail(idMainCfg, msg("files.script.main_config_observed", "file", mainConfigOnNode, "where", lineNote(sh.cfgLine)),
			expected, msg("files.script.main_config_seen"), checks.Where(checkScriptPath, sh.cfgLine))
	case cur.trapped:
		return checks.Pass(idMainCfg, msg("files.script.main_config_ok_observed", "file", mainConfigOnNode))
	case parseMsg != "":
		return checks.Wait(idMainCfg, msg("files.script.wait_parse"))
	case sh.cfgLine > 0:
		return checks.Fail(idMainCfg, msg("files.script.mentions_main_config", "line", sh.cfgLine, "text", sh.cfgText, "file", mainConfigOnNode),
			expected, sh.cfgText, checks.Where(checkScriptPath, sh.cfgLine))
	}
	return checks.Pass(idMainCfg, msg("files.script.main_config_ok", "file", mainConfigOnNode))
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
