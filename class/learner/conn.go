// Package learner is the learner's side of a class: a --class kubeconfig
// (Open), the Publisher that sends the learner's record (its Tracker
// folds the run's updates into it), the one-off publish of `check
// --class`, the preview, and doctor's word on the class connection.
package learner

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// Timeouts of every class request. A class cluster that is down or slow
// costs the learner nothing but a retry later.
const (
	dialTimeout    = 5 * time.Second
	requestTimeout = 10 * time.Second
)

// Learner is what a learner's class kubeconfig (as init writes them)
// says: where the class is and who the learner is in it.
type Learner struct {
	// Conn reaches the class cluster, with no client timeout (watches);
	// Requests is the copy whose requests end in time.
	Conn      kube.Conn
	Namespace string
	// ID is the learner's slot: the current context's user name, which
	// init sets to the slot (and the ServiceAccount's name).
	ID string
}

// ErrNotClassKubeconfig says a kubeconfig lacks what a class kubeconfig
// has (a current context with a namespace and a user).
var ErrNotClassKubeconfig = errors.New("not a class kubeconfig")

// Kubeconfig is how a class kubeconfig written by init is opened (the
// command line's factory opens it): only that file is read, never
// $KUBECONFIG or ~/.kube/config, which point at the lab's own cluster.
func Kubeconfig(path string) kube.Options {
	return kube.Options{Path: path, Only: true, DialTimeout: dialTimeout, UserAgent: "labmate-class"}
}

// New is the learner a class kubeconfig at path names, connected by
// conn (opened with Kubeconfig(path)); its error says the file is no
// class kubeconfig.
func New(conn kube.Conn, path string) (*Learner, error) {
	o := conn.Origin()
	if o.Namespace == "" || !class.ValidLearner(o.User) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotClassKubeconfig)
	}
	return &Learner{Conn: conn, Namespace: o.Namespace, ID: o.User}, nil
}

// Requests is the learner's connection for one-off requests: each ends
// within a few seconds, so a class cluster that is away costs a retry
// later, never a wait.
func (l *Learner) Requests() kube.Conn { return l.Conn.Within(requestTimeout) }

// Explain words an error of the class cluster or a class kubeconfig in
// Korean (kube.Explain: the loader's errors, refused, x509, 401, 403,
// ...).
func Explain(err error) string {
	if errors.Is(err, ErrNotClassKubeconfig) {
		return content.Msg("class.cli.not_class_file")
	}
	return kube.Explain(err)
}

// probeResult is what probe found about a learner's class connection.
type probeResult struct {
	// Refused is true when the class cluster answered no (401, 403, the
	// record missing); Err holds the failure either way.
	Refused bool
	Err     error
}

// probe reads the learner's own record of lab, within timeout: what
// `labmate doctor --class` reports.
func (l *Learner) probe(ctx context.Context, lab string, timeout time.Duration) probeResult {
	cs, err := l.Requests().Typed()
	if err != nil {
		return probeResult{Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err = cs.CoreV1().ConfigMaps(l.Namespace).Get(ctx, class.ObjectName(l.ID, lab), metav1.GetOptions{})
	return probeResult{Refused: err != nil && refused(err), Err: err}
}
