package kube

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/pelletier/go-toml/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CheckKorean fails when text carries one of the client's English pieces,
// or no Korean at all.
func CheckKorean(t *testing.T, what, text string) {
	t.Helper()
	if e := ClientEnglish(text); e != "" {
		t.Errorf("%s: English %q reaches the learner:\n%s", what, e, text)
	}
	if !strings.ContainsFunc(text, func(r rune) bool { return unicode.Is(unicode.Hangul, r) }) {
		t.Errorf("%s: no Korean:\n%s", what, text)
	}
}

func writeKubeconfig(t *testing.T, server, context string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
contexts: [{name: lab, context: {cluster: c, user: u}}]
users: [{name: u, user: {token: x}}]
current-context: %s
`, server, context)
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// get makes a real client-go request to server and returns its error. A
// server that answers (with a refusal, a bad certificate, a status) gets
// 30 s to do it, for a loaded machine; only the case of no answer is
// timed out on purpose, and short.
func get(t *testing.T, server string) error {
	t.Helper()
	return getWithin(t, server, 30*time.Second)
}

func getWithin(t *testing.T, server string, timeout time.Duration) error {
	t.Helper()
	l, err := Load(Options{Path: writeKubeconfig(t, server, "lab"), DialTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	l.Config.Timeout = timeout
	cs, err := NewForConfig(l.Config)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.CoreV1().ConfigMaps("class").Get(context.Background(), "learner-02.gpu-incident", metav1.GetOptions{})
	if err == nil {
		t.Fatalf("%s: the request did not fail", server)
	}
	return err
}

// status serves one Kubernetes Status of code for every request.
func status(t *testing.T, code int, reason string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%q,"code":%d,
			"message":"configmaps \"learner-02.gpu-incident\" is forbidden: User \"system:serviceaccount:class:learner-01\" cannot get resource \"configmaps\"",
			"details":{"name":"learner-02.gpu-incident","kind":"configmaps"}}`, reason, code)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "https://" + addr
}

// Every common failure, made for real (a kubeconfig on disk, a request
// through client-go to a real socket), in Korean with what to do, and of
// the cause its type says.
func TestExplainCommonFailures(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KWOK_WORKDIR", "")
	home := t.TempDir()
	t.Setenv("HOME", home)
	tlsSrv := httptest.NewUnstartedServer(http.NotFoundHandler())
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is the point
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	go func() { // accepts and never answers
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	garbage := filepath.Join(t.TempDir(), "garbage")
	os.WriteFile(garbage, []byte("clusters: [this is: not: yaml"), 0o600)

	load := func(o Options) error {
		_, err := Load(o)
		if err == nil {
			t.Fatalf("%+v loaded", o)
		}
		return err
	}
	for _, tc := range []struct {
		name  string
		err   error
		cause Cause
		want  string // a piece of the Korean
	}{
		{"no kubeconfig", load(Options{}), "", "labmate sandbox up"},
		{"--context not in the file", load(Options{Path: writeKubeconfig(t, "https://127.0.0.1:1", "lab"), Context: "nope"}), "", "--context"},
		{"current-context not in the file", load(Options{Path: writeKubeconfig(t, "https://127.0.0.1:1", "gone")}), "", "gone"},
		{"--kubeconfig absent", load(Options{Path: filepath.Join(home, "absent")}), "", "경로"},
		{"not YAML", load(Options{Path: garbage}), "", "YAML"},
		{"no server", load(Options{Path: writeKubeconfig(t, "", "lab")}), "", "서버 주소"},
		{"connection refused", get(t, closedPort(t)), Refused, "labmate sandbox up"},
		{"untrusted certificate", get(t, tlsSrv.URL), Untrusted, "인증서"},
		{"403", get(t, status(t, 403, "Forbidden")), Forbidden, "configmaps learner-02.gpu-incident"},
		{"401", get(t, status(t, 401, "Unauthorized")), Unauthorized, "401"},
		{"unknown host", get(t, "https://no-such-host.labmate-test.invalid"), Unresolved, "호스트 이름"},
		{"no answer", getWithin(t, "https://"+silent.Addr().String(), 500*time.Millisecond), Timeout, "제때"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CauseOf(tc.err); got != tc.cause {
				t.Errorf("cause %q, want %q (%v)", got, tc.cause, tc.err)
			}
			text := Explain(tc.err)
			CheckKorean(t, tc.name, text)
			if !strings.Contains(text, tc.want) {
				t.Errorf("%q lacks %q", text, tc.want)
			}
		})
	}
}

// No Korean message catalogue carries the client's English for these
// failures, nor quotes it.
func TestCataloguesCarryNoClientEnglish(t *testing.T) {
	root := filepath.Join("..", "content")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".toml") {
			return err
		}
		if dir := filepath.Dir(path); dir != root && !strings.HasPrefix(d.Name(), "messages") {
			return nil // a lab's lab.toml and verify.toml are not message catalogues
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var doc map[string]any
		if err := toml.Unmarshal(raw, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		n++
		eachString(doc, "", func(key, text string) {
			if e := ClientEnglish(text); e != "" {
				t.Errorf("%s: %s carries %q: %s", path, key, e, text)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 8 {
		t.Fatalf("read %d catalogues: is the walk right?", n)
	}
}

// eachString calls fn with every string value of a TOML document (keys
// are not text a learner reads).
func eachString(v any, key string, fn func(key, text string)) {
	switch v := v.(type) {
	case string:
		fn(key, v)
	case map[string]any:
		for k, x := range v {
			eachString(x, key+"."+k, fn)
		}
	case []any:
		for i, x := range v {
			eachString(x, fmt.Sprintf("%s[%d]", key, i), fn)
		}
	}
}
