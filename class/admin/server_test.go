package admin

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// The learners' address as CheckServer judges it, against a TLS server
// whose certificate names 127.0.0.1 and example.com (net/http/httptest's),
// reached from here: loopback, a name the certificate lacks (with the
// names it has), a certificate another CA signed, an address nobody
// answers and one that is not a URL.
func TestCheckServer(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	ca := func(der []byte) *rest.Config {
		return &rest.Config{TLSClientConfig: rest.TLSClientConfig{
			CAData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}}
	}
	// Another CA, of its own (every httptest server has the same one).
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	other, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	mine := srv.Certificate().Raw
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := closed.Addr().String()
	closed.Close()

	for _, tc := range []struct {
		server string
		admin  *rest.Config
		want   []ServerProblem
	}{
		{srv.URL, ca(mine), []ServerProblem{Loopback}},
		{"https://localhost:" + port, ca(mine), []ServerProblem{Loopback, NotInCert}},
		{srv.URL, ca(other), []ServerProblem{Loopback, Untrusted}},
		{"https://" + deadAddr, ca(mine), []ServerProblem{Loopback, Unreached}},
		{"10.0.0.5:6443", ca(mine), []ServerProblem{BadServer}},
	} {
		ws := CheckServer(context.Background(), tc.admin, tc.server)
		var got []ServerProblem
		for _, w := range ws {
			got = append(got, w.Problem)
			msg := w.Error()
			if !strings.Contains(msg, tc.server) || strings.Contains(msg, "..") || strings.Contains(msg, "{") {
				t.Errorf("%s: %s: %q", tc.server, w.Problem, msg)
			}
			if w.Problem == NotInCert && (!slices.Contains(w.Names, "127.0.0.1") || !strings.Contains(msg, "example.com")) {
				t.Errorf("%s: the certificate's names are not said: %v %q", tc.server, w.Names, msg)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("CheckServer(%s) = %v, want %v", tc.server, got, tc.want)
		}
	}
}
