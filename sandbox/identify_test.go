package sandbox

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/labhub/labmate/kube"
)

// Identify accepts only a loopback API server that has labmate's marker:
// a remote server is refused without being asked, a local one without the
// marker after one look.
func TestIdentifyRefusesWhatIsNotASandbox(t *testing.T) {
	asked := 0
	marker := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked++
		if r.URL.Path != "/api/v1/namespaces/kube-system/configmaps/labmate-sandbox" || !marker {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"labmate-sandbox","namespace":"kube-system"},"data":{"lab":"driver-reboot"}}`))
	}))
	defer srv.Close()
	ctx := context.Background()

	if _, err := Identify(ctx, connTo(t, "https://203.0.113.7:6443")); !errors.Is(err, ErrNotSandbox) || asked != 0 {
		t.Fatalf("remote server: %v (asked %d)", err, asked)
	}
	if _, err := Identify(ctx, connTo(t, srv.URL)); !errors.Is(err, ErrNotSandbox) || asked != 1 {
		t.Fatalf("local server without the marker: %v (asked %d)", err, asked)
	}
	marker = true
	lab, err := Identify(ctx, connTo(t, srv.URL))
	if err != nil || lab != "driver-reboot" {
		t.Fatalf("with the marker: %q, %v", lab, err)
	}
}

// connTo is a connection to the API server at host.
func connTo(t *testing.T, host string) kube.Conn {
	t.Helper()
	conn, err := kube.ForConfig(&rest.Config{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	return conn
}
