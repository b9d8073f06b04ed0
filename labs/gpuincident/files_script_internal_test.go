package gpuincident

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/scriptprobe"
)

// proberEnglish is text the prober reports in ScriptObs.StartErr. None of
// it may reach a check's Korean message; the observed view may show it
// only after the label that says it is the system's original text.
var proberEnglish = []string{
	scriptprobe.NotExecutable, "exec format error", "no such file", "permission denied", "not a directory",
	"labmate:", "stat ", "mkdir ", "resource temporarily unavailable", "prober panic",
	scriptprobe.FailTempDir + ":", scriptprobe.FailRunFiles + ":", scriptprobe.FailNoExec + ":",
	scriptprobe.FailPipe + ":", scriptprobe.FailSpawn + ":", scriptprobe.FailPanic + ":", scriptprobe.FailSandbox + ":",
	"EACCES", "ENOENT", "ENOSPC", "namespaces", "landlock",
}

func assertNoProberEnglish(t *testing.T, ev checks.StepEval) {
	t.Helper()
	for _, r := range ev.Checks {
		for _, s := range []string{r.Message, r.Expected, r.Observed} {
			for _, en := range proberEnglish {
				if strings.Contains(s, en) {
					t.Errorf("%s: %q leaks into %q", r.ID, en, s)
				}
			}
		}
	}
	rawLabel := msg("files.fact.raw_label")
	for _, f := range ev.Observed {
		for _, en := range proberEnglish {
			if i := strings.Index(f.Value, en); i >= 0 && !strings.Contains(f.Value[:i], rawLabel) {
				t.Errorf("fact %s: %q is shown without the label %q: %q", f.Label, en, rawLabel, f.Value)
			}
		}
	}
}

// labmate failing to set up a run is an error of the check, with the
// cause in Korean, never a failure of the learner's script.
func TestCheckScriptLabmateFailureIsAnError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, reason string }{
		{"/nonexistent/x", "없는 경로"},
		{file, "디렉터리가 아님"},
	} {
		root := labRoot(t, nil)
		runs := probeScript(t, root, scriptprobe.Options{TempDir: tc.dir})
		ev := evalStep(t, stepCheckScript, root, observeRoot(t, root, runs...))
		for _, id := range dynamicChecks {
			r := result(t, ev, id)
			if r.Status != checks.Error {
				t.Errorf("%s %s: %s, want error: %s", tc.dir, id, r.Status, r.Message)
			}
			for _, w := range []string{"labmate 가 임시 디렉터리를 만들지 못했습니다", tc.dir, tc.reason, "TMPDIR", "스크립트 문제가 아닙니다"} {
				if !strings.Contains(r.Message, w) {
					t.Errorf("%s %s: message lacks %q: %s", tc.dir, id, w, r.Message)
				}
			}
			for _, blame := range []string{"인터프리터", "#!", "종료 코드"} {
				if strings.Contains(r.Message, blame) {
					t.Errorf("%s %s: blames the script (%q): %s", tc.dir, id, blame, r.Message)
				}
			}
		}
		for _, id := range []string{sFile, sExec, sShebang, sCalls, sAbs, sMainCfg} {
			if r := result(t, ev, id); r.Status != checks.Passed {
				t.Errorf("%s %s: %s: %s", tc.dir, id, r.Status, r.Message)
			}
		}
		if s := checks.Aggregate(ev.Checks); s != checks.Error {
			t.Errorf("%s: step %s, want error", tc.dir, s)
		}
		if got := fact(ev, msg("files.fact.run", "scenario", scenarioLabel(scenarioNvidia))); !strings.Contains(got, "labmate") || !strings.Contains(got, tc.reason) {
			t.Errorf("%s: the observed run says %q", tc.dir, got)
		}
		assertNoProberEnglish(t, ev)
	}
}

// evalRuncNotStarted evaluates the reference script with a good nvidia
// run and a runc-only run that did not start with startErr: labmate's
// failure, or (failure nil) the script's with the errno start.
func evalRuncNotStarted(t *testing.T, startErr string, failure *observe.ScriptFailure, start *observe.StartFailure) checks.StepEval {
	t.Helper()
	root := labRoot(t, nil)
	ref := readFixture(t, reference+"/"+checkScriptPath)
	bad := scriptObs(ref, scenarioRuncOnly, -1)
	bad.Script.StartErr, bad.Script.Internal, bad.Script.Failure, bad.Script.FakeArgv = startErr, failure != nil, failure, nil
	bad.Script.Start = start
	dump := []string{"config", "dump"}
	return evalStep(t, stepCheckScript, root, observeRoot(t, root,
		scriptObs(ref, scenarioNvidia, 0, dump), bad, scriptObs(ref, scenarioNvidiaDefault, 1, dump)))
}

// Every stage at which the prober can fail on its own side has its own
// Korean cause; a stage this check does not know still says it is
// labmate's, not the script's.
func TestCheckScriptEveryInternalStage(t *testing.T) {
	type failure = observe.ScriptFailure
	for _, tc := range []struct {
		startErr string // as the prober words it for logs
		failure  failure
		words    []string
	}{
		{"temp-dir: /tmp/x: read-only file system", failure{Stage: observe.FailTempDir, Path: "/tmp/x", Errno: "EROFS"}, []string{"임시 디렉터리를 만들지", "/tmp/x", "읽기 전용", "TMPDIR"}},
		{"run-files: /tmp/x: no space left on device", failure{Stage: observe.FailRunFiles, Path: "/tmp/x", Errno: "ENOSPC"}, []string{"실행용 파일", "/tmp/x", "공간", "TMPDIR"}},
		{"noexec: /tmp/x: permission denied", failure{Stage: observe.FailNoExec, Path: "/tmp/x", Errno: "EACCES"}, []string{"/tmp/x", "noexec", "TMPDIR"}},
		{"pipe: too many open files", failure{Stage: observe.FailPipe, Errno: "EMFILE"}, []string{"파이프", "열린 파일"}},
		{"spawn: resource temporarily unavailable", failure{Stage: observe.FailSpawn, Errno: "EAGAIN"}, []string{"프로세스", "모자람"}},
		{"sandbox: operation not permitted", failure{Stage: observe.FailSandbox, Errno: "EPERM"}, []string{"샌드박스", "권한 없음", "doctor"}},
		{"panic: runtime error: index out of range", failure{Stage: observe.FailPanic}, []string{"labmate 내부 오류"}},
		{"some-new-stage: it broke", failure{Stage: "some-new-stage"}, []string{"labmate 가 스크립트를 돌릴 준비"}},
		{"temp-dir: /tmp/x: a reason nobody mapped", failure{Stage: observe.FailTempDir, Path: "/tmp/x", Errno: "EWEIRD"}, []string{"/tmp/x", "운영체제 오류"}},
	} {
		ev := evalRuncNotStarted(t, tc.startErr, &tc.failure, nil)
		// The nvidia run is judged on its own; what needs the failed run
		// cannot be.
		if r := result(t, ev, sNvidia); r.Status != checks.Passed {
			t.Errorf("%q %s: %s: %s", tc.startErr, sNvidia, r.Status, r.Message)
		}
		for _, id := range []string{sFake, sRunc} {
			r := result(t, ev, id)
			if r.Status != checks.Error || !strings.Contains(r.Message, "스크립트 문제가 아닙니다") {
				t.Errorf("%q %s: %s: %s", tc.startErr, id, r.Status, r.Message)
			}
			for _, w := range tc.words {
				if !strings.Contains(r.Message, w) {
					t.Errorf("%q %s: message lacks %q: %s", tc.startErr, id, w, r.Message)
				}
			}
		}
		assertNoProberEnglish(t, ev)
		if got := fact(ev, msg("files.fact.run", "scenario", scenarioLabel(scenarioRuncOnly))); !strings.Contains(got, tc.startErr) {
			t.Errorf("%q: the observed view does not keep the original: %q", tc.startErr, got)
		}
	}
}

// The learner's own start failures read in Korean; the system's words
// stay in the observed view, labelled.
func TestCheckScriptStartFailuresAreKorean(t *testing.T) {
	for _, tc := range []struct {
		startErr, errno string
		words           []string
	}{
		{"exec format error", "ENOEXEC", []string{"실행할 형식", "#! 가 없으면"}},
		{"no such file or directory", "ENOENT", []string{"인터프리터가 없습니다", "#!/bin/sh", "CRLF"}},
		{"permission denied", "EACCES", []string{"실행할 권한이 없습니다"}},
		{"not a directory", "ENOTDIR", []string{"디렉터리가 아닌"}},
		{"too many levels of symbolic links", "ELOOP", []string{"심볼릭 링크"}},
		{"some error nobody mapped", "EWEIRD", []string{"운영체제가 실행을 거부했습니다", "관측"}},
		// The text plays no part: the errno decides.
		{"exec format error", "ELOOP", []string{"심볼릭 링크"}},
	} {
		ev := evalRuncNotStarted(t, tc.startErr, nil, &observe.StartFailure{Errno: tc.errno})
		for _, id := range []string{sFake, sRunc} {
			r := result(t, ev, id)
			if r.Status != checks.Failed {
				t.Errorf("%q %s: %s: %s", tc.startErr, id, r.Status, r.Message)
			}
			if strings.Contains(r.Message, tc.startErr) || strings.Contains(r.Observed, tc.startErr) {
				t.Errorf("%q %s: the system's words in the message: %s / %s", tc.startErr, id, r.Message, r.Observed)
			}
		}
		msgRunc := result(t, ev, sRunc).Message
		for _, w := range tc.words {
			if !strings.Contains(msgRunc, w) {
				t.Errorf("%q: message lacks %q: %s", tc.startErr, w, msgRunc)
			}
		}
		got := fact(ev, msg("files.fact.run", "scenario", scenarioLabel(scenarioRuncOnly)))
		if !strings.Contains(got, msg("files.fact.raw_label")+" "+tc.startErr) {
			t.Errorf("%q: observed run %q lacks the labelled original", tc.startErr, got)
		}
		assertNoProberEnglish(t, ev)
	}
}

// A script without an execute bit is shown in Korean in the observed
// view, not as the prober's "not executable".
func TestCheckScriptNotExecutableIsKoreanInTheObservedView(t *testing.T) {
	root := labRoot(t, map[string]string{checkScriptPath: "check-script/not-executable.sh"})
	runs := probeScript(t, root, scriptprobe.Options{})
	ev := evalStep(t, stepCheckScript, root, observeRoot(t, root, runs...))
	got := fact(ev, msg("files.fact.run", "scenario", scenarioLabel(scenarioNvidia)))
	if !strings.Contains(got, "실행 권한") {
		t.Errorf("observed run %q", got)
	}
	assertNoProberEnglish(t, ev)
}
