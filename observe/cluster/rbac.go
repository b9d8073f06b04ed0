package cluster

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// Subject is who the RBAC a scope needs is bound to ("" kind: nobody,
// the roles alone).
type Subject struct {
	Kind      string // rbacv1.UserKind, GroupKind or ServiceAccountKind
	Name      string
	Namespace string // a ServiceAccount's
}

// readVerbs are what watching needs; get is added where labmate gets an
// object by name (doctor reads the lab's nodes).
var readVerbs = []string{"list", "watch"}

// RBAC is the least a reader of the scope needs, as objects to apply: a
// ClusterRole for its cluster-scoped resources (limited to the names the
// scope watches, where it names them), a Role in each of its namespaces
// for the namespaced ones, and, for a subject, their bindings. Names are
// "labmate-" + name. Reading /version (the reachability probe) needs
// nothing: every client may.
func RBAC(scope Scope, name string, subject Subject) []runtime.Object {
	name = "labmate-" + name
	var clusterRules, nsRules []rbacv1.PolicyRule
	for _, w := range scope.Watches {
		r := w.Resource
		rule := rbacv1.PolicyRule{APIGroups: []string{r.Group}, Resources: []string{r.Name}, Verbs: slices.Clone(readVerbs)}
		if r.String() == "nodes" {
			rule.Verbs = append([]string{"get"}, rule.Verbs...)
		}
		if !r.Namespaced {
			rule.ResourceNames = slices.Clone(w.Names)
			clusterRules = append(clusterRules, rule)
			continue
		}
		nsRules = mergeRule(nsRules, rule)
	}
	var out []runtime.Object
	if len(clusterRules) > 0 {
		out = append(out, &rbacv1.ClusterRole{TypeMeta: typeMeta("ClusterRole"), ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: clusterRules})
		if s, ok := subject.rbac(); ok {
			out = append(out, &rbacv1.ClusterRoleBinding{TypeMeta: typeMeta("ClusterRoleBinding"), ObjectMeta: metav1.ObjectMeta{Name: name},
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}, Subjects: []rbacv1.Subject{s}})
		}
	}
	if len(nsRules) == 0 {
		return out
	}
	for _, ns := range scope.Namespaces {
		out = append(out, &rbacv1.Role{TypeMeta: typeMeta("Role"), ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Rules: nsRules})
		if s, ok := subject.rbac(); ok {
			out = append(out, &rbacv1.RoleBinding{TypeMeta: typeMeta("RoleBinding"), ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}, Subjects: []rbacv1.Subject{s}})
		}
	}
	return out
}

// mergeRule adds rule, folding it into an earlier rule of the same API
// group and verbs.
func mergeRule(rules []rbacv1.PolicyRule, rule rbacv1.PolicyRule) []rbacv1.PolicyRule {
	for i := range rules {
		if slices.Equal(rules[i].APIGroups, rule.APIGroups) && slices.Equal(rules[i].Verbs, rule.Verbs) {
			rules[i].Resources = append(rules[i].Resources, rule.Resources...)
			return rules
		}
	}
	return append(rules, rule)
}

func (s Subject) rbac() (rbacv1.Subject, bool) {
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		return rbacv1.Subject{Kind: s.Kind, Name: s.Name, Namespace: s.Namespace}, true
	case rbacv1.UserKind, rbacv1.GroupKind:
		return rbacv1.Subject{Kind: s.Kind, APIGroup: rbacv1.GroupName, Name: s.Name}, true
	}
	return rbacv1.Subject{}, false
}

// YAML writes objects as one YAML stream, "---" between them.
func YAML(objs []runtime.Object) (string, error) {
	var b strings.Builder
	for i, obj := range objs {
		raw, err := yaml.Marshal(obj)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.WriteString(strings.ReplaceAll(string(raw), "  creationTimestamp: null\n", ""))
	}
	return b.String(), nil
}

func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: kind}
}

// Access is one permission a reader of a scope needs: a verb on a
// resource, in a namespace ("" cluster-wide), of one object by name (""
// every object).
type Access struct {
	Verb      string
	Group     string
	Resource  string
	Namespace string
	Name      string
}

// String words the access for a learner: "watch pods in gpu-lab".
func (a Access) String() string {
	s := a.Verb + " " + a.Resource
	if a.Group != "" {
		s += "." + a.Group
	}
	if a.Name != "" {
		s += "/" + a.Name
	}
	if a.Namespace != "" {
		s += " in " + a.Namespace
	}
	return s
}

// Accesses are every permission RBAC grants for the scope, one per verb,
// resource, namespace and named object: what `labmate doctor` asks the
// API server about.
func (s Scope) Accesses() []Access {
	var out []Access
	for _, obj := range RBAC(s, "", Subject{}) {
		var rules []rbacv1.PolicyRule
		ns := ""
		switch o := obj.(type) {
		case *rbacv1.ClusterRole:
			rules = o.Rules
		case *rbacv1.Role:
			rules, ns = o.Rules, o.Namespace
		}
		for _, r := range rules {
			names := r.ResourceNames
			if len(names) == 0 {
				names = []string{""}
			}
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					for _, n := range names {
						out = append(out, Access{Verb: v, Group: r.APIGroups[0], Resource: res, Namespace: ns, Name: n})
					}
				}
			}
		}
	}
	return out
}
