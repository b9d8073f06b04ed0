package kube

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

func write(t *testing.T, path, server string, exec bool) string {
	t.Helper()
	user := "{}"
	if exec {
		user = "{exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/false, interactiveMode: IfAvailable}}"
	}
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "`+server+`"}}]
users: [{name: u, user: `+user+`}]
contexts: [{name: ctx, context: {cluster: c, user: u}}, {name: other, context: {cluster: c, user: u}}]
current-context: ctx
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// isolate gives the test an empty home and no $KUBECONFIG.
func isolate(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KWOK_WORKDIR", "")
	return home
}

// Precedence as kubectl's: --kubeconfig, $KUBECONFIG, ~/.kube/config; the
// fallback only when none of them names a file.
func TestPrecedence(t *testing.T) {
	home := isolate(t)
	dir := t.TempDir()
	explicit := write(t, filepath.Join(dir, "explicit"), "https://explicit:1", false)
	env := write(t, filepath.Join(dir, "env"), "https://env:1", false)
	fallback := write(t, filepath.Join(dir, "sandbox"), "https://sandbox:1", false)

	load := func(o Options) string {
		t.Helper()
		l, err := Load(o)
		if err != nil {
			t.Fatal(err)
		}
		return l.Config.Host
	}
	if got := load(Options{Fallback: fallback}); got != "https://sandbox:1" {
		t.Errorf("nothing else: %s, want the fallback", got)
	}
	write(t, filepath.Join(home, ".kube", "config"), "https://home:1", false)
	if got := load(Options{Fallback: fallback}); got != "https://home:1" {
		t.Errorf("with ~/.kube/config: %s", got)
	}
	t.Setenv("KUBECONFIG", env+string(os.PathListSeparator)+filepath.Join(dir, "absent"))
	if got := load(Options{Fallback: fallback}); got != "https://env:1" {
		t.Errorf("with $KUBECONFIG: %s", got)
	}
	if got := load(Options{Path: explicit, Fallback: fallback}); got != "https://explicit:1" {
		t.Errorf("with --kubeconfig: %s", got)
	}
}

// The sandbox's kubeconfig is used whenever kubectl's rules give no
// configuration (not only when they name no file), and never over one
// they do give, nor over --kubeconfig. With no Fallback named it is
// SandboxKubeconfig(): what `labmate sandbox up` wrote under $HOME.
func TestSandboxFallback(t *testing.T) {
	home := isolate(t)
	write(t, SandboxKubeconfig(), "https://sandbox:1", false)
	if !strings.HasPrefix(SandboxKubeconfig(), filepath.Join(home, ".kwok")) {
		t.Fatalf("SandboxKubeconfig() = %s, not under $HOME/.kwok", SandboxKubeconfig())
	}
	host := func(o Options) string {
		t.Helper()
		l, err := Load(o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		return l.Config.Host
	}
	if got := host(Options{}); got != "https://sandbox:1" {
		t.Errorf("nothing else: %s", got)
	}
	homeConfig := filepath.Join(home, ".kube", "config")
	os.MkdirAll(filepath.Dir(homeConfig), 0o700)
	for name, content := range map[string]string{"empty": "", "kind only": "apiVersion: v1\nkind: Config\n"} {
		os.WriteFile(homeConfig, []byte(content), 0o600)
		if got := host(Options{}); got != "https://sandbox:1" {
			t.Errorf("~/.kube/config %s: %s, want the sandbox", name, got)
		}
	}
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, nil, 0o600)
	t.Setenv("KUBECONFIG", empty)
	if got := host(Options{}); got != "https://sandbox:1" {
		t.Errorf("$KUBECONFIG an empty file: %s", got)
	}
	if err := WriteContext(Options{}, filepath.Join(t.TempDir(), "one")); err != nil {
		t.Errorf("WriteContext on the fallback: %v", err)
	}
	if names, err := Contexts(Options{}); err != nil || len(names) != 2 {
		t.Errorf("Contexts on the fallback: %v %v", names, err)
	}
	t.Setenv("KUBECONFIG", "")
	write(t, homeConfig, "https://home:1", false)
	if got := host(Options{}); got != "https://home:1" {
		t.Errorf("a real ~/.kube/config: %s", got)
	}
	// A named file that is empty is an error, not the sandbox.
	if _, err := Load(Options{Path: empty}); !IsMissing(err) {
		t.Errorf("--kubeconfig an empty file: %v", err)
	}
	// Only (a class kubeconfig) never falls back.
	if _, err := Load(Options{Path: empty, Only: true}); err == nil {
		t.Error("Only with an empty file loaded something")
	}
}

func TestFailuresAreTyped(t *testing.T) {
	isolate(t)
	var e *LoadError
	if _, err := Load(Options{}); !IsMissing(err) || !errors.As(err, &e) || len(e.Paths) == 0 {
		t.Errorf("no kubeconfig: %v", err)
	}
	kc := write(t, filepath.Join(t.TempDir(), "kc"), "https://x:1", false)
	if _, err := Load(Options{Path: kc, Context: "nope"}); !errors.As(err, &e) || e.Kind != NoContext ||
		len(e.Contexts) != 2 || e.Contexts[0] != "ctx" {
		t.Errorf("unknown context: %+v", err)
	}
	dangling := filepath.Join(t.TempDir(), "dangling")
	os.WriteFile(dangling, []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://x:1\"}}]\ncurrent-context: gone\n"), 0o600)
	if _, err := Load(Options{Path: dangling}); !errors.As(err, &e) || e.Kind != NoContext || e.Context != "gone" {
		t.Errorf("current-context names no context: %+v", err)
	}
	if _, err := Load(Options{Path: filepath.Join(t.TempDir(), "absent")}); !errors.As(err, &e) || e.Kind != Unreadable {
		t.Errorf("absent --kubeconfig: %+v", err)
	}
	if l, err := Load(Options{Path: kc, Context: "other"}); err != nil || l.Context != "other" {
		t.Errorf("context override: %+v %v", l, err)
	}
	if names, err := Contexts(Options{Path: kc}); err != nil || len(names) != 2 {
		t.Errorf("Contexts = %v, %v", names, err)
	}
}

func TestExecPluginNeverInteractive(t *testing.T) {
	isolate(t)
	kc := write(t, filepath.Join(t.TempDir(), "kc"), "https://127.0.0.1:1", true)
	l, err := Load(Options{Path: kc})
	if err != nil {
		t.Fatal(err)
	}
	ep := l.Config.ExecProvider
	if ep == nil || ep.InteractiveMode != clientcmdapi.NeverExecInteractiveMode || !ep.StdinUnavailable {
		t.Errorf("exec provider = %+v", ep)
	}
	if l.Config.Timeout != 0 || l.Config.Dial == nil || l.Config.UserAgent != "labmate" {
		t.Errorf("config: timeout %s, dial %v, agent %q", l.Config.Timeout, l.Config.Dial != nil, l.Config.UserAgent)
	}
}
