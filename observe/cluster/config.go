package cluster

import (
	"flag"
	"io"
	"sync"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/labhub/labmate/internal/kubeconfig"
)

// restConfig is what loading a kubeconfig produced.
type restConfig struct {
	cfg     *rest.Config // nil when there is no kubeconfig at all
	context string
}

// loadConfig loads the kubeconfig through labmate's one loader (kubectl's
// rules, never interactive). No kubeconfig anywhere is not an error unless
// one was named: it yields a nil cfg, and the source reports the cluster
// as off.
func loadConfig(opts Options) (restConfig, error) {
	l, err := kubeconfig.Load(kubeconfig.Options{Path: opts.Kubeconfig, Context: opts.Context})
	if err != nil {
		if kubeconfig.IsMissing(err) && opts.Kubeconfig == "" && opts.Context == "" {
			return restConfig{}, nil
		}
		return restConfig{}, err
	}
	return restConfig{cfg: l.Config, context: l.Context}, nil
}

var silenceOnce sync.Once

// silenceKlog keeps client-go's logging off the terminal: the TUI owns it,
// and watch errors reach the learner as observations instead.
func silenceKlog() {
	silenceOnce.Do(func() {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		klog.InitFlags(fs)
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("alsologtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
		_ = fs.Set("skip_headers", "true")
		klog.LogToStderr(false)
		klog.SetOutput(io.Discard)
	})
}
