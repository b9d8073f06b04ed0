// Package sandbox runs the labmate lab cluster on the local machine: a real
// Kubernetes 1.34 control plane (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler) plus the kwok controller, started by kwokctl's binary
// runtime, with the fake nodes of a lab's topology (its lab.toml's
// [[sandbox.nodes]]) that kwok keeps Ready and whose pods it marks Running.
//
// Every binary comes from upstream's own release builds (package
// prebuilt: downloaded and checked, or from a mirror or a bundle), or from
// Build (`labmate sandbox build`), which builds them from the Go module
// proxy with the recipe embedded in labmate (hack/cluster); either way
// into DefaultBinDir(). kwokctl is pointed at them explicitly so it never
// tries to download anything.
//
// Messages written to Options.Progress and the text of the errors meant for
// the user are Korean, since `labmate sandbox` prints them as they are; they
// live in content/ui-sandbox.toml under sandbox.*.
package sandbox

import (
	"github.com/labhub/labmate/internal/dirs"
	"github.com/labhub/labmate/sandbox/prebuilt"

	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/hack/cluster"
)

const (
	// DefaultName is the kwokctl cluster name used when Options.Name is empty.
	DefaultName = "labmate"

	// EnvBinDir names the environment variable that overrides the bin dir.
	EnvBinDir = "LABMATE_CLUSTER_BIN"

	// BinDirFlag is the `labmate sandbox` flag that overrides the bin dir; it
	// is quoted in the missing-binaries message.
	BinDirFlag = "--bin-dir"

	// BuildCommand is the command that builds the binaries.
	BuildCommand = "labmate sandbox build"

	// KwokNodeAnnotation marks a node as managed by the kwok controller.
	KwokNodeAnnotation = "kwok.x-k8s.io/node"
	// KwokNodeLabel is the label key put on the fake nodes, with value "kwok".
	KwokNodeLabel = "type"

	// DefaultTimeout bounds Up when Options.Timeout is zero.
	DefaultTimeout = 3 * time.Minute

	// kwokctl's own prefix for context and cluster names in its kubeconfig.
	kwokContextPrefix = "kwok-"
)

// Binaries lists the executables that must be present in the bin dir.
var Binaries = []string{
	"kwokctl",
	"kwok",
	"etcd",
	"kube-apiserver",
	"kube-controller-manager",
	"kube-scheduler",
	"kubectl",
}

// Options configures Up, Down and Status. The zero value is usable.
type Options struct {
	// BinDir holds the binaries listed in Binaries. Empty means
	// $LABMATE_CLUSTER_BIN, or DefaultBinDir() when that is unset.
	BinDir string

	// Name is the kwokctl cluster name. Empty means DefaultName.
	Name string

	// Progress receives one-line Korean progress messages. nil discards them.
	Progress io.Writer

	// Verbose copies kwokctl's own output to Progress as well; it always goes
	// to LogFile().
	Verbose bool

	// Timeout bounds how long Up waits for the cluster and its nodes. Zero
	// means DefaultTimeout.
	Timeout time.Duration

	// Build lets Up obtain missing binaries first: from From, else
	// upstream's release builds where upstream ships them (Linux amd64 and
	// arm64, package prebuilt), else the source build (see Build) when go
	// is on PATH; otherwise, and without Build, Up fails with
	// *MissingBinariesError, which lists every way out.
	Build bool

	// From is where Up installs missing binaries from: a mirror with
	// upstream's URL layout (a URL or a directory) or a bundle (a file or
	// a URL); empty means $LABMATE_SANDBOX_MIRROR, else upstream.
	From string
	// SHA256 is the digest the learner gave for a bundle From names
	// (--sha256): the bundle's own sha256, which vouches for its files.
	SHA256 string

	// Lab is the lab the sandbox is for; Up records it in the cluster
	// (Marker) and refuses a cluster made for another lab.
	Lab string
	// Nodes are the fake nodes Up creates (a lab's topology, NodesOf);
	// none for a cluster without lab nodes (a class cluster).
	Nodes []NodeSpec
	// Manifests are the objects the lab's sandbox starts with
	// (ManifestsOf), applied when Up claims the sandbox for the lab.
	Manifests []Manifest
}

// NodeSpec is one fake node of a lab's topology.
type NodeSpec struct {
	Name string
	// Capacity is the node's capacity and allocatable.
	Capacity corev1.ResourceList
	Labels   map[string]string
	Taints   []corev1.Taint
}

// NodesOf is a lab's topology as NodeSpecs. A quantity or taint effect it
// cannot read is an error naming it (the lab's author fixes lab.toml).
func NodesOf(lab *content.Lab) ([]NodeSpec, error) {
	var out []NodeSpec
	for _, g := range lab.Sandbox.Nodes {
		rl := corev1.ResourceList{}
		for k, v := range g.Capacity {
			q, err := resource.ParseQuantity(v)
			if err != nil {
				return nil, errors.New(content.Msg("sandbox.err.bad_quantity", "lab", lab.ID, "resource", k, "value", v))
			}
			rl[corev1.ResourceName(k)] = q
		}
		var taints []corev1.Taint
		for _, t := range g.Taints {
			switch e := corev1.TaintEffect(t.Effect); e {
			case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
				taints = append(taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: e})
			default:
				return nil, errors.New(content.Msg("sandbox.err.bad_taint", "lab", lab.ID, "effect", t.Effect))
			}
		}
		for _, name := range g.Names {
			out = append(out, NodeSpec{Name: name, Capacity: rl.DeepCopy(), Labels: maps.Clone(g.Labels), Taints: slices.Clone(taints)})
		}
	}
	return out, nil
}

// DefaultBinDir is where Build puts the binaries when
// LABMATE_CLUSTER_BIN is unset: ${XDG_CACHE_HOME:-$HOME/.cache}/labmate/cluster/v1.34.
func DefaultBinDir() string {
	return filepath.Join(cacheHome(), "labmate", "cluster", "v1.34")
}

// cacheHome mirrors the shell's ${XDG_CACHE_HOME:-$HOME/.cache}, so that the
// Go side and scripts/cluster-bins.sh agree on every platform.
func cacheHome() string { return dirs.Cache() }

// withDefaults returns o with every empty field filled in.
func (o Options) withDefaults() Options {
	if o.BinDir == "" {
		o.BinDir = os.Getenv(EnvBinDir)
	}
	if o.BinDir == "" {
		o.BinDir = DefaultBinDir()
	}
	if abs, err := filepath.Abs(o.BinDir); err == nil {
		o.BinDir = abs
	}
	if o.Name == "" {
		o.Name = DefaultName
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o
}

// kwokWorkdir is kwokctl's work directory: $KWOK_WORKDIR or ~/.kwok.
func kwokWorkdir() string { return dirs.KwokWorkdir() }

// ClusterDir is the directory kwokctl keeps the cluster in
// (~/.kwok/clusters/<name>).
func ClusterDir(opts Options) string {
	return filepath.Join(kwokWorkdir(), "clusters", opts.withDefaults().Name)
}

// Kubeconfig is the path of the kubeconfig that kwokctl writes for the
// cluster: ~/.kwok/clusters/<name>/kubeconfig.yaml (or under $KWOK_WORKDIR).
// The user's ~/.kube/config is never touched.
func Kubeconfig(opts Options) string {
	return filepath.Join(ClusterDir(opts), "kubeconfig.yaml")
}

// Context is the context name inside Kubeconfig(opts): "kwok-<name>", which
// is also its current-context.
func Context(opts Options) string {
	return kwokContextPrefix + opts.withDefaults().Name
}

// LogFile is where kwokctl's output goes:
// ${XDG_CACHE_HOME:-$HOME/.cache}/labmate/sandbox/<name>-kwokctl.log. The
// control-plane components log under ClusterDir(opts)/logs.
func LogFile(opts Options) string {
	return filepath.Join(cacheHome(), "labmate", "sandbox", opts.withDefaults().Name+"-kwokctl.log")
}

// NodeNames returns the names of the fake nodes Up creates.
func (o Options) NodeNames() []string {
	names := make([]string, len(o.Nodes))
	for i, n := range o.Nodes {
		names[i] = n.Name
	}
	return names
}

// MissingBinariesError reports binaries that are not in the bin dir. Its
// message (Korean) lists every way to get them on this machine: the
// download, a mirror, a bundle, the source build, pointing labmate at
// them, and on macOS what works there.
type MissingBinariesError struct {
	BinDir  string
	Missing []string
	// Tried is the download that was tried and failed for want of a
	// network (a *prebuilt.NetworkError), nil when none was tried.
	Tried error
}

func (e *MissingBinariesError) Error() string {
	command := BuildCommand
	if e.BinDir != DefaultBinDir() {
		command = BuildCommand + " " + BinDirFlag + " " + e.BinDir
	}
	goHint := content.Msg("sandbox.go_found")
	if _, err := exec.LookPath("go"); err != nil {
		goHint = content.Msg("sandbox.go_missing", "go_version", cluster.GoVersion())
	}
	download := content.Msg("sandbox.ways.download")
	if !prebuilt.Supported(runtime.GOOS, runtime.GOARCH) {
		download = content.Msg("sandbox.ways.no_download", "platform", runtime.GOOS+"/"+runtime.GOARCH)
	}
	tried := ""
	var ne *prebuilt.NetworkError
	if errors.As(e.Tried, &ne) {
		tried = content.Msg("sandbox.ways.tried", "url", ne.URL, "err", ne.Cause())
	}
	mac := ""
	if runtime.GOOS == "darwin" {
		mac = content.Msg("sandbox.ways.macos")
	}
	return content.Msg("sandbox.missing_binaries",
		"missing", strings.Join(e.Missing, ", "), "bin_dir", e.BinDir, "tried", tried, "download", download,
		"mirror_env", prebuilt.EnvMirror, "command", command, "go_version", cluster.GoVersion(), "go", goHint,
		"macos", mac, "default_dir", DefaultBinDir(), "env", EnvBinDir, "flag", BinDirFlag)
}

// from is where missing binaries are installed from: From, else
// $LABMATE_SANDBOX_MIRROR ("" for upstream).
func (o Options) from() string {
	if o.From != "" {
		return o.From
	}
	return os.Getenv(prebuilt.EnvMirror)
}

// ErrNotRunning is returned (wrapped) when the sandbox is expected to be up
// but its API server does not answer.
var ErrNotRunning error = msgError("sandbox.not_running")

// msgError is an error whose Korean text is looked up when it is printed,
// not at package init: a package-level errors.New(content.Msg(...)) would
// parse every message file at start-up of every command.
type msgError string

func (e msgError) Error() string { return content.Msg(string(e)) }

// CheckBinaries returns a *MissingBinariesError when any of Binaries is
// missing from the bin dir (or is not executable), nil otherwise.
func CheckBinaries(opts Options) error {
	opts = opts.withDefaults()
	var missing []string
	for _, name := range Binaries {
		fi, err := os.Stat(filepath.Join(opts.BinDir, name))
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return &MissingBinariesError{BinDir: opts.BinDir, Missing: missing}
	}
	return nil
}

// bin is the path of one binary in the bin dir.
func (o Options) bin(name string) string {
	return filepath.Join(o.BinDir, name)
}

// progress writes one progress line: the message key with its placeholders
// filled from kv.
func (o Options) progress(key string, kv ...any) {
	fmt.Fprintln(o.Progress, content.Msg(key, kv...))
}

// quotedName is the cluster name as the messages show it: "labmate".
func (o Options) quotedName() string {
	return strconv.Quote(o.Name)
}

// wrapMsg puts the message key (with kv filled in) in front of err, which
// stays reachable through errors.Is and errors.As.
func wrapMsg(err error, key string, kv ...any) error {
	return fmt.Errorf("%s: %w", content.Msg(key, kv...), err)
}

// ResolvedBinDir is the bin dir opts use once defaults are applied.
func (o Options) ResolvedBinDir() string { return o.withDefaults().BinDir }
