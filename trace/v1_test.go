package trace

import (
	"strings"
	"testing"

	"github.com/labhub/labmate/observe"
)

// Version 1 traces stay readable: a labmate-side failure recorded as a
// start_err string comes back typed, a script's own start error stays
// the script's, and version 2 fields round-trip.
func TestVersion1ScriptRecordsAreTyped(t *testing.T) {
	const head = `{"format":"labmate-trace","version":1,"lab":"gpu-incident","root":"/r","started":"2025-03-01T09:00:00Z"}` + "\n"
	rec := func(startErr string, internal bool) string {
		in := ""
		if internal {
			in = `,"internal":true`
		}
		return `{"at_ms":1,"time":"2025-03-01T09:00:00Z","kind":"script","data":{"script":"bin/c.sh","content_sha":"ab","scenario":"nvidia","exit_code":-1,"start_err":"` + startErr + `","fake_argv":null,"output":"","duration_ms":1` + in + `}}` + "\n"
	}
	for _, tc := range []struct {
		startErr string
		internal bool
		want     *observe.ScriptFailure
	}{
		{"temp-dir: /tmp/x: no space left on device", true, &observe.ScriptFailure{Stage: observe.FailTempDir, Path: "/tmp/x", Errno: "ENOSPC"}},
		{"run-files: /tmp/a: b: read-only file system", false, &observe.ScriptFailure{Stage: observe.FailRunFiles, Path: "/tmp/a: b", Errno: "EROFS"}},
		{"spawn: resource temporarily unavailable", true, &observe.ScriptFailure{Stage: observe.FailSpawn, Errno: "EAGAIN"}},
		{"panic: boom", false, &observe.ScriptFailure{Stage: observe.FailPanic}},
		{"exec format error", false, nil},
		{"no such file or directory", false, nil},
	} {
		tr, err := Read("v1", strings.NewReader(head+rec(tc.startErr, tc.internal)))
		if err != nil || len(tr.Records) != 1 {
			t.Fatalf("%q: %v %+v", tc.startErr, err, tr)
		}
		s := tr.Records[0].Obs.Script
		switch {
		case tc.want == nil && (s.Failure != nil || s.Internal):
			t.Errorf("%q: read as labmate's failure %+v", tc.startErr, s.Failure)
		case tc.want != nil && (s.Failure == nil || *s.Failure != *tc.want || !s.Internal):
			t.Errorf("%q: failure %+v internal %v, want %+v", tc.startErr, s.Failure, s.Internal, tc.want)
		}
	}
}
