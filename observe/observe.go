// Package observe defines what labmate can observe about a lab: files on
// disk, live cluster objects, script runs and the cluster connection, and
// the Source contract every producer of observations (fsnotify watcher,
// informers, replayed trace) implements.
//
// Nothing here knows about steps: a source is told which paths or objects
// to look at and reports what it sees. Deciding what that means is the job
// of package checks.
package observe

import (
	"context"
	"io/fs"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// Source produces observations until ctx is cancelled. It must send the
// initial state of everything it observes, then a Synced observation
// carrying its name, then changes as they happen. Run must recover its own
// panics and return them as errors.
type Source interface {
	Name() string
	Run(ctx context.Context, out chan<- Observation) error
}

// Observation is one thing a source saw at a point in time. Exactly one of
// the pointer fields is set.
type Observation struct {
	Time    time.Time   `json:"time"`
	File    *FileObs    `json:"file,omitempty"`
	Object  *ObjectObs  `json:"object,omitempty"`
	Script  *ScriptObs  `json:"script,omitempty"`
	Cluster *ClusterObs `json:"cluster,omitempty"`
	Synced  *SyncedObs  `json:"synced,omitempty"`
}

// FileState says what a path looked like when it was read.
type FileState string

const (
	FilePresent    FileState = "present"    // a regular file, Content holds it
	FileMissing    FileState = "missing"    // nothing at the path
	FileIsDir      FileState = "dir"        // a directory where a file should be
	FileUnreadable FileState = "unreadable" // exists but could not be read (Err says why)
	FileTooLarge   FileState = "too-large"  // larger than MaxFileSize; Content is empty
)

// MaxFileSize caps how much of a learner's file labmate reads. Lab files are
// a few kilobytes; anything larger is reported, not parsed.
const MaxFileSize = 1 << 20

// FileObs is the state of one lab file. Path is relative to the lab root,
// slash-separated.
type FileObs struct {
	Path    string      `json:"path"`
	State   FileState   `json:"state"`
	Content []byte      `json:"content,omitempty"`
	Size    int64       `json:"size"`
	Mode    fs.FileMode `json:"mode"`
	Err     string      `json:"err,omitempty"`
}

// Op is what happened to a cluster object.
type Op string

const (
	OpUpsert Op = "upsert"
	OpDelete Op = "delete"
)

// ObjectObs is one cluster object as an informer delivered it. Kind is the
// API kind ("Node", "Pod", a custom resource's kind). Object is the typed
// client-go object (*corev1.Node, ...) for Kubernetes' own kinds, an
// *unstructured.Unstructured for custom resources; it is treated as
// immutable once observed.
type ObjectObs struct {
	Op        Op             `json:"op"`
	Kind      string         `json:"kind"`
	Namespace string         `json:"namespace,omitempty"`
	Name      string         `json:"name"`
	Object    runtime.Object `json:"-"`
}

// ClusterState is how far the cluster source got.
type ClusterState string

const (
	ClusterOff         ClusterState = "off"         // no kubeconfig / not configured
	ClusterConnecting  ClusterState = "connecting"  // reachable, caches not yet synced
	ClusterSynced      ClusterState = "synced"      // caches synced, watching
	ClusterUnreachable ClusterState = "unreachable" // probe failed; cached data is stale
	// ClusterError: the server answered but refused a list or watch for
	// good (401, 403, or 404 for a resource type it does not serve), so
	// the caches will not fill or follow. ClusterObs.Refusals lists them;
	// Err words them for people and logs, one entry per refusal,
	// sorted and joined by "; ", each
	//   <verb> <resource>[.<group>][ in <namespace>]: <code> <reason> (<server message>)
	// e.g. `list daemonsets.apps in gpu-operator: 403 Forbidden (...)`.
	// The source retries by itself and leaves this state when it may read.
	ClusterError ClusterState = "error"
)

// FailedSchedulingReason is the event reason the cluster source watches
// when the lab names none ([cluster] event_reasons): the scheduler's
// account of why a pod did not fit.
const FailedSchedulingReason = "FailedScheduling"

// ClusterDisabled is ClusterObs.Err with State ClusterOff when the user
// turned the cluster off (--no-cluster), as opposed to no kubeconfig.
const ClusterDisabled = "disabled"

// Refusal is one list or watch the server refused for good (see
// ClusterError): the structured form of one entry of ClusterObs.Err.
type Refusal struct {
	Verb      string `json:"verb"`                // "list" or "watch"
	Resource  string `json:"resource"`            // "pods", "daemonsets.apps", ...
	Namespace string `json:"namespace,omitempty"` // "" for cluster-scoped
	Code      int32  `json:"code"`                // 401, 403 or 404
}

// ClusterObs reports the cluster connection.
type ClusterObs struct {
	State   ClusterState `json:"state"`
	Server  string       `json:"server,omitempty"`
	Context string       `json:"context,omitempty"`
	Version string       `json:"version,omitempty"`
	Err     string       `json:"err,omitempty"`
	// Cause is why, by the error's type, when it is a common reason:
	// a learner reads it in Korean, Err keeps the client's own words for
	// logs and traces.
	Cause ClusterCause `json:"cause,omitempty"`
	// Refusals, with State ClusterError, are the refusals Err words,
	// sorted as Err lists them.
	Refusals []Refusal `json:"refusals,omitempty"`
	// Missing are resources the lab watches that the server does not
	// serve (a CRD not installed): not watched, in any state.
	Missing []Missing `json:"missing,omitempty"`
}

// Missing is a resource a lab watches that the cluster does not serve.
type Missing struct {
	Resource string `json:"resource"` // kubectl's spelling: "widgets.example.com"
	Kind     string `json:"kind"`
}

// ClusterCause is why the cluster could not be reached or read, one of
// kube's Cause values: "refused", "timeout", "dns", "tls",
// "unauthorized", "forbidden".
type ClusterCause string

// SyncedObs says a source has delivered its initial state.
type SyncedObs struct {
	Source string `json:"source"`
}
