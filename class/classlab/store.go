// Package classlab is the class's lab on its way: the instructor stores
// a packed lab in the class namespace (StoreLab, PushLab, packed by
// PackRef), a learner's labmate fetches, checks and installs it (Use)
// and installs each new version while it runs (WatchInstalled).
package classlab

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// StoreLab puts the lab in the class namespace, replacing the one there
// (server-side apply, InitFieldManager): its archive, or for a built-in
// lab (a.Builtin) its name alone. The digest is computed here from the
// bytes, never taken from the caller.
func StoreLab(ctx context.Context, cs kube.Interface, ns string, a class.LabArchive) (class.LabArchive, error) {
	if err := a.Check(); err != nil {
		return class.LabArchive{}, err
	}
	obj := corev1ac.ConfigMap(class.LabObject, ns).
		WithLabels(map[string]string{class.LabelClass: "true", class.LabelClassLab: "true", class.LabelLab: a.ID})
	if a.Builtin {
		// Fields this manager applied before and leaves out now (an
		// archive, its digest) are removed by the apply.
		obj.WithAnnotations(map[string]string{class.AnnotationLabID: a.ID, class.AnnotationLabVersion: a.Version, class.AnnotationLabBuiltin: "true"})
	} else {
		a = class.NewLabArchive(a.ID, a.Version, a.Bytes)
		obj.WithAnnotations(map[string]string{class.AnnotationLabID: a.ID, class.AnnotationLabVersion: a.Version, class.AnnotationLabSum: a.Sum}).
			WithBinaryData(map[string][]byte{class.LabArchiveKey: a.Bytes})
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Apply(ctx, obj, metav1.ApplyOptions{FieldManager: class.InitFieldManager, Force: true}); err != nil {
		return class.LabArchive{}, err
	}
	return a, nil
}

// FetchLab reads the class's lab and checks its bytes against its digest
// (a built-in lab the class names comes back Builtin, without bytes).
// No lab object, or no right to read one, is ErrNoLab.
func FetchLab(ctx context.Context, cs kube.Interface, ns string) (class.LabArchive, error) {
	o, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, class.LabObject, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
		return class.LabArchive{}, fmt.Errorf("%w: %w", class.ErrNoLab, err)
	}
	if err != nil {
		return class.LabArchive{}, err
	}
	return class.ReadLabObject(o)
}

// LabOtherID refuses a push of another lab than the class carries: the
// learners' record objects and Roles name the class's lab, so another lab
// needs `class init --lab`.
type LabOtherID struct{ Have, Got string }

func (e LabOtherID) Error() string {
	return content.Msg("class.lab.push_other_id", "have", e.Have, "got", e.Got)
}

// PushLab replaces the class's lab mid-workshop with a new copy of the
// same lab (its ID), which learners' watches then see. same is true when
// the class already carries exactly these bytes (nothing is written). A
// class with no lab is ErrNoLab. The lab there need not verify: a push
// is how a damaged one is repaired.
func PushLab(ctx context.Context, cs kube.Interface, ns string, a class.LabArchive) (stored class.LabArchive, same bool, err error) {
	if len(a.Bytes) > class.MaxLabBytes {
		return class.LabArchive{}, false, class.LabTooBig{Size: len(a.Bytes)}
	}
	o, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, class.LabObject, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return class.LabArchive{}, false, fmt.Errorf("%w: %w", class.ErrNoLab, err)
	}
	if err != nil {
		return class.LabArchive{}, false, err
	}
	if have := class.LabMeta(o).ID; have != a.ID {
		return class.LabArchive{}, false, LabOtherID{Have: have, Got: a.ID}
	}
	if cur, err := class.ReadLabObject(o); err == nil && cur.Sum == class.Digest(a.Bytes) && cur.Version == a.Version {
		return cur, true, nil
	}
	stored, err = StoreLab(ctx, cs, ns, a)
	return stored, false, err
}
