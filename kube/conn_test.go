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

// Unthrottled keeps the server and origin and leaves the clients no
// limit of their own: a thousand requests in a row all go at once, where
// the connection it came from lets its burst through and then waits.
func TestUnthrottled(t *testing.T) {
	c, err := forConfig(&rest.Config{Host: "http://127.0.0.1:1", QPS: 5, Burst: 10})
	if err != nil {
		t.Fatal(err)
	}
	c.origin = Origin{Context: "kwok-labmate"}
	u, err := Unthrottled(c)
	if err != nil {
		t.Fatal(err)
	}
	if u.Host() != c.Host() || u.Origin().Context != "kwok-labmate" {
		t.Fatalf("Unthrottled: host %q, context %q; want %q, kwok-labmate", u.Host(), u.Origin().Context, c.Host())
	}
	typed, err := u.Typed()
	if err != nil {
		t.Fatal(err)
	}
	lim := typed.(*Clientset).core.RESTClient().GetRateLimiter()
	for i := range 1000 {
		if !lim.TryAccept() {
			t.Fatalf("request %d waited on the client's own limiter", i+1)
		}
	}
	orig := c.cfg.RateLimiter
	n := 0
	for orig.TryAccept() {
		n++
	}
	if n > 10 {
		t.Fatalf("the connection Unthrottled came from let %d through at once, want its burst of 10", n)
	}
}
