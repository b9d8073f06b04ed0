package sandbox

// kwokctl, run for a sandbox: its binary runtime pointed at the bin dir.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/labhub/labmate/content"
)

// kwokctlEnv is the environment added for kwokctl: it runs `kubectl` for
// its health checks and looks it up in PATH before falling back to a
// download, so the bin dir goes first in PATH.
func kwokctlEnv(ctx context.Context, opts Options) []string {
	env := []string{
		"PATH=" + opts.BinDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"KWOK_KUBECTL_BINARY=" + opts.bin("kubectl"),
	}
	if v := kubeVersion(ctx, opts); v != "" {
		env = append(env, "KWOK_KUBE_VERSION="+v)
	}
	return env
}

// startCluster runs `kwokctl start cluster`, which starts the processes of
// an existing cluster that do not run (after a reboot, say). kwokctl skips a
// process whose pid still runs, even one that is shutting down, and then
// waits up to two minutes for the cluster; a short --timeout keeps that wait
// short, and its failure is left to waitControlPlane to judge (it starts
// kwokctl again once the old process is gone).
func startCluster(ctx context.Context, opts Options) error {
	err := kwokctl(ctx, opts, kwokctlEnv(ctx, opts), "start", "cluster", "--timeout", "30s")
	if err != nil && ctx.Err() == nil {
		opts.progress("sandbox.up.start_failed", "log", LogFile(opts))
		return nil
	}
	return err
}

// clusterExists reports whether kwokctl has a saved configuration for the
// cluster (it writes kwok.yaml into the cluster directory on create).
func clusterExists(opts Options) bool {
	_, err := os.Stat(filepath.Join(ClusterDir(opts), "kwok.yaml"))
	return err == nil
}

// createCluster runs `kwokctl create cluster` with every binary pointed at
// the bin dir, so that kwokctl downloads nothing.
func createCluster(ctx context.Context, opts Options) error {
	conf, err := writeKwokctlConfig(opts)
	if err != nil {
		return err
	}
	args := []string{
		"create", "cluster",
		"--config", conf,
		"--runtime", "binary",
		"--kube-apiserver-binary", opts.bin("kube-apiserver"),
		"--kube-controller-manager-binary", opts.bin("kube-controller-manager"),
		"--kube-scheduler-binary", opts.bin("kube-scheduler"),
		"--kwok-controller-binary", opts.bin("kwok"),
		"--etcd-binary", opts.bin("etcd"),
		// Do not add a context to ~/.kube/config; Kubeconfig(opts) is used.
		"--kubeconfig=",
	}
	if dl, ok := ctx.Deadline(); ok {
		args = append(args, "--timeout", time.Until(dl).Round(time.Second).String())
	}
	return kwokctl(ctx, opts, kwokctlEnv(ctx, opts), args...)
}

// writeKwokctlConfig writes the KwokctlConfiguration that carries what
// kwokctl only takes from a config file: every component listens on the
// loopback address (kwokctl's default is 0.0.0.0, which would expose an
// unauthenticated etcd to the network), and kubectl comes from the bin dir.
func writeKwokctlConfig(opts Options) (string, error) {
	path := filepath.Join(filepath.Dir(LogFile(opts)), opts.Name+"-kwokctl.yaml")
	conf := fmt.Sprintf(`kind: KwokctlConfiguration
apiVersion: config.kwok.x-k8s.io/v1alpha1
options:
  bindAddress: 127.0.0.1
  kubectlBinary: %q
`, opts.bin("kubectl"))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", wrapMsg(err, "sandbox.err.config_dir")
	}
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return "", wrapMsg(err, "sandbox.err.config_write")
	}
	return path, nil
}

// kubeVersion asks the kube-apiserver binary for its version ("v1.34.12"),
// so kwokctl's defaults match the binaries. Empty when it cannot tell.
func kubeVersion(ctx context.Context, opts Options) string {
	out, err := exec.CommandContext(ctx, opts.bin("kube-apiserver"), "--version").Output()
	if err != nil {
		return ""
	}
	// "Kubernetes v1.34.12"
	f := strings.Fields(string(out))
	if len(f) == 2 && strings.HasPrefix(f[1], "v") && !strings.HasPrefix(f[1], "v0.0.0") {
		return f[1]
	}
	return ""
}

// kwokctl runs the kwokctl binary for opts.Name. Its output goes to
// LogFile(opts), and also to Progress when opts.Verbose.
func kwokctl(ctx context.Context, opts Options, env []string, args ...string) error {
	logPath := LogFile(opts)
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return wrapMsg(err, "sandbox.err.log_dir")
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return wrapMsg(err, "sandbox.err.log_open")
	}
	defer logf.Close()

	full := append([]string{"--name", opts.Name}, args...)
	fmt.Fprintf(logf, "\n=== %s kwokctl %s\n", time.Now().Format(time.RFC3339), strings.Join(full, " "))

	cmd := exec.CommandContext(ctx, opts.bin("kwokctl"), full...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = nil
	// An *os.File (not a pipe) keeps the detached control-plane processes
	// from holding a pipe of ours open after kwokctl exits.
	if opts.Verbose {
		w := io.MultiWriter(logf, opts.Progress)
		cmd.Stdout, cmd.Stderr = w, w
		cmd.WaitDelay = 5 * time.Second
	} else {
		cmd.Stdout, cmd.Stderr = logf, logf
	}
	keepInheritedFromCluster()
	if err := cmd.Run(); err != nil {
		timeout := ""
		if ctx.Err() != nil {
			timeout = content.Msg("sandbox.fail.timeout", "timeout", opts.Timeout)
		}
		return errors.New(content.Msg("sandbox.fail.kwokctl", "cmd", strings.Join(args[:2], " "), "err", err,
			"timeout", timeout, "log", logPath, "logs", componentLogs(opts)))
	}
	return nil
}
