package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
)

// With LABMATE_TEST_AS_LABMATE=1 the test binary is labmate itself, so a
// test can put it on PATH under that name (completion scripts call it).
//
// The command tests work on the GPU incident lab unless they say
// otherwise: with several labs installed, nothing else would choose one.
func TestMain(m *testing.M) {
	if os.Getenv("LABMATE_TEST_AS_LABMATE") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	if os.Getenv(catalog.EnvLab) == "" {
		os.Setenv(catalog.EnvLab, "gpu-incident")
	}
	// Labs the person running the tests installed are not the tests'.
	data, err := os.MkdirTemp("", "labmate-data-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", data)
	code := m.Run()
	os.RemoveAll(data)
	os.Exit(code)
}

func runStreams(args ...string) (code int, stdout, stderr string) {
	var out, errOut strings.Builder
	code = runWith(args, cli.Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// english are pieces of cobra's and pflag's own English help and errors.
var english = []string{"Usage:", "Flags:", "Global Flags", "Available Commands", "Examples:", "Use \"", "help for",
	"(default", "[flags]", "[command]", "Error:", "unknown", "invalid argument", "Additional help"}

func allCommands(cmd *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{cmd}
	for _, sub := range cmd.Commands() {
		out = append(out, allCommands(sub)...)
	}
	return out
}

// Every command's --help exits 0 and is Korean, generated and complete:
// every flag it takes is listed, and no English heading slips through.
func TestEveryHelpIsKoreanAndComplete(t *testing.T) {
	root, _ := newRootCmd(cli.Streams{})
	cmds := allCommands(root)
	if len(cmds) < 12 {
		t.Fatalf("only %d commands in the tree", len(cmds))
	}
	for _, cmd := range cmds {
		path := strings.Fields(cmd.CommandPath())[1:]
		t.Run(strings.Join(append([]string{"labmate"}, path...), "_"), func(t *testing.T) {
			code, out, errOut := runStreams(append(path, "--help")...)
			if code != cli.ExitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			about, _, _ := strings.Cut(cmd.Long+"\n", "\n")
			if cmd.Long == "" {
				about = cmd.Short
			}
			if !strings.Contains(out, "사용법:") || about == "" || !strings.Contains(out, about) {
				t.Errorf("help lacks the usage heading or the short text:\n%s", out)
			}
			for _, e := range english {
				if strings.Contains(out, e) {
					t.Errorf("help contains %q:\n%s", e, out)
				}
			}
			cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) { checkFlag(t, out, cmd, f) })
			cmd.LocalFlags().VisitAll(func(f *pflag.Flag) { checkFlag(t, out, cmd, f) })
		})
	}
}

// checkFlag: cmd's help lists f with its words (a root flag cmd reads
// with a meaning of its own, worded as cmd's: cli.Reads), in Korean.
func checkFlag(t *testing.T, help string, cmd *cobra.Command, f *pflag.Flag) {
	t.Helper()
	usage := cli.FlagUsage(cmd, f)
	if !strings.Contains(help, "--"+f.Name) || !strings.Contains(help, usage) {
		t.Errorf("help lacks --%s with its text", f.Name)
	}
	if usage == "" || !strings.ContainsFunc(usage, func(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 }) {
		t.Errorf("--%s has no Korean usage text: %q", f.Name, usage)
	}
}

// No command binds a flag the root binds for every command: a command
// that gives one a meaning of its own reads the root's and words it in
// its help and completions (the class's --kubeconfig, --context, --lab).
func TestNoCommandBindsARootFlag(t *testing.T) {
	root, _ := newRootCmd(cli.Streams{})
	persistent := map[string]bool{}
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) { persistent[f.Name] = true })
	if len(persistent) < 8 {
		t.Fatalf("the root binds %d flags for every command", len(persistent))
	}
	for _, cmd := range allCommands(root)[1:] {
		cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if persistent[f.Name] && f.Name != "help" {
				t.Errorf("%s binds --%s, which the root binds for every command", cmd.CommandPath(), f.Name)
			}
		})
		cmd.PersistentFlags().VisitAll(func(f *pflag.Flag) {
			if persistent[f.Name] {
				t.Errorf("%s binds --%s for its subcommands, which the root binds for every command", cmd.CommandPath(), f.Name)
			}
		})
	}
	// The instructor's commands read the root's --kubeconfig, worded as
	// theirs in a completion too.
	code, out, _ := runStreams("__complete", "class", "board", "--l")
	if code != cli.ExitOK || !strings.Contains(out, "--lab\t"+content.Msg("class.flag.board_lab")) {
		t.Errorf("class board's --lab is not described as the board's:\n%s", out)
	}
}

// A bad command line exits 2 with a Korean message and the usage line on
// stderr, nothing on stdout.
func TestUsageErrorsAreKorean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "알 수 없는 플래그입니다: --bogus"},
		{[]string{"-x"}, "알 수 없는 플래그입니다: -x"},
		{[]string{"chekc"}, "혹시 이 명령인가요? check"},
		{[]string{"check", "--step", "x"}, "--step 의 값 x"},
		{[]string{"check", "--step"}, "--step 에는 값이 필요합니다"},
		{[]string{"check", "extra"}, "필요 없는 인자가 있습니다: extra"},
		{[]string{"check", "--replay", "reference", "--watch"}, "--replay 는 --watch"},
		{[]string{"replay", "a", "b"}, "필요 없는 인자가 있습니다: b"},
		{[]string{"sandbox"}, "할 일을 고르세요"},
		{[]string{"sandbox", "sideways"}, "알 수 없는 명령입니다: sideways"},
		{[]string{"completion", "tcsh"}, "셸을 하나 고르세요"},
		{[]string{"help", "nope"}, "알 수 없는 명령입니다: nope"},
		{[]string{"report", "--timeout", "soon"}, "--timeout 의 값 soon"},
	} {
		code, out, errOut := runStreams(tc.args...)
		if code != cli.ExitUsage || out != "" {
			t.Errorf("%v: exit %d, stdout %q", tc.args, code, out)
		}
		if !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "사용법: labmate") {
			t.Errorf("%v: stderr lacks %q or the usage line:\n%s", tc.args, tc.want, errOut)
		}
		for _, e := range english {
			if strings.Contains(errOut, e) {
				t.Errorf("%v: stderr contains %q:\n%s", tc.args, e, errOut)
			}
		}
	}
}

// labmate version says the binary's version (cli.NewVersionCmd).
func TestVersion(t *testing.T) {
	if code, out, _ := runStreams("version"); code != cli.ExitOK || !strings.HasPrefix(out, "labmate ") {
		t.Errorf("labmate version: exit %d, %q", code, out)
	}
}

// Flag values complete: --context from the kubeconfig, --step from the
// lab's steps, --lab from the installed labs.
func TestFlagValueCompletion(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "config")
	os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts:
- {name: lab-a, context: {cluster: c, user: u}}
- {name: lab-b, context: {cluster: c, user: u}}
current-context: lab-a
`), 0o600)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "--kubeconfig", kc, "--context", ""}, []string{"lab-a", "lab-b"}},
		{[]string{"__complete", "check", "--step", ""}, []string{"1\t", "8\t"}},
		{[]string{"__complete", "reset", "--step", ""}, []string{"3\t"}},
		{[]string{"__complete", "--lab", ""}, []string{"gpu-incident\t"}},
		{[]string{"__complete", "completion", ""}, []string{"bash", "zsh", "fish", "powershell"}},
		{[]string{"__complete", "sandbox", ""}, []string{"up\t", "down\t", "status\t", "build\t"}},
	} {
		code, out, _ := runStreams(tc.args...)
		if code != cli.ExitOK {
			t.Errorf("%v: exit %d", tc.args, code)
		}
		lines := strings.Split(out, "\n")
		for _, w := range tc.want {
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, w) }) {
				t.Errorf("%v: no completion %q in\n%s", tc.args, w, out)
			}
		}
	}
}

// The completion scripts load in real shells, with labmate on PATH (the
// test binary, run as labmate).
func TestCompletionScriptsLoad(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "labmate")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "LABMATE_TEST_AS_LABMATE=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	shells := []struct{ shell, script, want string }{
		{"bash", "source <(labmate completion bash); complete -p labmate", "complete -o default -F __start_labmate labmate"},
		{"zsh", "autoload -U compinit; compinit -u; source <(labmate completion zsh); print -r -- ${_comps[labmate]}", "_labmate"},
	}
	for _, sh := range shells {
		t.Run(sh.shell, func(t *testing.T) {
			path, err := exec.LookPath(sh.shell)
			if err != nil {
				// CI installs both (.ci/run) and runs the full suite with
				// LABMATE_E2E=1, where a missing shell fails; a developer
				// machine may lack zsh.
				if sh.shell == "bash" || os.Getenv("LABMATE_E2E") == "1" {
					t.Fatalf("%s is not installed", sh.shell)
				}
				t.Skipf("%s is not installed (apt-get install zsh)", sh.shell)
			}
			cmd := exec.Command(path, "-c", sh.script)
			cmd.Env = append(env, "HOME="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), sh.want) {
				t.Errorf("%s: %v\n%s", sh.shell, err, out)
			}
		})
	}
}
