package kube

import "github.com/labhub/labmate/content"

// Target is the lab cluster as a command line chose it (--kubeconfig,
// --context, --no-cluster, kubectl's rules then the sandbox's
// kubeconfig): whether there is one, which, and, when there is none,
// why, in the one wording every command shares. The command line's
// factory makes it; a run of a lab (labrun), lab verify's proof and
// doctor read it.
type Target struct {
	// Off is --no-cluster: the learner turned the cluster off.
	Off bool
	// Named says the command line named a kubeconfig or a context: one
	// that cannot be used is then a problem, never a cluster that is
	// simply absent.
	Named bool
	// Conn is the connection (nil when there is none); Err says why
	// there is none (a *LoadError).
	Conn Conn
	Err  error
}

// Reach is what a Target makes of the lab cluster.
type Reach int

const (
	// Connected: a connection (whether its server answers is the
	// reachability probe's to say).
	Connected Reach = iota
	// Off: the learner turned the cluster off (--no-cluster).
	Off
	// Absent: no kubeconfig anywhere and none named; the cluster steps
	// say how to get a cluster (`labmate sandbox up`).
	Absent
	// Unusable: a kubeconfig that cannot be used (Problem says why).
	Unusable
)

// Reach is what the target makes of the lab cluster.
func (t Target) Reach() Reach {
	switch {
	case t.Off:
		return Off
	case t.Conn != nil:
		return Connected
	case t.Err == nil || IsMissing(t.Err) && !t.Named:
		return Absent
	}
	return Unusable
}

// Cause is why there is no connection: Err, or, with none, a kubeconfig
// missing everywhere.
func (t Target) Cause() error {
	if t.Err != nil {
		return t.Err
	}
	return &LoadError{Kind: Missing}
}

// Why is Cause in Korean (Explain).
func (t Target) Why() string { return Explain(t.Cause()) }

// Problem is an unusable target as a run says it (CannotCheck).
func (t Target) Problem() string { return CannotCheck(t.Cause()) }

// CannotCheck says that the cluster's side cannot be checked, and why (err
// in Korean, Explain).
func CannotCheck(err error) string { return content.Msg("kube.unusable", "err", Explain(err)) }
