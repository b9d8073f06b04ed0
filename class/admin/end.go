package admin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// Ending a class deletes what init made in its namespace: every
// learner's ServiceAccount (which ends their bound tokens at once: the
// API server checks the account behind each token), Role, RoleBinding
// and token Secret, every record, the board's acknowledgements of raised
// hands, the class object and the lab object.
// The namespace stays: init may have found it there, and a namespace's
// admin cannot delete it anyway.

// EndPlan is what ending a class deletes.
type EndPlan struct {
	Namespace string
	// Learners are the slots whose accounts go; Records the record
	// objects, Joined how many of them a learner's labmate wrote to.
	Learners []string
	Records  []string
	Joined   int
	// Acks are the board's acknowledgement objects.
	Acks []string
	// Info and Lab: the class object and the lab object are there.
	Info, Lab bool
}

// Empty reports whether the namespace holds nothing of a class.
func (p EndPlan) Empty() bool {
	return len(p.Learners) == 0 && len(p.Records) == 0 && len(p.Acks) == 0 && !p.Info && !p.Lab
}

// Changes are the lines (Korean) saying what ending the class deletes.
func (p EndPlan) Changes() []string {
	out := []string{content.Msg("class.end.what", "ns", p.Namespace, "n", len(p.Learners), "records", len(p.Records), "joined", p.Joined)}
	if p.Lab {
		out = append(out, content.Msg("class.end.lab"))
	}
	return out
}

// PlanEnd reads what ending the class in ns would delete. A namespace
// with no class in it is a NoClass error.
func PlanEnd(ctx context.Context, cs kube.Interface, ns string) (EndPlan, error) {
	objs, err := listClass(ctx, cs, ns)
	if err != nil {
		return EndPlan{}, err
	}
	p := EndPlan{Namespace: ns, Learners: objs.learners, Records: sortedKeys(objs.records), Acks: objs.acks, Info: objs.hasInfo, Lab: objs.labObj}
	for _, joined := range objs.records {
		if joined {
			p.Joined++
		}
	}
	if p.Empty() {
		return p, noClass(ctx, cs, ns)
	}
	return p, nil
}

// Ended is what End deleted.
type Ended struct {
	Learners, Roles, Records int
}

// End deletes what the plan names.
func End(ctx context.Context, cs kube.Interface, p EndPlan, workers int) (Ended, error) {
	if workers <= 0 {
		workers = 8
	}
	del := deleter{cs: cs, ns: p.Namespace}
	var out Ended
	gone := make([]Gone, len(p.Learners))
	err := parallel(ctx, len(p.Learners), workers, func(i int) (err error) {
		gone[i], err = del.learner(ctx, p.Learners[i], "")
		return err
	})
	for _, g := range gone {
		out.Learners += g.Learners
		out.Roles += g.Roles
	}
	if err != nil {
		return out, err
	}
	names := append(append([]string{class.LabObject, class.InfoObject}, p.Acks...), p.Records...)
	dropped := make([]bool, len(names))
	err = parallel(ctx, len(names), workers, func(i int) (err error) {
		dropped[i], err = del.configMap(ctx, names[i])
		return err
	})
	for i, d := range dropped {
		if d && i >= 2+len(p.Acks) { // after the lab object, the class object and the acknowledgements
			out.Records++
		}
	}
	return out, err
}

// Gone counts what deleting one learner deleted.
type Gone struct{ Learners, Roles, Kubeconfigs int }

// deleter deletes what init made in a namespace; what is gone already
// is no error.
type deleter struct {
	cs kube.Interface
	ns string
}

// learner deletes a learner's RoleBinding, Role, token Secret and
// ServiceAccount, and with outDir set their kubeconfig there. Not their
// records: the caller names those (a learner may have records of labs
// the class is no longer for).
func (d deleter) learner(ctx context.Context, id, outDir string) (Gone, error) {
	var g Gone
	do := func(err error) (bool, error) {
		if err == nil {
			return true, nil
		}
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	var errs []error
	rbac := d.cs.RbacV1()
	if ok, err := do(rbac.RoleBindings(d.ns).Delete(ctx, RoleName(id), metav1.DeleteOptions{})); err != nil {
		errs = append(errs, err)
	} else if ok {
		g.Roles++
	}
	if _, err := do(rbac.Roles(d.ns).Delete(ctx, RoleName(id), metav1.DeleteOptions{})); err != nil {
		errs = append(errs, err)
	}
	// A legacy token Secret init made (labelled since; by its name
	// before): deleting the account would have the token controller
	// delete it too, but not at once.
	secrets := d.cs.CoreV1().Secrets(d.ns)
	if s, err := secrets.Get(ctx, id+"-token", metav1.GetOptions{}); err == nil && s.Annotations["kubernetes.io/service-account.name"] == id {
		if _, err := do(secrets.Delete(ctx, s.Name, metav1.DeleteOptions{})); err != nil {
			errs = append(errs, err)
		}
	}
	if ok, err := do(d.cs.CoreV1().ServiceAccounts(d.ns).Delete(ctx, id, metav1.DeleteOptions{})); err != nil {
		errs = append(errs, err)
	} else if ok {
		g.Learners++
	}
	if outDir != "" {
		switch err := os.Remove(filepath.Join(outDir, id+".kubeconfig")); {
		case err == nil:
			g.Kubeconfigs++
		case !errors.Is(err, os.ErrNotExist):
			errs = append(errs, err)
		}
	}
	return g, errors.Join(errs...)
}

// configMap deletes one ConfigMap; gone is false when it was not there.
func (d deleter) configMap(ctx context.Context, name string) (gone bool, err error) {
	err = d.cs.CoreV1().ConfigMaps(d.ns).Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// NoClass says a namespace holds no class: a typo, or the wrong context.
// Others are the namespaces that hold one, as far as the instructor may
// list them (Looked is false when they may not).
type NoClass struct {
	Namespace string
	Others    []string
	Looked    bool
	// Denied: the instructor may not read the namespace (a typo, or
	// another namespace than the one they were given).
	Denied bool
}

func (e NoClass) Error() string {
	switch {
	case e.Denied && len(e.Others) > 0:
		return content.Msg("class.cli.no_class_denied_others", "ns", e.Namespace, "others", strings.Join(e.Others, ", "))
	case e.Denied:
		return content.Msg("class.cli.no_class_denied", "ns", e.Namespace)
	case len(e.Others) > 0:
		return content.Msg("class.cli.no_class_others", "ns", e.Namespace, "others", strings.Join(e.Others, ", "))
	case e.Looked:
		return content.Msg("class.cli.no_class_none", "ns", e.Namespace)
	}
	return content.Msg("class.cli.no_class", "ns", e.Namespace)
}

// noClass is the NoClass error of ns, naming the namespaces that hold a
// class as far as the instructor may list them: those with a class
// object (whoever made the namespace: a namespace's admin cannot label
// it), found with a cluster-wide list of ConfigMaps, and those init
// labelled, with a list of namespaces.
func noClass(ctx context.Context, cs kube.Interface, ns string) error {
	e := NoClass{Namespace: ns}
	others := map[string]bool{}
	if l, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{LabelSelector: labels.Set{class.LabelInfo: "true"}.String()}); err == nil {
		e.Looked = true
		for _, o := range l.Items {
			others[o.Namespace] = true
		}
	}
	if l, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: labels.Set{class.LabelClass: "true"}.String()}); err == nil {
		e.Looked = true
		for _, n := range l.Items {
			if n.DeletionTimestamp == nil {
				others[n.Name] = true
			}
		}
	}
	delete(others, ns)
	e.Others = sortedKeys(others)
	return e
}

// NoLab says a class has no records of the lab asked for; Have are the
// labs it has.
type NoLab struct {
	Namespace, Lab string
	Have           []string
}

func (e NoLab) Error() string {
	return content.Msg("class.cli.no_lab", "ns", e.Namespace, "lab", e.Lab, "have", strings.Join(e.Have, ", "))
}
