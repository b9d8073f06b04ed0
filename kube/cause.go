package kube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Cause is why talking to an API server failed, in the terms a learner
// acts on; "" when it is none of these.
type Cause string

const (
	// Refused: nothing listens at the server's address (the cluster is
	// not running there).
	Refused Cause = "refused"
	// Timeout: no answer in time (the address swallows packets, or the
	// server is overloaded).
	Timeout Cause = "timeout"
	// Unresolved: the server's host name does not resolve.
	Unresolved Cause = "dns"
	// Untrusted: the server's certificate is not trusted for its name
	// (another CA, another cluster at that address, a wrong name).
	Untrusted Cause = "tls"
	// Unauthorized: the server does not accept the credentials (401).
	Unauthorized Cause = "unauthorized"
	// Forbidden: the account may not do this (403).
	Forbidden Cause = "forbidden"
)

// CauseOf classifies a client-go error by its types (never by its
// words): the API status, the network error, the certificate error.
func CauseOf(err error) Cause {
	var (
		dns      *net.DNSError
		netErr   net.Error
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
	)
	switch {
	case err == nil:
		return ""
	case apierrors.IsUnauthorized(err):
		return Unauthorized
	case apierrors.IsForbidden(err):
		return Forbidden
	case errors.Is(err, syscall.ECONNREFUSED):
		return Refused
	case errors.As(err, &unknown), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verify):
		return Untrusted
	case errors.As(err, &dns) && (dns.IsNotFound || !dns.IsTimeout):
		return Unresolved
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout(), apierrors.IsTimeout(err), apierrors.IsServerTimeout(err):
		return Timeout
	}
	return ""
}
