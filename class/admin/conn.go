// Package admin is the instructor's side of a class: Init sets one up
// (namespace, records, a Role and a kubeconfig per learner), Watch and
// List read its records for the board, the export and the report.
package admin

import (
	"time"

	"github.com/labhub/labmate/kube"
)

// DefaultNamespace is the class namespace when none is named.
const DefaultNamespace = "labmate-class"

// dialTimeout bounds connecting to the class's API server.
const dialTimeout = 5 * time.Second

// Open connects with the instructor's kubeconfig the kubectl way
// (explicit path, else $KUBECONFIG, else ~/.kube/config) and returns the
// connection and the class namespace: ns when set, else the context's
// namespace, else DefaultNamespace. Requests through it have no client
// timeout (the board's watch); bound one-off requests with Within.
func Open(path, context, ns string) (kube.Conn, string, error) {
	// init creates a few objects per learner; the default 5 QPS would
	// make a class of 200 wait minutes on the client's own limiter.
	conn, err := kube.Open(kube.Options{Path: path, Context: context, DialTimeout: dialTimeout,
		UserAgent: "labmate-class", QPS: 100, Burst: 200})
	if err != nil {
		return nil, "", err
	}
	if ns == "" {
		ns = conn.Origin().Namespace
	}
	if ns == "" {
		ns = DefaultNamespace
	}
	return conn, ns, nil
}
