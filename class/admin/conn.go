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

// Kubeconfig is how the instructor's kubeconfig is opened (the command
// line's factory opens it) the kubectl way: the explicit path, else
// $KUBECONFIG, else ~/.kube/config (then the sandbox's). Requests through
// it have no client timeout (the board's watch); bound one-off requests
// with Within.
func Kubeconfig(path, context string) kube.Options {
	// init creates a few objects per learner; the default 5 QPS would
	// make a class of 200 wait minutes on the client's own limiter.
	return kube.Options{Path: path, Context: context, DialTimeout: dialTimeout,
		UserAgent: "labmate-class", QPS: 100, Burst: 200}
}

// Namespace is the class namespace: ns when set, else the namespace of
// conn's context, else DefaultNamespace.
func Namespace(conn kube.Conn, ns string) string {
	if ns == "" {
		ns = conn.Origin().Namespace
	}
	if ns == "" {
		ns = DefaultNamespace
	}
	return ns
}
