package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// Every group's client and discovery reach the configured server, with
// client-go's default user agent when the config names none, through one
// rate limiter.
func TestNewForConfigReachesTheServer(t *testing.T) {
	var mu sync.Mutex
	var paths, agents []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths, agents = append(paths, r.URL.Path), append(agents, r.UserAgent())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/version":
			_, _ = w.Write([]byte(`{"major":"1","minor":"34","gitVersion":"v1.34.12"}`))
		case strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/"):
			_, _ = w.Write([]byte(`{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"lab"}}`))
		default:
			_, _ = w.Write([]byte(`{"kind":"PriorityClassList","apiVersion":"scheduling.k8s.io/v1","items":[]}`))
		}
	}))
	defer srv.Close()

	cs, err := NewForConfig(&rest.Config{Host: srv.URL, QPS: 5, Burst: 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v, err := cs.Discovery().ServerVersion()
	if err != nil || v.GitVersion != "v1.34.12" {
		t.Fatalf("ServerVersion: %v, %v", v, err)
	}
	ns, err := cs.CoreV1().Namespaces().Get(ctx, "lab", metav1.GetOptions{})
	if err != nil || ns.Name != "lab" {
		t.Fatalf("Namespaces().Get: %v, %v", ns, err)
	}
	if _, err := cs.SchedulingV1().PriorityClasses().List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("PriorityClasses().List: %v", err)
	}
	want := []string{"/version", "/api/v1/namespaces/lab", "/apis/scheduling.k8s.io/v1/priorityclasses"}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("requests %q, want %q", paths, want)
	}
	for _, a := range agents {
		if a != rest.DefaultKubernetesUserAgent() {
			t.Errorf("user agent %q, want client-go's default %q", a, rest.DefaultKubernetesUserAgent())
		}
	}
	if cs.core.RESTClient().GetRateLimiter() == nil || cs.core.RESTClient().GetRateLimiter() != cs.scheduling.RESTClient().GetRateLimiter() {
		t.Error("the groups do not share one rate limiter")
	}
}

// A QPS without a burst is refused, as kubernetes.NewForConfig refuses it.
func TestQPSWithoutBurstIsRefused(t *testing.T) {
	if _, err := NewForConfig(&rest.Config{Host: "http://127.0.0.1:1", QPS: 5}); err == nil {
		t.Fatal("NewForConfig with QPS and no Burst: no error")
	}
}
