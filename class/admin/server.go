package admin

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
)

// Every learner's laptop must reach the class cluster at the address in
// their kubeconfig, and the server's certificate must name that address:
// a learner's labmate checks it, as kubectl does. init checks both for
// the address it writes (the instructor's own, or --server) and warns;
// it cannot see the room's network, so it warns rather than refuses.

// ServerProblem is why learners may not reach the class at an address.
type ServerProblem string

const (
	// Loopback: the address is this machine's own (127.0.0.1,
	// localhost): on a learner's laptop it is the learner's laptop.
	Loopback ServerProblem = "loopback"
	// NotInCert: the server's certificate does not name the address, so
	// a learner's labmate refuses the connection (x509).
	NotInCert ServerProblem = "not_in_cert"
	// Untrusted: the certificate is not signed by the CA the
	// kubeconfigs carry (another server answers at the address).
	Untrusted ServerProblem = "untrusted"
	// Unreached: init could not reach the address itself.
	Unreached ServerProblem = "unreached"
	// BadServer: the address is not a URL.
	BadServer ServerProblem = "bad_server"
)

// ServerWarning is one thing wrong with the address learners get.
type ServerWarning struct {
	Problem ServerProblem
	Server  string
	// Names are the names and addresses the certificate holds
	// (NotInCert).
	Names []string
	Err   error
}

func (w ServerWarning) Error() string {
	err := ""
	if w.Err != nil {
		// The message ends the sentence itself.
		err = strings.TrimRight(kube.Explain(w.Err), ". ")
	}
	return content.Msg("class.init.server."+string(w.Problem), "server", w.Server, "names", strings.Join(w.Names, ", "), "err", err)
}

// CheckServer checks the address learners' kubeconfigs will name: not
// this machine's own, and reached with a certificate that names it and
// that the admin's CA signed. admin is the instructor's connection's
// config: its CA, TLS server name and skip-verify go into the learners'
// kubeconfigs.
func CheckServer(ctx context.Context, admin *rest.Config, server string) []ServerWarning {
	u, err := url.Parse(server)
	if err != nil || u.Host == "" {
		return []ServerWarning{{Problem: BadServer, Server: server}}
	}
	var out []ServerWarning
	host := u.Hostname()
	if ip := net.ParseIP(host); host == "localhost" || strings.HasSuffix(host, ".localhost") || ip != nil && ip.IsLoopback() {
		out = append(out, ServerWarning{Problem: Loopback, Server: server})
	}
	if u.Scheme != "https" || admin.Insecure {
		return out
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	roots, err := caPool(admin)
	switch {
	case errors.Is(err, errNoCA):
		return append(out, ServerWarning{Problem: Untrusted, Server: server})
	case err != nil:
		return append(out, ServerWarning{Problem: Unreached, Server: server, Err: err})
	}
	name := host
	if admin.ServerName != "" {
		name = admin.ServerName
	}
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: probeTimeout}, Config: &tls.Config{
		ServerName: name, RootCAs: roots, MinVersion: tls.VersionTLS12,
		// The handshake is checked below, by hand, to tell a wrong name
		// from a wrong signer; nothing is sent over it.
		InsecureSkipVerify: true,
	}}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, port))
	if err != nil {
		return append(out, ServerWarning{Problem: Unreached, Server: server, Err: err})
	}
	defer conn.Close()
	certs := conn.(*tls.Conn).ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return append(out, ServerWarning{Problem: Untrusted, Server: server})
	}
	leaf := certs[0]
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, CurrentTime: time.Now()}); err != nil {
		return append(out, ServerWarning{Problem: Untrusted, Server: server, Err: err})
	}
	if err := leaf.VerifyHostname(name); err != nil {
		return append(out, ServerWarning{Problem: NotInCert, Server: server, Names: certNames(leaf)})
	}
	return out
}

// certNames are the names and addresses a certificate is for.
func certNames(c *x509.Certificate) []string {
	names := slices.Clone(c.DNSNames)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	return names
}

// caPool is the CA the learners' kubeconfigs carry (the admin's), or
// the system's roots when the admin's kubeconfig names none.
func caPool(admin *rest.Config) (*x509.CertPool, error) {
	ca := admin.CAData
	if len(ca) == 0 && admin.CAFile != "" {
		b, err := os.ReadFile(admin.CAFile)
		if err != nil {
			return nil, err
		}
		ca = b
	}
	if len(ca) == 0 {
		return x509.SystemCertPool()
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, errNoCA
	}
	return pool, nil
}

// errNoCA: the kubeconfig's certificate-authority-data holds no
// certificate.
var errNoCA = errors.New("no certificate in the certificate authority data")
