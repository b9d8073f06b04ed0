package cluster

import (
	"flag"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
)

// dialTimeout bounds connecting to the API server. Requests themselves get
// no client timeout: watches are long-lived by design.
const dialTimeout = 5 * time.Second

// restConfig is what loading a kubeconfig produced.
type restConfig struct {
	cfg     *rest.Config // nil when there is no kubeconfig at all
	context string
}

// loadConfig follows kubectl: the default loading rules ($KUBECONFIG, then
// ~/.kube/config, then in-cluster), an explicit path that must exist, and a
// context override. No kubeconfig anywhere is not an error: it yields a nil
// cfg, and the source reports the cluster as off.
func loadConfig(kubeconfig, context string) (restConfig, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: context}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)

	cfg, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) && kubeconfig == "" && context == "" {
			return restConfig{}, nil
		}
		return restConfig{}, fmt.Errorf("kubeconfig: %w", err)
	}
	out := restConfig{cfg: cfg, context: context}
	if out.context == "" {
		if raw, err := cc.RawConfig(); err == nil {
			out.context = raw.CurrentContext
		}
	}

	// An exec credential plugin must never read the terminal the TUI owns.
	if cfg.ExecProvider != nil {
		cfg.ExecProvider.InteractiveMode = clientcmdapi.NeverExecInteractiveMode
		cfg.ExecProvider.StdinUnavailable = true
		cfg.ExecProvider.StdinUnavailableMessage = "labmate runs credential plugins without a terminal"
	}
	cfg.Dial = (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
	cfg.Timeout = 0
	// Fourteen small informers list at start; the default 5 QPS would
	// make the first sync wait on the client's own rate limiter.
	cfg.QPS, cfg.Burst = 50, 100
	cfg.WarningHandler = rest.NoWarnings{}
	cfg.UserAgent = "labmate"
	return out, nil
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
