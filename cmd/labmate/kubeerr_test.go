package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/cmd/cli/factory"
	"github.com/labhub/labmate/kube"
)

// goodTerminal gives doctor a terminal with nothing to complain about,
// whatever the machine running the tests has.
func goodTerminal(t *testing.T) {
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_CTYPE", "")
	t.Setenv("NO_COLOR", "")
	t.Setenv("TMUX", "")
}

// faultKubeconfig is a kubeconfig whose server is server, context lab.
func faultKubeconfig(t *testing.T, server string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
contexts: [{name: lab, context: {cluster: c, user: u, namespace: class}}]
users: [{name: u, user: {token: x}}]
current-context: lab
`, server)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every command that reaches a cluster, on every common way that fails
// (no kubeconfig, a context that is not there, nothing listening, a
// certificate of another CA, 403 on everything), tells the learner in
// Korean: none of client-go's English reaches stdout or stderr.
func TestNoClientEnglishReachesTheLearner(t *testing.T) {
	goodTerminal(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KWOK_WORKDIR", "")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "https://" + l.Addr().String()
	l.Close()
	tlsSrv := httptest.NewUnstartedServer(http.NotFoundHandler())
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0)
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,
			"message":"forbidden: User \"system:anonymous\" cannot get path \"/\"","details":{"kind":"configmaps"}}`)
	}))
	t.Cleanup(forbidden.Close)

	type fault struct{ kubeconfig, context string }
	faults := map[string]fault{
		"no kubeconfig":      {},
		"no such context":    {faultKubeconfig(t, closed), "nope"},
		"connection refused": {faultKubeconfig(t, closed), ""},
		"untrusted":          {faultKubeconfig(t, tlsSrv.URL), ""},
		"forbidden":          {faultKubeconfig(t, forbidden.URL), ""},
	}
	root := t.TempDir()
	commands := map[string][]string{
		"check":        {"check", "--lab", "gpu-incident", "--root", root, "--timeout", "10s"},
		"report":       {"report", "--lab", "gpu-incident", "--root", root},
		"doctor":       {"doctor", "--lab", "gpu-incident", "--root", root},
		"lab verify":   {"lab", "verify", "gpu-incident"},
		"class export": {"class", "export", "-n", "class"},
		"class init":   {"class", "init", "-n", "class", "--learners", "2", "--out", filepath.Join(t.TempDir(), "out")},
	}
	for name, f := range faults {
		var flags []string
		if f.kubeconfig != "" {
			flags = append(flags, "--kubeconfig", f.kubeconfig)
		}
		if f.context != "" {
			flags = append(flags, "--context", f.context)
		}
		// The TUI's wiring: what it shows as notices.
		t.Run(name+"/tui", func(t *testing.T) {
			fac := factory.New(&cli.LabFlags{Lab: "gpu-incident", Root: root, StateDir: t.TempDir()},
				&cli.ClusterFlags{Kubeconfig: f.kubeconfig, Context: f.context}, version, factory.Default(cli.Streams{}))
			s, err := fac.Session(true)
			if err != nil {
				t.Fatal(err)
			}
			if e := kube.ClientEnglish(strings.Join(s.Warnings, "\n")); e != "" {
				t.Errorf("%q reaches the TUI's notices: %q", e, s.Warnings)
			}
		})
		for cmd, args := range commands {
			t.Run(name+"/"+cmd, func(t *testing.T) {
				code, out, errOut := runStreams(append(args, flags...)...)
				text := out + errOut
				if e := kube.ClientEnglish(text); e != "" {
					t.Errorf("exit %d: %q reaches the learner:\n%s", code, e, text)
				}
				if !strings.ContainsFunc(text, func(r rune) bool { return unicode.Is(unicode.Hangul, r) }) {
					t.Errorf("exit %d, no Korean:\n%s", code, text)
				}
			})
		}
	}
}

// The client's own words are kept, only in the --log file, for every
// command (doctor and lab verify open it too, not only the lab wiring).
func TestClientEnglishGoesToTheLog(t *testing.T) {
	goodTerminal(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	kc := faultKubeconfig(t, "https://"+l.Addr().String())
	l.Close()
	for _, args := range [][]string{
		{"doctor", "--lab", "gpu-incident", "--root", t.TempDir()},
		{"lab", "verify", "gpu-incident"},
		{"class", "export", "-n", "class"},
	} {
		logFile := filepath.Join(t.TempDir(), "labmate.log")
		_, out, errOut := runStreams(append(args, "--kubeconfig", kc, "--log", logFile)...)
		raw, _ := os.ReadFile(logFile)
		if !strings.Contains(string(raw), "connection refused") || strings.Contains(out+errOut, "connection refused") {
			t.Errorf("%v: log %q\nscreen: %s%s", args, raw, out, errOut)
		}
	}
}
