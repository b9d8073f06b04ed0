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

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"github.com/labhub/labmate/content"
)

// A lab may ship objects its sandbox starts with: sandbox/*.yaml in the
// lab's directory, applied in file-name order when `labmate sandbox up
// --lab` claims a sandbox for the lab and every time Reset brings it back
// to the lab's start. After each file, the DaemonSets it holds are waited
// for (their controller has seen the change and every pod it wants is
// Ready), so a later file may change what an earlier one made: a file is a
// moment in the cluster's history.

// ManifestDir is where a lab's sandbox objects live, in its directory.
const ManifestDir = "sandbox"

// FieldManager is who labmate's server-side applies are from.
const FieldManager = "labmate-sandbox"

// Manifest is one sandbox/*.yaml of a lab: its objects, in order.
type Manifest struct {
	File    string
	Objects []*unstructured.Unstructured
}

// ManifestsOf reads a lab's sandbox/*.yaml, sorted by name. A file that
// is not YAML objects (each with apiVersion, kind and a name) is an error
// naming it: the lab's author fixes it.
func ManifestsOf(lab *content.Lab) ([]Manifest, error) {
	if lab == nil || lab.FS == nil {
		return nil, nil
	}
	names, _ := fs.Glob(lab.FS, ManifestDir+"/*.yaml")
	slices.Sort(names)
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
// DaemonSets before the next file.
func applyManifests(ctx context.Context, cs kubernetes.Interface, ms []Manifest) error {
	if len(ms) == 0 {
		return nil
	}
	groups, err := restmapper.GetAPIGroupResources(cs.Discovery())
	if err != nil {
		return wrapMsg(err, "sandbox.err.apply", "file", ms[0].File)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	for _, m := range ms {
		for _, u := range m.Objects {
			if err := applyOne(ctx, cs, mapper, u); err != nil {
				return wrapMsg(err, "sandbox.err.apply", "file", m.File)
			}
		}
		if err := waitDaemonSets(ctx, cs, m); err != nil {
			return err
		}
	}
	return nil
}

// applyOne server-side applies one object through the API path its kind
// maps to.
func applyOne(ctx context.Context, cs kubernetes.Interface, mapper meta.RESTMapper, u *unstructured.Unstructured) error {
	gvk := u.GroupVersionKind()
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return err
	}
	body, err := json.Marshal(u.Object)
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

// waitDaemonSets waits until every DaemonSet of m has been seen by its
// controller and every pod it wants is Ready.
func waitDaemonSets(ctx context.Context, cs kubernetes.Interface, m Manifest) error {
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
