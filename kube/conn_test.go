package kube

import (
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// One connection is one rate limiter and one transport: the typed
// clients of every group, the Within copies and their clients share
// them; a copy differs only in its requests' timeout.
func TestOneLimiterAndOneTransport(t *testing.T) {
	c, err := forConfig(&rest.Config{Host: "http://127.0.0.1:1", QPS: 5, Burst: 10})
	if err != nil {
		t.Fatal(err)
	}
	limiter := c.cfg.RateLimiter
	if limiter == nil {
		t.Fatal("no rate limiter made from QPS")
	}
	typed, err := c.Typed()
	if err != nil {
		t.Fatal(err)
	}
	cs := typed.(*Clientset)
	if cs.core.RESTClient().GetRateLimiter() != limiter || cs.scheduling.RESTClient().GetRateLimiter() != limiter {
		t.Error("the typed clients have a rate limiter of their own")
	}
	if _, err := c.Dynamic(); err != nil {
		t.Fatal(err)
	}
	disc, err := c.Discovery()
	if err != nil {
		t.Fatal(err)
	}
	if disc.RESTClient().GetRateLimiter() != limiter {
		t.Error("discovery has a rate limiter of its own")
	}
	w := c.Within(3 * time.Second).(*conn)
	if w != c.Within(3*time.Second) {
		t.Error("a second Within of the same duration is another copy")
	}
	if w.cfg.RateLimiter != limiter || w.cfg.Timeout != 3*time.Second || c.cfg.Timeout != 0 {
		t.Errorf("Within: limiter shared %v, timeout %v (connection's %v)", w.cfg.RateLimiter == limiter, w.cfg.Timeout, c.cfg.Timeout)
	}
	if w.http.Transport != c.http.Transport || w.http.Timeout != 3*time.Second || c.http.Timeout != 0 {
		t.Errorf("Within: transport shared %v, client timeout %v", w.http.Transport == c.http.Transport, w.http.Timeout)
	}
	wt, err := w.Typed()
	if err != nil {
		t.Fatal(err)
	}
	if wt.(*Clientset).core.RESTClient().GetRateLimiter() != limiter {
		t.Error("a Within copy's typed client has a rate limiter of its own")
	}
}
