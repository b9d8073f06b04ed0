// Package trace records what labmate observed into a file and plays such a
// file back as an observe.Source, so a session (or the built-in reference
// run) can be watched again without a cluster.
//
// A trace is JSON Lines: a header line, then one record per observation
// the engine applied, in order. docs/TRACE.md is the format's reference;
// this file is its implementation and must change with it.
//
// Replay never runs anything taken from a trace: script runs are replayed
// as the results that were recorded.
package trace

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/labhub/labmate/observe"
)

// Format is the header's "format" value.
const Format = "labmate-trace"

// Version is the format version this package writes, and the newest it
// reads. Bump it when a change would make an older reader replay a trace
// wrongly (rather than merely skip something it does not know).
//
// Version 2: script records carry the run's typed failure (`failure`),
// its sandbox, its traps and its time limit; step 4 has a third scenario.
// Version 1 traces are still read: a labmate-side failure is rebuilt
// from start_err (see v1Failure).
//
// Version 3: traps are named for what they are (`opened`, `called`, no
// longer `config_opened`, `abs_calls`); the script's own start failure
// is typed (`start`); the run's system-call filter (`seccomp`, `denied`)
// and memory (`memory`) are recorded. Older traces are read with their
// trap names, and `start` rebuilt from start_err (see oldStart).
const Version = 3

// Header is the first line of a trace.
type Header struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Lab     string    `json:"lab"`
	Root    string    `json:"root"`
	Started time.Time `json:"started"`
	Labmate string    `json:"labmate,omitempty"` // version of the labmate that wrote it
}

// Record kinds: one per pointer field of observe.Observation.
const (
	KindFile    = "file"
	KindObject  = "object"
	KindScript  = "script"
	KindCluster = "cluster"
	KindSynced  = "synced"
)

// line is one record as it is written: when it happened (offset from the
// header's start, and absolute), what kind it is, and the payload whose
// shape the kind decides.
type line struct {
	AtMS int64           `json:"at_ms"`
	Time time.Time       `json:"time"`
	Kind string          `json:"kind"`
	Data json.RawMessage `json:"data"`
}

// The payloads. They mirror the observe types field by field, with their
// own JSON names, so the file format does not move when observe's JSON
// tags do.

type fileData struct {
	Path    string `json:"path"`
	State   string `json:"state"`
	Content []byte `json:"content,omitempty"` // base64
	Size    int64  `json:"size"`
	Mode    uint32 `json:"mode"` // io/fs.FileMode bits, type bits included
	Err     string `json:"err,omitempty"`
}

type objectData struct {
	Op        string          `json:"op"`
	Kind      string          `json:"kind"`
	Namespace string          `json:"namespace,omitempty"`
	Name      string          `json:"name"`
	Object    json.RawMessage `json:"object,omitempty"` // with apiVersion and kind
}

type scriptData struct {
	Script     string     `json:"script"`
	ContentSHA string     `json:"content_sha"`
	Scenario   string     `json:"scenario"`
	ExitCode   int        `json:"exit_code"`
	TimedOut   bool       `json:"timed_out,omitempty"`
	StartErr   string     `json:"start_err,omitempty"`
	FakeArgv   [][]string `json:"fake_argv"`
	Output     string     `json:"output"`
	Truncated  bool       `json:"truncated,omitempty"`
	DurationMS float64    `json:"duration_ms"`
	Internal   bool       `json:"internal,omitempty"` // labmate's own failure, not the script's
	// Version 2.
	Failure *observe.ScriptFailure `json:"failure,omitempty"`
	Sandbox string                 `json:"sandbox,omitempty"`
	Traps   *trapsData             `json:"traps,omitempty"`
	LimitMS float64                `json:"limit_ms,omitempty"`
	// Version 3.
	Start   *startData  `json:"start,omitempty"`
	Seccomp string      `json:"seccomp,omitempty"`
	Denied  []string    `json:"denied,omitempty"`
	Memory  *memoryData `json:"memory,omitempty"`
}

type trapsData struct {
	Opened []string `json:"opened,omitempty"`
	Called []string `json:"called,omitempty"`
	// Version 2's names, read only.
	ConfigOpened []string `json:"config_opened,omitempty"`
	AbsCalls     []string `json:"abs_calls,omitempty"`
}

type startData struct {
	Errno     string `json:"errno,omitempty"`
	NoExecBit bool   `json:"no_exec_bit,omitempty"`
}

type memoryData struct {
	Limit   int64 `json:"limit"`
	Peak    int64 `json:"peak,omitempty"`
	Refused bool  `json:"refused,omitempty"`
}

type clusterData struct {
	State    string            `json:"state"`
	Server   string            `json:"server,omitempty"`
	Context  string            `json:"context,omitempty"`
	Version  string            `json:"version,omitempty"`
	Err      string            `json:"err,omitempty"`
	Refusals []observe.Refusal `json:"refusals,omitempty"`
}

type syncedData struct {
	Source string `json:"source"`
}

// encode turns an observation into one trace line, newline included.
func encode(o observe.Observation, started time.Time) ([]byte, error) {
	l := line{AtMS: o.Time.Sub(started).Milliseconds(), Time: o.Time.Round(0)}
	var payload any
	switch {
	case o.File != nil:
		f := o.File
		l.Kind = KindFile
		payload = fileData{Path: f.Path, State: string(f.State), Content: f.Content, Size: f.Size, Mode: uint32(f.Mode), Err: f.Err}
	case o.Object != nil:
		ob := o.Object
		l.Kind = KindObject
		d := objectData{Op: string(ob.Op), Kind: ob.Kind, Namespace: ob.Namespace, Name: ob.Name}
		if ob.Object != nil {
			raw, err := encodeObject(ob.Object)
			if err != nil {
				return nil, fmt.Errorf("%s %s/%s: %w", ob.Kind, ob.Namespace, ob.Name, err)
			}
			d.Object = raw
		}
		payload = d
	case o.Script != nil:
		l.Kind = KindScript
		payload = encodeScript(o.Script)
	case o.Cluster != nil:
		c := o.Cluster
		l.Kind = KindCluster
		payload = clusterData{State: string(c.State), Server: c.Server, Context: c.Context, Version: c.Version, Err: c.Err, Refusals: c.Refusals}
	case o.Synced != nil:
		l.Kind = KindSynced
		payload = syncedData{Source: o.Synced.Source}
	default:
		return nil, fmt.Errorf("empty observation")
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	l.Data = raw
	b, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// encodeObject serialises a typed client-go object with its apiVersion and
// kind (informers hand objects out without them). The object is copied,
// never written to: other goroutines may be reading it.
func encodeObject(obj runtime.Object) (json.RawMessage, error) {
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return nil, fmt.Errorf("object type %T is not known to the client-go scheme: %v", obj, err)
	}
	cp := obj.DeepCopyObject()
	cp.GetObjectKind().SetGroupVersionKind(gvks[0])
	return json.Marshal(cp)
}

// errUnknownKind marks a record kind this reader does not know.
type errUnknownKind struct{ kind string }

func (e errUnknownKind) Error() string { return "unknown record kind " + e.kind }

// decode turns a record's payload back into an observation.
func decode(l line, version int) (observe.Observation, error) {
	o := observe.Observation{Time: l.Time}
	// Unknown fields are ignored: adding one is how a version grows.
	into := func(v any) error { return json.Unmarshal(l.Data, v) }
	if len(l.Data) == 0 || string(l.Data) == "null" {
		return o, fmt.Errorf("no data")
	}
	switch l.Kind {
	case KindFile:
		var d fileData
		if err := into(&d); err != nil {
			return o, err
		}
		if d.Path == "" {
			return o, fmt.Errorf("file record without a path")
		}
		o.File = &observe.FileObs{Path: d.Path, State: observe.FileState(d.State), Content: d.Content, Size: d.Size, Mode: fs.FileMode(d.Mode), Err: d.Err}
	case KindObject:
		var d objectData
		if err := into(&d); err != nil {
			return o, err
		}
		if d.Kind == "" || d.Name == "" {
			return o, fmt.Errorf("object record without kind or name")
		}
		op := observe.Op(d.Op)
		if op != observe.OpUpsert && op != observe.OpDelete {
			return o, fmt.Errorf("object record with op %q", d.Op)
		}
		ob := &observe.ObjectObs{Op: op, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}
		if len(d.Object) > 0 && string(d.Object) != "null" {
			obj, err := decodeObject(d.Object)
			if err != nil {
				return o, err
			}
			ob.Object = obj
		} else if op == observe.OpUpsert {
			return o, fmt.Errorf("upsert of %s %s without the object", d.Kind, d.Name)
		}
		o.Object = ob
	case KindScript:
		var d scriptData
		if err := into(&d); err != nil {
			return o, err
		}
		if d.Script == "" {
			return o, fmt.Errorf("script record without a script path")
		}
		o.Script = decodeScript(d, version)
	case KindCluster:
		var d clusterData
		if err := into(&d); err != nil {
			return o, err
		}
		o.Cluster = &observe.ClusterObs{State: observe.ClusterState(d.State), Server: d.Server, Context: d.Context, Version: d.Version, Err: d.Err, Refusals: d.Refusals}
	case KindSynced:
		var d syncedData
		if err := into(&d); err != nil {
			return o, err
		}
		if d.Source == "" {
			return o, fmt.Errorf("synced record without a source")
		}
		o.Synced = &observe.SyncedObs{Source: d.Source}
	default:
		return o, errUnknownKind{l.Kind}
	}
	return o, nil
}

// decodeObject turns recorded JSON back into a typed object, or an
// unstructured one for a kind the client-go scheme does not know. Like
// objects from informers, the result carries no apiVersion/kind.
func decodeObject(raw []byte) (runtime.Object, error) {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &tm); err != nil {
		return nil, err
	}
	if tm.APIVersion == "" || tm.Kind == "" {
		return nil, fmt.Errorf("object without apiVersion or kind")
	}
	gv, err := schema.ParseGroupVersion(tm.APIVersion)
	if err != nil {
		return nil, err
	}
	gvk := gv.WithKind(tm.Kind)
	if !scheme.Scheme.Recognizes(gvk) {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return nil, err
		}
		return u, nil
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(raw, nil, nil)
	if err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return obj, nil
}
