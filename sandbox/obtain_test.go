package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/hack/cluster"
	"github.com/labhub/labmate/sandbox/prebuilt"
)

// fakeInstall replaces prebuilt.Install for the test: it records what it
// was asked and answers with result (and on success fills the bin dir).
type fakeInstall struct {
	calls  []prebuilt.Options
	result error
}

func (f *fakeInstall) use(t *testing.T) {
	t.Helper()
	old := installPrebuilt
	installPrebuilt = func(_ context.Context, o prebuilt.Options) (prebuilt.Report, error) {
		f.calls = append(f.calls, o)
		if f.result == nil {
			for _, b := range o.Binaries {
				os.WriteFile(filepath.Join(o.BinDir, b), []byte("#!/bin/sh\n"), 0o755)
			}
		}
		return prebuilt.Report{}, f.result
	}
	t.Cleanup(func() { installPrebuilt = old })
}

// noNetwork makes every download attempt answer as a machine without a
// network does, so that no test reaches upstream.
func noNetwork(t *testing.T) *fakeInstall {
	t.Helper()
	f := &fakeInstall{result: &prebuilt.NetworkError{URL: "https://dl.k8s.io/release/x/kube-apiserver", Err: errors.New("no such host")}}
	f.use(t)
	return f
}

// fakeGo puts a go command on PATH whose builds fail at once, and
// nothing else.
func fakeGo(t *testing.T, dir string) {
	t.Helper()
	bin := filepath.Join(dir, "fakego")
	os.MkdirAll(bin, 0o755)
	script := "#!/bin/sh\ncase \"$1\" in\nenv) echo go1.99-fake ;;\n*) exit 3 ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
}

// The order Up obtains missing binaries in: a named mirror or bundle;
// else upstream where it ships them; else, when upstream does not
// answer, the source build when go is there; else every way out.
func TestObtainOrder(t *testing.T) {
	if runtime.GOOS != "linux" || !prebuilt.Supported(runtime.GOOS, runtime.GOARCH) {
		t.Skip("the download is for Linux amd64/arm64")
	}
	noGo := func(t *testing.T) { t.Setenv("PATH", t.TempDir()) }
	for _, tc := range []struct {
		name     string
		opts     Options
		env      string // LABMATE_SANDBOX_MIRROR
		result   error
		withGo   bool
		wantFrom []string // From of each install asked for
		check    func(t *testing.T, err error, progress string)
	}{
		{name: "without Build nothing is fetched", opts: Options{}, wantFrom: nil,
			check: func(t *testing.T, err error, _ string) {
				var mb *MissingBinariesError
				if !errors.As(err, &mb) || mb.Tried != nil {
					t.Errorf("Up = %v, want a *MissingBinariesError", err)
				}
			}},
		{name: "upstream", opts: Options{Build: true}, wantFrom: []string{""}},
		{name: "the flag", opts: Options{Build: true, From: "http://mirror:8000"}, env: "http://other", wantFrom: []string{"http://mirror:8000"}},
		{name: "the environment", opts: Options{Build: true}, env: "/media/usb/b.tar.gz", wantFrom: []string{"/media/usb/b.tar.gz"}},
		{name: "a named mirror that fails is the answer", opts: Options{Build: true, From: "http://mirror:8000"}, withGo: true,
			result: &prebuilt.NetworkError{URL: "http://mirror:8000/x", Err: errors.New("refused")}, wantFrom: []string{"http://mirror:8000"},
			check: func(t *testing.T, err error, progress string) {
				if !prebuilt.Unreachable(err) || strings.Contains(progress, content.Msg("sandbox.build.missing_first")) {
					t.Errorf("Up = %v (progress %q), want the mirror's error and no build", err, progress)
				}
			}},
		{name: "a wrong checksum is not built around", opts: Options{Build: true}, withGo: true,
			result: &prebuilt.ChecksumError{File: "kubectl", Want: "a", Got: "b"}, wantFrom: []string{""},
			check: func(t *testing.T, err error, progress string) {
				var ce *prebuilt.ChecksumError
				if !errors.As(err, &ce) || strings.Contains(progress, content.Msg("sandbox.build.missing_first")) {
					t.Errorf("Up = %v (progress %q), want the checksum error and no build", err, progress)
				}
			}},
		{name: "no network, go: the source build", opts: Options{Build: true}, withGo: true,
			result: &prebuilt.NetworkError{URL: "https://dl.k8s.io/x", Err: errors.New("no such host")}, wantFrom: []string{""},
			check: func(t *testing.T, err error, progress string) {
				// The fake go fails its build and install (whichever
				// first): that failure is Build's, naming its log.
				if err == nil || !strings.Contains(err.Error(), "build.log") ||
					!strings.Contains(progress, "https://dl.k8s.io/x") || !strings.Contains(progress, content.Msg("sandbox.build.missing_first")) {
					t.Errorf("Up = %v, progress %q, want the source build tried after the download", err, progress)
				}
			}},
		{name: "no network, no go: every way out", opts: Options{Build: true},
			result: &prebuilt.NetworkError{URL: "https://dl.k8s.io/x", Err: errors.New("no such host")}, wantFrom: []string{""},
			check: func(t *testing.T, err error, _ string) {
				var mb *MissingBinariesError
				if !errors.As(err, &mb) || mb.Tried == nil {
					t.Fatalf("Up = %v, want a *MissingBinariesError that tried the download", err)
				}
				for _, want := range []string{"https://dl.k8s.io/x", "no such host", "--from", prebuilt.EnvMirror,
					"labmate sandbox bundle", BuildCommand, "Go " + cluster.GoVersion(), "https://go.dev/dl", EnvBinDir, BinDirFlag} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("the message lacks %q:\n%s", want, err)
					}
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := isolate(t)
			t.Setenv(prebuilt.EnvMirror, tc.env)
			f := &fakeInstall{result: tc.result}
			f.use(t)
			if tc.withGo {
				fakeGo(t, dir)
			} else {
				noGo(t)
			}
			var progress strings.Builder
			opts := tc.opts
			opts.BinDir = filepath.Join(dir, "bin")
			opts.Progress = &progress
			opts.Timeout = 1 // 1 ns: Up stops right after the binaries, nothing is started
			err := Up(context.Background(), opts)
			var from []string
			for _, c := range f.calls {
				from = append(from, c.From)
				if c.BinDir != opts.BinDir || len(c.Binaries) != len(Binaries) {
					t.Errorf("install asked for %+v", c)
				}
			}
			if strings.Join(from, "|") != strings.Join(tc.wantFrom, "|") || len(from) != len(tc.wantFrom) {
				t.Errorf("installs from %q, want %q", from, tc.wantFrom)
			}
			if tc.check != nil {
				tc.check(t, err, progress.String())
			}
		})
	}
}
