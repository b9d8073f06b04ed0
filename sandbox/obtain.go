package sandbox

// How a sandbox gets its binaries: present, or obtained in order.

import (
	"context"
	"errors"
	"os/exec"
	"runtime"

	"github.com/labhub/labmate/sandbox/prebuilt"
)

// ensureBinaries checks the bin dir and, when binaries are missing and
// opts.Build, obtains them: from opts.From or $LABMATE_SANDBOX_MIRROR when
// set, else upstream's release builds where upstream ships them, else
// (also when upstream cannot be reached) the source build when go is on
// PATH. When none of them can work, the *MissingBinariesError lists
// every way out.
func ensureBinaries(ctx context.Context, opts Options) error {
	err := CheckBinaries(opts)
	var missing *MissingBinariesError
	if err == nil || !opts.Build || !errors.As(err, &missing) {
		return err
	}
	if from := opts.from(); from != "" || prebuilt.Supported(runtime.GOOS, runtime.GOARCH) {
		_, ferr := installPrebuilt(ctx, prebuilt.Options{BinDir: opts.BinDir, Binaries: Binaries, From: from, SHA256: opts.SHA256, Progress: opts.Progress})
		if ferr == nil {
			return nil
		}
		// A mirror or bundle the learner named is the answer they asked
		// for; a download that failed on a file is not one to build
		// around. Only an upstream nobody answers for leaves the build.
		if from != "" || !prebuilt.Unreachable(ferr) {
			return ferr
		}
		missing.Tried = ferr
	}
	if _, lerr := exec.LookPath("go"); lerr != nil {
		return missing
	}
	var ne *prebuilt.NetworkError
	if errors.As(missing.Tried, &ne) {
		opts.progress("sandbox.build.unreachable", "url", ne.URL, "err", ne.Cause())
	}
	opts.progress("sandbox.build.missing_first")
	return Build(ctx, opts, false)
}

// installPrebuilt is prebuilt.Install; a test replaces it so that no
// test reaches upstream.
var installPrebuilt = prebuilt.Install
