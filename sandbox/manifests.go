package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// A lab may ship objects its sandbox starts with: sandbox/*.yaml in the
// lab's directory, applied in file-name order when `labmate sandbox up
// --lab` claims a sandbox for the lab and every time Reset brings it back
// to the lab's start. After each file, the DaemonSets it holds are waited
// for (their controller has seen the change and every pod it wants is
// Ready), so a later file may change what an earlier one made: a file is a
// moment in the cluster's history.

// ManifestDir is where a lab's sandbox objects live, in its directory;
// CRDDir holds the CustomResourceDefinitions of the custom resources it
// watches, applied (and waited for until established) before them.
const (
	ManifestDir = "sandbox"
	CRDDir      = "crds"
)

// FieldManager is who labmate's server-side applies are from.
const FieldManager = "labmate-sandbox"

// Manifest is one sandbox/*.yaml of a lab: its objects, in order.
type Manifest struct {
	File    string
	Objects []*unstructured.Unstructured
}

// ManifestsOf reads a lab's crds/*.yaml, then its sandbox/*.yaml, each
// sorted by name. A file that is not YAML objects (each with apiVersion,
// kind and a name) is an error naming it: the lab's author fixes it.
func ManifestsOf(lab *content.Lab) ([]Manifest, error) {
	if lab == nil || lab.FS == nil {
		return nil, nil
	}
	crds, _ := fs.Glob(lab.FS, CRDDir+"/*.yaml")
	starts, _ := fs.Glob(lab.FS, ManifestDir+"/*.yaml")
	slices.Sort(crds)
	slices.Sort(starts)
	names := append(crds, starts...)
	var out []Manifest
	for _, name := range names {
		raw, err := fs.ReadFile(lab.FS, name)
		if err != nil {
			return nil, manifestErr(lab, name, err)
		}
		m := Manifest{File: name}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
		for {
			var obj map[string]any
			if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, manifestErr(lab, name, err)
			}
			if len(obj) == 0 {
				continue // an empty document
			}
			u := &unstructured.Unstructured{Object: obj}
			if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
				return nil, manifestErr(lab, name, errors.New("apiVersion, kind, metadata.name"))
			}
			m.Objects = append(m.Objects, u)
		}
		out = append(out, m)
	}
	return out, nil
}

func manifestErr(lab *content.Lab, file string, err error) error {
	return errors.New(content.Msg("sandbox.fail.bad_manifest", "lab", lab.ID, "file", path.Join(lab.Where, file), "err", err))
}

// applyManifests applies each file's objects (server-side apply, labmate
// owning the fields it sets, forced), then waits for the file's
// CustomResourceDefinitions to be established (and learns what they
// serve) and its DaemonSets to be ready before the next file.
func applyManifests(ctx context.Context, conn kube.Conn, ms []Manifest) error {
	if len(ms) == 0 {
		return nil
	}
	cs, err := conn.Typed()
	if err != nil {
		return err
	}
	mapper, err := conn.Mapper()
	if err != nil {
		return err
	}
	for _, m := range ms {
		for _, u := range m.Objects {
			if err := applyOne(ctx, cs, mapper, u); err != nil {
				return wrapMsg(err, "sandbox.err.apply", "file", m.File)
			}
		}
		if crds := m.crds(); len(crds) > 0 {
			if err := waitEstablished(ctx, cs, m.File, crds); err != nil {
				return err
			}
			mapper.Reset() // the next file may be of the kinds they serve
		}
		if err := waitDaemonSets(ctx, cs, m); err != nil {
			return err
		}
	}
	return nil
}

// crds are the names of the file's CustomResourceDefinitions.
func (m Manifest) crds() []string {
	var out []string
	for _, u := range m.Objects {
		if u.GetKind() == "CustomResourceDefinition" && strings.HasPrefix(u.GetAPIVersion(), "apiextensions.k8s.io/") {
			out = append(out, u.GetName())
		}
	}
	return out
}

// waitEstablished waits until the API server serves each CRD: its
// Established condition is True.
func waitEstablished(ctx context.Context, cs kube.Interface, file string, names []string) error {
	var pending []string
	return poll(ctx, func(ctx context.Context) (bool, error) {
		pending = pending[:0]
		for _, name := range names {
			raw, err := cs.Discovery().RESTClient().Get().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name).Do(ctx).Raw()
			var crd struct {
				Status struct {
					Conditions []metav1.Condition `json:"conditions"`
				} `json:"status"`
			}
			if err != nil || json.Unmarshal(raw, &crd) != nil || !meta.IsStatusConditionTrue(crd.Status.Conditions, "Established") {
				pending = append(pending, name)
			}
		}
		return len(pending) == 0, nil
	}, func() error {
		return errors.New(content.Msg("sandbox.fail.crd_wait", "file", file, "objects", strings.Join(pending, ", ")))
	})
}

// mappingOf maps gvk, learning discovery again while the kind is not
// served yet: a CRD's Established condition can come before the API
// server's discovery lists what it serves (seen under load in CI, "no
// matches for kind"). Bounded by kindWait; other errors at once.
func mappingOf(ctx context.Context, mapper meta.ResettableRESTMapper, gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	ctx, cancel := context.WithTimeout(ctx, kindWait)
	defer cancel()
	for {
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err == nil || !meta.IsNoMatchError(err) {
			return mapping, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(100 * time.Millisecond):
		}
		mapper.Reset()
	}
}

// kindWait bounds how long a kind may take to be served after its CRD.
const kindWait = 15 * time.Second

// applyOne server-side applies one object through the API path its kind
// maps to, carrying the last-applied annotation `kubectl apply` keeps:
// so the learner's own `kubectl apply -f` of the object merges with what
// the sandbox made without warning that the annotation is missing, and
// `kubectl apply --server-side` takes over the fields the sandbox set,
// as long as nobody changed them since, without conflicts (the API
// server allows kubectl's conflicts with fields the annotation holds,
// which is the client- to server-side upgrade path).
func applyOne(ctx context.Context, cs kube.Interface, mapper meta.ResettableRESTMapper, u *unstructured.Unstructured) error {
	gvk := u.GroupVersionKind()
	mapping, err := mappingOf(ctx, mapper, gvk)
	if err != nil {
		return err
	}
	body, err := json.Marshal(withLastApplied(u).Object)
	if err != nil {
		return err
	}
	prefix := "/apis/" + gvk.Group + "/" + gvk.Version
	if gvk.Group == "" {
		prefix = "/api/" + gvk.Version
	}
	p := prefix
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := u.GetNamespace()
		if ns == "" {
			ns = metav1.NamespaceDefault
		}
		p += "/namespaces/" + ns
	}
	p += "/" + mapping.Resource.Resource + "/" + u.GetName()
	force := true
	return cs.Discovery().RESTClient().Patch(types.ApplyPatchType).AbsPath(p).
		VersionedParams(&metav1.PatchOptions{FieldManager: FieldManager, Force: &force}, metav1.ParameterCodec).
		Body(body).Do(ctx).Error()
}

// dropChanged deletes each object of ms that Reset would otherwise leave
// as someone changed it (a cluster-scoped object of a kind not wiped, the
// CRDs among them, or one outside the deleted namespaces) and waits until
// they are gone, so applying ms makes them again exactly as declared. A
// server-side apply alone would keep every field another manager set.
// An object is changed when a manager other than labmate's owns a field
// of it (its status aside: controllers write that).
func dropChanged(ctx context.Context, conn kube.Conn, st Start) error {
	dyn, err := conn.Dynamic()
	if err != nil {
		return err
	}
	mapper, err := conn.Mapper()
	if err != nil {
		return err
	}
	var gone []*unstructured.Unstructured
	var gvrs []schema.GroupVersionResource
	for _, m := range st.Manifests {
		for _, u := range m.Objects {
			if u.GetNamespace() != "" && slices.Contains(st.Namespaces, u.GetNamespace()) ||
				u.GetKind() == "Namespace" && slices.Contains(st.Namespaces, u.GetName()) {
				continue // deleted with its namespace
			}
			gvk := u.GroupVersionKind()
			mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil || slices.Contains(st.Wipe, mapping.Resource) {
				continue // not served yet (nothing to restore), or wiped
			}
			ri := dynamic.ResourceInterface(dyn.Resource(mapping.Resource))
			if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
				ri = dyn.Resource(mapping.Resource).Namespace(u.GetNamespace())
			}
			live, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
			if err != nil || !changedByOthers(live) {
				continue
			}
			if err := ri.Delete(ctx, u.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return wrapMsg(err, "sandbox.err.wipe", "resource", mapping.Resource.Resource+"."+mapping.Resource.Group)
			}
			gone, gvrs = append(gone, u), append(gvrs, mapping.Resource)
		}
	}
	var left []string
	return poll(ctx, func(ctx context.Context) (bool, error) {
		left = left[:0]
		for i, u := range gone {
			ri := dynamic.ResourceInterface(dyn.Resource(gvrs[i]))
			if u.GetNamespace() != "" {
				ri = dyn.Resource(gvrs[i]).Namespace(u.GetNamespace())
			}
			if _, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				left = append(left, u.GetKind()+" "+u.GetName())
			}
		}
		return len(left) == 0, nil
	}, func() error {
		return errors.New(content.Msg("sandbox.fail.changed_left", "objects", strings.Join(left, ", "), "timeout", ResetTimeout))
	})
}

// changedByOthers says whether a manager other than labmate's owns a
// field of u outside its status.
func changedByOthers(u *unstructured.Unstructured) bool {
	return slices.ContainsFunc(u.GetManagedFields(), func(f metav1.ManagedFieldsEntry) bool {
		return f.Manager != FieldManager && f.Subresource == ""
	})
}

// maxLastApplied is the largest object given a last-applied annotation
// (kubectl refuses annotations over 256 KiB in all).
const maxLastApplied = 128 << 10

// withLastApplied is u with kubectl's last-applied annotation: u as JSON,
// without that annotation.
func withLastApplied(u *unstructured.Unstructured) *unstructured.Unstructured {
	out := u.DeepCopy()
	ann := out.GetAnnotations()
	delete(ann, corev1.LastAppliedConfigAnnotation)
	if len(ann) == 0 {
		ann = nil
	}
	out.SetAnnotations(ann)
	raw, err := json.Marshal(out.Object)
	if err != nil || len(raw) > maxLastApplied {
		return out
	}
	if ann == nil {
		ann = map[string]string{}
	}
	ann[corev1.LastAppliedConfigAnnotation] = string(raw) + "\n"
	out.SetAnnotations(ann)
	return out
}

// waitDaemonSets waits until every DaemonSet of m has been seen by its
// controller and every pod it wants is Ready.
func waitDaemonSets(ctx context.Context, cs kube.Interface, m Manifest) error {
	var pending []string
	return poll(ctx, func(ctx context.Context) (bool, error) {
		pending = pending[:0]
		for _, u := range m.Objects {
			if u.GetKind() != "DaemonSet" || !strings.HasPrefix(u.GetAPIVersion(), "apps/") {
				continue
			}
			ds, err := cs.AppsV1().DaemonSets(u.GetNamespace()).Get(ctx, u.GetName(), metav1.GetOptions{})
			if err != nil || ds.Status.ObservedGeneration < ds.Generation || ds.Status.NumberReady < ds.Status.DesiredNumberScheduled {
				pending = append(pending, fmt.Sprintf("%s/%s", u.GetNamespace(), u.GetName()))
			}
		}
		return len(pending) == 0, nil
	}, func() error {
		return errors.New(content.Msg("sandbox.fail.manifest_wait", "file", m.File, "objects", strings.Join(pending, ", ")))
	})
}

func objectCount(ms []Manifest) int {
	n := 0
	for _, m := range ms {
		n += len(m.Objects)
	}
	return n
}

func manifestFiles(ms []Manifest) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = path.Base(m.File)
	}
	return strings.Join(names, ", ")
}
