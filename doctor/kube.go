package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// Budgets inside the doctor's deadline: the API server gets most of it,
// the node lookups what is left after it answered.
const (
	versionTimeout = 2500 * time.Millisecond
	nodesTimeout   = 1500 * time.Millisecond
)

// kubeProbe reports the kubeconfig, the API server and each lab's nodes.
// Each later finding is skipped when an earlier one failed.
func kubeProbe(ctx context.Context, o Options) []Finding {
	many := len(o.Labs) > 1
	nodes := func(v Verdict, detail string) []Finding {
		var out []Finding
		for _, l := range o.Labs {
			out = append(out, forLab(finding("nodes", v, detail), l, many), forLab(finding("access", v, detail), l, many))
		}
		return out
	}
	if o.Cluster.Off {
		skip := content.Msg("ops.doctor.kube.no_cluster")
		return append([]Finding{finding("kubeconfig", Skip, skip), finding("apiserver", Skip, skip)}, nodes(Skip, skip)...)
	}
	conn, kc := connection(o)
	out := []Finding{kc}
	if conn == nil {
		skip := content.Msg("ops.doctor.kube.skipped_no_config")
		return append(append(out, finding("apiserver", Skip, skip)), nodes(Skip, skip)...)
	}
	conn = conn.Within(versionTimeout)
	cs, err := conn.Typed()
	if err != nil {
		out[0] = finding("kubeconfig", Fail, content.Msg("ops.doctor.kube.client_error", "err", kube.Explain(err)), fix("kubeconfig"))
		skip := content.Msg("ops.doctor.kube.skipped_no_config")
		return append(append(out, finding("apiserver", Skip, skip)), nodes(Skip, skip)...)
	}
	api, ok := versionProbe(ctx, conn)
	out = append(out, api)
	if !ok {
		return append(out, nodes(Skip, content.Msg("ops.doctor.kube.skipped_unreachable"))...)
	}
	for _, l := range o.Labs {
		out = append(out, forLab(nodesProbe(ctx, cs, l.Nodes), l, many), forLab(accessProbe(ctx, cs, l), l, many))
	}
	return out
}

// accessProbe asks the API server, with SelfSubjectAccessReviews, whether
// this kubeconfig may read everything the lab watches, and names what it
// may not.
func accessProbe(ctx context.Context, cs kube.Interface, l Lab) Finding {
	if len(l.Access) == 0 {
		return finding("access", Skip, content.Msg("ops.doctor.access.none"))
	}
	var refused []string
	for _, a := range l.Access {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: a.Verb, Group: a.Group, Resource: a.Resource, Namespace: a.Namespace, Name: a.Name},
		}}
		got, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return finding("access", Warn, content.Msg("ops.doctor.access.unknown", "err", kube.Explain(err)))
		}
		if !got.Status.Allowed {
			refused = append(refused, a.Text)
		}
	}
	if len(refused) > 0 {
		return finding("access", Fail, content.Msg("ops.doctor.access.refused", "n", len(refused), "refused", strings.Join(refused, ", ")),
			fix("access", "lab", l.ID))
	}
	return finding("access", OK, content.Msg("ops.doctor.access.ok", "n", len(l.Access)))
}

// clusterSteps names the steps that need a cluster, of each lab when
// there are several ("gpu-incident 5~8, driver-reboot 3~5").
func clusterSteps(labs []Lab) string {
	if len(labs) == 1 {
		return labs[0].ClusterSteps
	}
	var parts []string
	for _, l := range labs {
		if l.ClusterSteps != "" {
			parts = append(parts, l.ID+" "+l.ClusterSteps)
		}
	}
	return strings.Join(parts, ", ")
}

// connection is the connection doctor was handed, with its finding: each
// way opening it failed (kube.Open: kubectl's rules, never prompting) is
// worded.
func connection(o Options) (kube.Conn, Finding) {
	if c := o.Cluster.Conn; c != nil {
		return c, finding("kubeconfig", OK, content.Msg("ops.doctor.kube.ok", "path", strings.Join(c.Origin().Paths, ", "), "context", c.Origin().Context, "server", c.Host()))
	}
	err := o.Cluster.Cause()
	var ke *kube.LoadError
	if errors.As(err, &ke) {
		where := strings.Join(ke.Paths, ", ")
		switch ke.Kind {
		case kube.Unreadable:
			return nil, finding("kubeconfig", Fail, kube.Explain(err), fix("kubeconfig"))
		case kube.Missing:
			return nil, finding("kubeconfig", Fail, content.Msg("ops.doctor.kube.missing", "path", where, "steps", clusterSteps(o.Labs)), fix("kubeconfig"))
		case kube.NoContext:
			return nil, finding("kubeconfig", Fail, content.Msg("ops.doctor.kube.no_context", "context", ke.Context, "path", where,
				"contexts", orDash(strings.Join(ke.Contexts, ", "))), fix("context"))
		default:
			return nil, finding("kubeconfig", Fail, kube.Explain(err), fix("kubeconfig_invalid"))
		}
	}
	return nil, finding("kubeconfig", Fail, kube.Explain(err), fix("kubeconfig"))
}

// versionProbe asks /version, the cheapest request every API server
// answers, with a short timeout.
func versionProbe(ctx context.Context, conn kube.Conn) (Finding, bool) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	host := conn.Host()
	start := time.Now()
	raw, err := conn.Get(ctx, "/version")
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		detail, how := explainAPIError(err, host, took)
		return finding("apiserver", Fail, detail, how), false
	}
	var v version.Info
	if err := json.Unmarshal(raw, &v); err != nil || v.GitVersion == "" {
		return finding("apiserver", Fail, content.Msg("ops.doctor.api.not_k8s", "server", host), fix("kubeconfig_invalid")), false
	}
	return finding("apiserver", OK, content.Msg("ops.doctor.api.ok", "server", host, "version", v.GitVersion, "took", took)), true
}

// explainAPIError turns a failed request into what the learner should
// understand and do, by the error's type (kube.CauseOf).
func explainAPIError(err error, host string, took time.Duration) (string, string) {
	kube.Log(err)
	switch kube.CauseOf(err) {
	case kube.Refused:
		return content.Msg("ops.doctor.api.refused", "server", host), fix("api_refused")
	case kube.Timeout:
		return content.Msg("ops.doctor.api.timeout", "server", host, "took", took), fix("api_timeout")
	case kube.Untrusted:
		return content.Msg("ops.doctor.api.tls", "server", host), fix("api_tls")
	case kube.Unauthorized, kube.Forbidden:
		return content.Msg("ops.doctor.api.auth", "server", host, "err", kube.Explain(err)), fix("api_auth")
	default:
		return content.Msg("ops.doctor.api.other", "server", host, "err", kube.Explain(err)), fix("api_other")
	}
}

// nodesProbe looks up each lab node by name (get, not list: the learner's
// account may only be allowed that).
func nodesProbe(ctx context.Context, cs kube.Interface, names []string) Finding {
	if len(names) == 0 {
		return finding("nodes", Skip, content.Msg("ops.doctor.nodes.none_expected"))
	}
	ctx, cancel := context.WithTimeout(ctx, nodesTimeout)
	defer cancel()
	type answer struct {
		node *corev1.Node
		err  error
	}
	answers := make([]chan answer, len(names))
	for i, n := range names {
		ch := make(chan answer, 1)
		answers[i] = ch
		go func() {
			node, err := cs.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
			ch <- answer{node, err}
		}()
	}
	var missing, notReady, found []string
	for i, ch := range answers {
		a := <-ch
		switch {
		case a.err == nil:
			found = append(found, names[i])
			if !nodeReady(a.node) {
				notReady = append(notReady, names[i])
			}
		case apierrors.IsNotFound(a.err):
			missing = append(missing, names[i])
		case apierrors.IsForbidden(a.err):
			return finding("nodes", Fail, content.Msg("ops.doctor.nodes.forbidden"), fix("nodes_forbidden"))
		default:
			return finding("nodes", Fail, content.Msg("ops.doctor.nodes.error", "node", names[i], "err", kube.Explain(a.err)),
				fix("api_other"))
		}
	}
	switch {
	case len(missing) > 0:
		return finding("nodes", Fail, content.Msg("ops.doctor.nodes.missing", "missing", strings.Join(missing, ", "),
			"found", orDash(strings.Join(found, ", ")), "nodes", strings.Join(names, ", ")), fix("nodes_missing", "nodes", strings.Join(names, ", ")))
	case len(notReady) > 0:
		return finding("nodes", Warn, content.Msg("ops.doctor.nodes.not_ready", "nodes", strings.Join(notReady, ", ")),
			fix("nodes_not_ready"))
	}
	return finding("nodes", OK, content.Msg("ops.doctor.nodes.ok", "nodes", strings.Join(found, ", ")))
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
