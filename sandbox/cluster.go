package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// Up starts the sandbox cluster (obtaining missing binaries first when
// opts.Build, see ensureBinaries) and makes sure its fake nodes exist and are
// Ready. It is idempotent: when the cluster already runs it only checks (and
// if needed recreates) the nodes. A stopped cluster that kwokctl still knows
// (e.g. after a reboot) is started again.
func Up(ctx context.Context, opts Options) error {
	opts = opts.withDefaults()
	if err := ensureBinaries(ctx, opts); err != nil {
		return err
	}
	return locked(ctx, opts, func(ctx context.Context, start time.Time) error { return up(ctx, opts, start) })
}

// locked runs fn holding the sandbox's lock, within opts.Timeout of now
// (start): what Up and Down do to a cluster, one at a time.
func locked(ctx context.Context, opts Options, fn func(ctx context.Context, start time.Time) error) error {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	unlock, err := lock(ctx, opts)
	if err != nil {
		return err
	}
	defer unlock()
	return fn(ctx, time.Now())
}

// up is Up's work, under the lock: the control plane, then the lab's
// topology and start objects.
func up(ctx context.Context, opts Options, start time.Time) error {
	if apiReady(ctx, opts) {
		opts.progress("sandbox.up.already_running", "name", opts.quotedName())
	} else if err := startControlPlane(ctx, opts); err != nil {
		return err
	}
	conn, err := Connect(opts)
	if err != nil {
		return err
	}
	if err := waitAPI(ctx, opts); err != nil {
		return err
	}
	opts.progress("sandbox.up.api_ready", "elapsed", since(start))
	if err := prepare(ctx, opts, conn); err != nil {
		return err
	}
	opts.progress("sandbox.up.ready", "elapsed", since(start))
	opts.progress("sandbox.status.kubeconfig", "kubeconfig", Kubeconfig(opts))
	opts.progress("sandbox.status.context", "context", Context(opts))
	opts.progress("sandbox.up.example", "kubeconfig", Kubeconfig(opts))
	return nil
}

// startControlPlane creates the cluster, or starts it again when kwokctl
// still knows it (stopped, e.g. after a reboot), and waits until every
// component of its control plane runs. A component that died is retried
// (at most five launches): a fresh cluster is recreated on new ports, a
// known one started again.
func startControlPlane(ctx context.Context, opts Options) error {
	fresh := !clusterExists(opts)
	launch := createCluster
	if fresh {
		opts.progress("sandbox.up.creating", "name", opts.quotedName(), "bin_dir", opts.BinDir)
	} else {
		launch = startCluster
		opts.progress("sandbox.up.restarting", "name", opts.quotedName())
	}
	if err := launch(ctx, opts); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		err := waitControlPlane(ctx, opts)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errComponentDied) || attempt == 5 {
			return err
		}
		if fresh {
			// Typically a port clash: kwokctl picks free ports when it
			// creates the cluster, and a kwokctl cluster created at the
			// same moment by someone else can take them. Recreating
			// picks new ones.
			opts.progress("sandbox.up.recreating", "err", err)
			if err := kwokctl(ctx, opts, nil, "delete", "cluster", "--kubeconfig", Kubeconfig(opts)); err != nil {
				return err
			}
		} else {
			// kwokctl skips components whose old process was still
			// shutting down; once it is gone, start it again.
			opts.progress("sandbox.up.retrying", "err", err)
		}
		if err := launch(ctx, opts); err != nil {
			return err
		}
	}
}

// prepare makes a running cluster the lab's: claimed for it, its fake
// nodes there and Ready, kube-controller-manager working, and on a cluster
// the lab just claimed, the lab's manifests applied.
func prepare(ctx context.Context, opts Options, conn kube.Conn) error {
	cs, err := conn.Typed()
	if err != nil {
		return err
	}
	fresh, err := claim(ctx, opts, cs)
	if err != nil {
		return err
	}
	if err := ensureNodes(ctx, opts, cs); err != nil {
		return err
	}
	if len(opts.Nodes) > 0 {
		if err := waitNodesReady(ctx, cs, opts.NodeNames()); err != nil {
			return err
		}
		for _, n := range opts.Nodes {
			opts.progress("sandbox.up.node_ready", "node", n.Name, "capacity", capacityText(n.Capacity))
		}
	}
	// The service account controller creating "default" shows that
	// kube-controller-manager works; pods cannot be created before it.
	if err := waitDefaultServiceAccount(ctx, cs, metav1.NamespaceDefault); err != nil {
		return err
	}
	if fresh && len(opts.Manifests) > 0 {
		if err := applyManifests(ctx, conn, opts.Manifests); err != nil {
			return err
		}
		opts.progress("sandbox.up.manifests", "count", objectCount(opts.Manifests), "files", manifestFiles(opts.Manifests))
	}
	return nil
}

// Down stops the sandbox cluster and removes its kwokctl work directory. It
// is a no-op when the cluster does not exist.
func Down(ctx context.Context, opts Options) error {
	opts = opts.withDefaults()
	if !clusterExists(opts) {
		opts.progress("sandbox.down.absent", "name", opts.quotedName())
		return nil
	}
	if err := CheckBinaries(opts); err != nil {
		return err
	}
	return locked(ctx, opts, func(ctx context.Context, start time.Time) error {
		opts.progress("sandbox.down.deleting", "name", opts.quotedName())
		// kwokctl removes the cluster's context from the --kubeconfig file;
		// give it the cluster's own kubeconfig (deleted with the cluster)
		// so that the user's ~/.kube/config is left alone.
		if err := kwokctl(ctx, opts, nil, "delete", "cluster", "--kubeconfig", Kubeconfig(opts)); err != nil {
			return err
		}
		opts.progress("sandbox.down.done", "name", opts.quotedName(), "elapsed", since(start))
		return nil
	})
}

// Connect connects to the sandbox through its kubeconfig (Kubeconfig)
// and nothing else.
func Connect(opts Options) (kube.Conn, error) {
	path := Kubeconfig(opts)
	conn, err := kube.Open(kube.Options{Path: path, Only: true})
	if err != nil {
		return nil, wrapMsg(err, "sandbox.err.kubeconfig", "path", path)
	}
	return conn, nil
}

// readyProbe asks the API server's /readyz through one connection, made
// once the cluster's kubeconfig exists (kwokctl writes it while it
// creates the cluster); a recreated cluster needs a new probe, its ports
// change.
type readyProbe struct {
	opts Options
	conn kube.Conn
}

// ready reports whether the API server answers /readyz within a couple of
// seconds.
func (p *readyProbe) ready(ctx context.Context) bool {
	if p.conn == nil {
		if _, err := os.Stat(Kubeconfig(p.opts)); err != nil {
			return false
		}
		conn, err := Connect(p.opts)
		if err != nil {
			return false
		}
		p.conn = conn.Within(2 * time.Second)
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err := p.conn.Get(ctx, "/readyz")
	return err == nil
}

// apiReady is one readiness probe on a fresh connection.
func apiReady(ctx context.Context, opts Options) bool {
	return (&readyProbe{opts: opts}).ready(ctx)
}

// errComponentDied reports a control-plane process that exited while Up
// waited for it.
var errComponentDied error = msgError("sandbox.component_died")

// controlPlane lists the processes kwokctl starts, by pid file name.
var controlPlane = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok-controller"}

// componentLogs is the directory kwokctl writes the control-plane logs to.
func componentLogs(opts Options) string {
	return filepath.Join(ClusterDir(opts), "logs")
}

// componentDied is errComponentDied naming the dead processes.
func componentDied(opts Options, dead []string) error {
	return fmt.Errorf("%w: %s", errComponentDied,
		content.Msg("sandbox.component_died_detail", "components", strings.Join(dead, ", "), "logs", componentLogs(opts)))
}

// deadComponents returns the control-plane processes whose pid file names a
// process that no longer runs.
func deadComponents(opts Options) []string {
	var dead []string
	for _, name := range controlPlane {
		data, err := os.ReadFile(filepath.Join(ClusterDir(opts), "pids", name+".pid"))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || !processAlive(pid) {
			dead = append(dead, name)
		}
	}
	return dead
}

// waitControlPlane waits until the API server is ready and every
// control-plane process still runs. It returns an error wrapping
// errComponentDied as soon as one of them has exited.
func waitControlPlane(ctx context.Context, opts Options) error {
	var dead []string
	probe := &readyProbe{opts: opts}
	err := poll(ctx, func(ctx context.Context) (bool, error) {
		if dead = deadComponents(opts); len(dead) > 0 {
			return false, componentDied(opts, dead)
		}
		return probe.ready(ctx), nil
	}, func() error { return waitAPI(ctx, opts) })
	if err != nil {
		return err
	}
	// A clash on a controller's own port shows up only after it tried to
	// listen; give the processes a moment and look again.
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
	if dead = deadComponents(opts); len(dead) > 0 {
		return componentDied(opts, dead)
	}
	return nil
}

func waitAPI(ctx context.Context, opts Options) error {
	probe := &readyProbe{opts: opts}
	return poll(ctx, func(ctx context.Context) (bool, error) { return probe.ready(ctx), nil },
		func() error {
			return fmt.Errorf("%w: %s", ErrNotRunning,
				content.Msg("sandbox.api_silent", "kubeconfig", Kubeconfig(opts), "logs", componentLogs(opts)))
		})
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func waitNodesReady(ctx context.Context, cs kube.Interface, names []string) error {
	var notReady []string
	return poll(ctx, func(ctx context.Context) (bool, error) {
		notReady = notReady[:0]
		for _, name := range names {
			n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil || !nodeReady(n) {
				notReady = append(notReady, name)
			}
		}
		return len(notReady) == 0, nil
	}, func() error {
		return errors.New(content.Msg("sandbox.fail.nodes_not_ready", "nodes", strings.Join(notReady, ", ")))
	})
}

func waitDefaultServiceAccount(ctx context.Context, cs kube.Interface, ns string) error {
	return poll(ctx, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	}, func() error {
		return errors.New(content.Msg("sandbox.fail.no_default_sa", "namespace", ns))
	})
}

// poll calls cond at once, then every 100ms until it returns true or an
// error, or ctx ends (then onTimeout's error is returned). A reset waits
// on it several times (namespaces gone, nodes Ready, DaemonSets rolled
// out), each usually a moment: a coarser tick was most of each wait.
func poll(ctx context.Context, cond wait.ConditionWithContextFunc, onTimeout func() error) error {
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, cond)
	if err != nil && wait.Interrupted(err) && ctx.Err() != nil {
		return onTimeout()
	}
	return err
}

func since(t time.Time) time.Duration {
	return time.Since(t).Round(100 * time.Millisecond)
}
