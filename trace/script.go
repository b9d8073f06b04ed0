package trace

import (
	"strings"
	"time"

	"github.com/labhub/labmate/observe"
)

// encodeScript is a script run as a version 3 record.
func encodeScript(s *observe.ScriptObs) scriptData {
	d := scriptData{Script: s.Script, ContentSHA: s.ContentSHA, Scenario: s.Scenario, ExitCode: s.ExitCode,
		TimedOut: s.TimedOut, StartErr: s.StartErr, FakeArgv: s.FakeArgv, Output: s.Output, Truncated: s.Truncated,
		DurationMS: float64(s.Duration) / float64(time.Millisecond), Internal: s.Internal,
		Failure: s.Failure, Sandbox: s.Sandbox, LimitMS: float64(s.Limit) / float64(time.Millisecond),
		Seccomp: s.Seccomp, Denied: s.Denied}
	if t := s.Traps; t != nil {
		d.Traps = &trapsData{Opened: t.Opened, Called: t.Called}
	}
	if st := s.Start; st != nil {
		d.Start = &startData{Errno: st.Errno, NoExecBit: st.NoExecBit}
	}
	if m := s.Memory; m != nil {
		d.Memory = &memoryData{Limit: m.Limit, Peak: m.Peak, Refused: m.Refused}
	}
	return d
}

// decodeScript is a script record of the given version as a run.
func decodeScript(d scriptData, version int) *observe.ScriptObs {
	s := &observe.ScriptObs{Script: d.Script, ContentSHA: d.ContentSHA, Scenario: d.Scenario, ExitCode: d.ExitCode,
		TimedOut: d.TimedOut, StartErr: d.StartErr, FakeArgv: d.FakeArgv, Output: d.Output, Truncated: d.Truncated,
		Duration: time.Duration(d.DurationMS * float64(time.Millisecond)), Internal: d.Internal,
		Failure: d.Failure, Sandbox: d.Sandbox, Limit: time.Duration(d.LimitMS * float64(time.Millisecond)),
		Seccomp: d.Seccomp, Denied: d.Denied}
	if t := d.Traps; t != nil {
		s.Traps = &observe.ScriptTraps{Opened: t.Opened, Called: t.Called}
		if version < 3 {
			s.Traps = &observe.ScriptTraps{Opened: t.ConfigOpened, Called: t.AbsCalls}
		}
	}
	if st := d.Start; st != nil {
		s.Start = &observe.StartFailure{Errno: st.Errno, NoExecBit: st.NoExecBit}
	}
	if m := d.Memory; m != nil {
		s.Memory = &observe.ScriptMemory{Limit: m.Limit, Peak: m.Peak, Refused: m.Refused}
	}
	if version < 2 && s.Failure == nil {
		s.Failure = v1Failure(d.StartErr, d.Internal)
		s.Internal = s.Internal || s.Failure != nil
	}
	if version < 3 && s.Start == nil && !s.Internal && d.StartErr != "" {
		s.Start = oldStart(d.StartErr)
	}
	return s
}

// notExecutable is what versions 1 and 2 recorded as start_err for a
// script without an execute bit.
const notExecutable = "not executable"

// oldStart rebuilds the typed start failure of a version 1 or 2 record
// from its start_err, the text of a Linux errno (or notExecutable). An
// unknown text keeps no errno: the failure is known, its reason not.
func oldStart(startErr string) *observe.StartFailure {
	if startErr == notExecutable {
		return &observe.StartFailure{NoExecBit: true}
	}
	return &observe.StartFailure{Errno: oldErrnos[startErr]}
}

// v1Failure rebuilds the typed failure of a version 1 script record,
// whose start_err was "<stage>: <dir>: <reason>" or "<stage>: <reason>"
// for labmate's own failures (the reason the text of a Linux errno). A
// script's own start error has no stage and gives nil.
func v1Failure(startErr string, internal bool) *observe.ScriptFailure {
	stage, detail, ok := strings.Cut(startErr, ": ")
	switch stage {
	case observe.FailTempDir, observe.FailRunFiles, observe.FailNoExec:
		f := &observe.ScriptFailure{Stage: stage}
		if i := strings.LastIndex(detail, ": "); i >= 0 {
			f.Path, detail = detail[:i], detail[i+2:]
		}
		f.Errno = oldErrnos[detail]
		return f
	case observe.FailPipe, observe.FailSpawn:
		return &observe.ScriptFailure{Stage: stage, Errno: oldErrnos[detail]}
	case observe.FailPanic:
		if ok {
			return &observe.ScriptFailure{Stage: stage}
		}
	}
	if internal {
		return &observe.ScriptFailure{Stage: "unknown"}
	}
	return nil
}

// oldErrnos are the Linux errno texts versions 1 and 2 recorded, by
// name: labmate's own failures (v1Failure) and the script's (oldStart).
var oldErrnos = map[string]string{
	"exec format error":                 "ENOEXEC",
	"too many levels of symbolic links": "ELOOP",
	"file name too long":                "ENAMETOOLONG",
	"text file busy":                    "ETXTBSY",
	"no such file or directory":         "ENOENT",
	"not a directory":                   "ENOTDIR",
	"permission denied":                 "EACCES",
	"operation not permitted":           "EPERM",
	"read-only file system":             "EROFS",
	"no space left on device":           "ENOSPC",
	"disk quota exceeded":               "EDQUOT",
	"too many open files":               "EMFILE",
	"too many open files in system":     "ENFILE",
	"resource temporarily unavailable":  "EAGAIN",
	"cannot allocate memory":            "ENOMEM",
}
