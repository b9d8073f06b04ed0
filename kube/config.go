// labmate's one kubeconfig loader. It decides which
// file and context to use exactly as kubectl does (--kubeconfig, then the
// $KUBECONFIG list, then ~/.kube/config), with one addition: when those
// give no configuration at all (no file, or only empty ones) and no
// --kubeconfig was named, the `labmate sandbox` cluster's kubeconfig is
// used if it exists. Every command that reaches the lab cluster loads it
// here, so every one of them finds the sandbox the same way. It never
// lets an exec credential plugin read the terminal.

package kube

import (
	"github.com/labhub/labmate/internal/dirs"

	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/homedir"
)

// Options name what the user asked for.
type Options struct {
	// Path is --kubeconfig; empty means kubectl's default rules.
	Path string
	// Context is --context; empty means the current context.
	Context string
	// Fallback is the kubeconfig used when Path is empty and kubectl's
	// rules give no configuration: SandboxKubeconfig() when empty.
	Fallback string
	// DialTimeout bounds connecting to the API server (default 5s).
	// Requests get no client timeout: the caller sets one if it wants.
	DialTimeout time.Duration
	// Only reads Path and nothing else: never $KUBECONFIG or
	// ~/.kube/config (a learner's class kubeconfig, which must not be
	// mixed with the lab's own cluster).
	Only bool
	// UserAgent names labmate to the API server ("labmate" when empty).
	UserAgent string
	// QPS and Burst bound the client's own request rate (50 and 100
	// when zero: many small informers list at start).
	QPS   float32
	Burst int
}

// Kind says why loading failed.
type Kind int

const (
	// Unreadable: a file exists (or was named) but cannot be read or
	// parsed.
	Unreadable Kind = iota + 1
	// Missing: no kubeconfig anywhere (and no in-cluster config).
	Missing
	// NoContext: the requested context is not in the kubeconfig.
	NoContext
	// Invalid: the kubeconfig was read but does not make a client
	// config (no server, bad credentials, ...).
	Invalid
)

// LoadError is a failed load, with the files it looked at.
type LoadError struct {
	Kind Kind
	// Paths are the files read (or, when none exists, the ones looked
	// for), in precedence order.
	Paths []string
	// Context is the context in use or asked for.
	Context string
	// Contexts are the contexts the kubeconfig does have (NoContext).
	Contexts []string
	Err      error
}

func (e *LoadError) Error() string { return fmt.Sprintf("kubeconfig: %v", e.Err) }
func (e *LoadError) Unwrap() error { return e.Err }

// IsMissing reports whether err says there is no kubeconfig at all.
func IsMissing(err error) bool {
	var e *LoadError
	return errors.As(err, &e) && e.Kind == Missing
}

// Loaded is a usable client config.
type Loaded struct {
	Config *rest.Config
	// Context is the context in use.
	Context string
	// Paths are the files it came from, in precedence order.
	Paths []string
	// Namespace and User are the context's namespace ("" when it sets
	// none) and user (its AuthInfo name).
	Namespace, User string
}

// SandboxKubeconfig is the kubeconfig kwokctl writes for the `labmate
// sandbox` cluster of the default name: $KWOK_WORKDIR (else ~/.kwok)
// /clusters/labmate/kubeconfig.yaml, as sandbox.Kubeconfig(sandbox.Options{})
// names it (a test in package sandbox holds the two equal). The home
// directory is asked for now, not at start-up.
func SandboxKubeconfig() string {
	return dirs.KwokKubeconfig("labmate")
}

// Rules are the loading rules for o: kubectl's (only Path with Only),
// then, when those give no configuration at all, the sandbox's.
func Rules(o Options) *clientcmd.ClientConfigLoadingRules {
	if o.Only {
		return &clientcmd.ClientConfigLoadingRules{ExplicitPath: o.Path}
	}
	rules := kubectlRules(o.Path)
	if o.Path != "" {
		return rules
	}
	fallback := o.Fallback
	if fallback == "" {
		fallback = SandboxKubeconfig()
	}
	if !isFile(fallback) {
		return rules
	}
	// Only what kubectl would load decides, not which files exist: an
	// empty ~/.kube/config or $KUBECONFIG file is no configuration
	// either. A file that cannot be read is left to Load to report.
	if raw, err := rules.Load(); err == nil && clientcmdapi.IsConfigEmpty(raw) {
		return &clientcmd.ClientConfigLoadingRules{ExplicitPath: fallback}
	}
	return rules
}

// kubectlRules are kubectl's default loading rules with --kubeconfig path.
func kubectlRules(path string) *clientcmd.ClientConfigLoadingRules {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	if os.Getenv(clientcmd.RecommendedConfigPathEnvVar) == "" {
		// clientcmd fixes ~/.kube/config when the process starts; ask for
		// the home directory now, as kubectl's homedir does.
		rules.Precedence = []string{filepath.Join(homedir.HomeDir(), clientcmd.RecommendedHomeDir, clientcmd.RecommendedFileName)}
	}
	return rules
}

// Paths are the files the rules read: the explicit one, or those of the
// precedence list that exist (all of them when none does).
func Paths(rules *clientcmd.ClientConfigLoadingRules) []string {
	if rules.ExplicitPath != "" {
		return []string{rules.ExplicitPath}
	}
	var found []string
	for _, p := range rules.GetLoadingPrecedence() {
		if isFile(p) {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return rules.GetLoadingPrecedence()
	}
	return found
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// clientConfig is the non-interactive client config for o.
func clientConfig(o Options) (clientcmd.ClientConfig, *clientcmd.ClientConfigLoadingRules) {
	rules := Rules(o)
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: o.Context}), rules
}

// Load reads the kubeconfig o names and returns a client config that never
// prompts. Failures are *LoadError.
func Load(o Options) (*Loaded, error) {
	cc, rules := clientConfig(o)
	paths := Paths(rules)
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, &LoadError{Kind: Unreadable, Paths: paths, Context: o.Context, Err: err}
	}
	ctxName := raw.CurrentContext
	if o.Context != "" {
		ctxName = o.Context
	}
	cfg, err := cc.ClientConfig()
	switch {
	case err != nil && clientcmd.IsEmptyConfig(err):
		return nil, &LoadError{Kind: Missing, Paths: paths, Context: ctxName, Err: err}
	case err != nil && (o.Context != "" && raw.Contexts[o.Context] == nil || clientcmd.IsContextNotFound(err)):
		// Asked for with --context, or the file's own current-context.
		return nil, &LoadError{Kind: NoContext, Paths: paths, Context: ctxName, Contexts: contextNames(raw), Err: err}
	case err != nil:
		return nil, &LoadError{Kind: Invalid, Paths: paths, Context: ctxName, Err: err}
	}
	cfg = rest.CopyConfig(cfg)
	// An exec credential plugin must never read the terminal labmate owns.
	if cfg.ExecProvider != nil {
		cfg.ExecProvider.InteractiveMode = clientcmdapi.NeverExecInteractiveMode
		cfg.ExecProvider.StdinUnavailable = true
		cfg.ExecProvider.StdinUnavailableMessage = "labmate runs credential plugins without a terminal"
	}
	dial := o.DialTimeout
	if dial <= 0 {
		dial = 5 * time.Second
	}
	cfg.Dial = (&net.Dialer{Timeout: dial, KeepAlive: 30 * time.Second}).DialContext
	cfg.Timeout = 0
	// Many small informers list at start; the default 5 QPS would make
	// them wait on the client's own rate limiter.
	cfg.QPS, cfg.Burst = 50, 100
	if o.QPS > 0 {
		cfg.QPS, cfg.Burst = o.QPS, max(o.Burst, 1)
	}
	cfg.WarningHandler = rest.NoWarnings{}
	cfg.UserAgent = "labmate"
	if o.UserAgent != "" {
		cfg.UserAgent = o.UserAgent
	}
	l := &Loaded{Config: cfg, Context: ctxName, Paths: paths}
	if c := raw.Contexts[ctxName]; c != nil {
		l.Namespace, l.User = c.Namespace, c.AuthInfo
	}
	return l, nil
}

// Contexts lists the context names of the kubeconfig o names, sorted.
func Contexts(o Options) ([]string, error) {
	cc, _ := clientConfig(o)
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, err
	}
	return contextNames(raw), nil
}

func contextNames(raw clientcmdapi.Config) []string {
	names := make([]string, 0, len(raw.Contexts))
	for k := range raw.Contexts {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// WriteContext writes the context o selects, alone and self-contained
// (credentials and certificates inlined), to path with mode 0600: a
// kubeconfig that lets a child process like kubectl reach that one
// cluster and no other.
func WriteContext(o Options, path string) error {
	cc, _ := clientConfig(o)
	raw, err := cc.RawConfig()
	if err != nil {
		return err
	}
	if o.Context != "" {
		raw.CurrentContext = o.Context
	}
	if err := clientcmdapi.MinifyConfig(&raw); err != nil {
		return err
	}
	if err := clientcmdapi.FlattenConfig(&raw); err != nil {
		return err
	}
	return clientcmd.WriteToFile(raw, path)
}
