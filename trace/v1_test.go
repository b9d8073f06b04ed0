package trace

import (
	"reflect"
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

// Version 2 traces stay readable: traps under their old names, and the
// script's own start failure (only start_err text then) typed by errno.
func TestVersion2ScriptRecordsAreTyped(t *testing.T) {
	const head = `{"format":"labmate-trace","version":2,"lab":"gpu-incident","root":"/r","started":"2025-03-01T09:00:00Z"}` + "\n"
	rec := func(data string) string {
		return `{"at_ms":1,"time":"2025-03-01T09:00:00Z","kind":"script","data":{"script":"bin/c.sh","content_sha":"ab","scenario":"nvidia","exit_code":-1,"fake_argv":null,"output":"","duration_ms":1,` + data + `}}` + "\n"
	}
	for _, tc := range []struct {
		data  string
		start *observe.StartFailure
		traps *observe.ScriptTraps
	}{
		{`"start_err":"exec format error"`, &observe.StartFailure{Errno: "ENOEXEC"}, nil},
		{`"start_err":"no such file or directory"`, &observe.StartFailure{Errno: "ENOENT"}, nil},
		{`"start_err":"not executable"`, &observe.StartFailure{NoExecBit: true}, nil},
		{`"start_err":"a reason nobody mapped"`, &observe.StartFailure{}, nil},
		{`"start_err":"temp-dir: /x: no space left on device","internal":true,"failure":{"stage":"temp-dir","path":"/x","errno":"ENOSPC"}`, nil, nil},
		{`"sandbox":"namespaces","traps":{"config_opened":["/etc/containerd/config.toml"],"abs_calls":["/usr/bin/containerd"]}`, nil,
			&observe.ScriptTraps{Opened: []string{"/etc/containerd/config.toml"}, Called: []string{"/usr/bin/containerd"}}},
		{`"sandbox":"namespaces","traps":{}`, nil, &observe.ScriptTraps{}},
	} {
		tr, err := Read("v2", strings.NewReader(head+rec(tc.data)))
		if err != nil || len(tr.Records) != 1 {
			t.Fatalf("%s: %v %+v", tc.data, err, tr)
		}
		s := tr.Records[0].Obs.Script
		if !reflect.DeepEqual(s.Start, tc.start) || !reflect.DeepEqual(s.Traps, tc.traps) {
			t.Errorf("%s: start %+v traps %+v, want %+v %+v", tc.data, s.Start, s.Traps, tc.start, tc.traps)
		}
		if s.Seccomp != "" || s.Memory != nil {
			t.Errorf("%s: containment facts a version 2 trace never recorded: %q %+v", tc.data, s.Seccomp, s.Memory)
		}
	}
}
