package cli

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
)

// tree is a root with one subcommand taking a duration flag, its Run
// returning the code it is told.
func tree(code int) (*cobra.Command, *strings.Builder) {
	var out strings.Builder
	streams := Streams{In: strings.NewReader(""), Out: &out, ErrOut: &out}
	root := NewCommand("check", "", NoArgs, func(*cobra.Command, []string) error { return nil })
	sub := NewCommand("report", FlagsUse(), MaxArgs(1), func(*cobra.Command, []string) error { return Quiet(code) })
	sub.Flags().Duration("timeout", 20*time.Second, "t")
	Metavars(sub.Flags(), map[string]string{"timeout": "DUR"})
	root.AddCommand(sub)
	Root(root, streams)
	return root, &out
}

// Execute hands a Run's exit code through cobra unchanged and words a bad
// command line in Korean with exit code 2.
func TestExecuteExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		run  int
		want int
		says string
	}{
		{[]string{"report"}, ExitOK, ExitOK, ""},
		{[]string{"report"}, ExitFail, ExitFail, ""},
		{[]string{"report", "a", "b"}, ExitOK, ExitUsage, content.Msg("cli.extra_args", "args", "b")},
		{[]string{"report", "--timeout", "x"}, ExitOK, ExitUsage, content.Msg("cli.flag_error.bad_value", "flag", "--timeout", "value", "x", "kind", "DUR")},
		{[]string{"report", "--nope"}, ExitOK, ExitUsage, content.Msg("cli.flag_error.unknown", "flag", "--nope")},
	} {
		root, out := tree(c.run)
		if got := Execute(root, c.args, Streams{ErrOut: out}); got != c.want {
			t.Errorf("%v: exit %d, want %d\n%s", c.args, got, c.want, out)
		}
		if !strings.Contains(out.String(), c.says) {
			t.Errorf("%v: says\n%s\nwant %q", c.args, out, c.says)
		}
	}
}

// Help lists every flag with its metavar and a Korean default, never
// pflag's English "(default".
func TestHelpIsKorean(t *testing.T) {
	root, out := tree(ExitOK)
	if code := Execute(root, []string{"report", "--help"}, Streams{ErrOut: out}); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	help := out.String()
	for _, want := range []string{"--timeout DUR", content.Msg("cli.help.default", "value", content.Duration(20*time.Second)), content.Msg("cli.flag.help")} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	for _, english := range []string{"(default", "[flags]", "Usage:", "help for"} {
		if strings.Contains(help, english) {
			t.Errorf("help says %q:\n%s", english, help)
		}
	}
}

// Execute is the one place an error becomes text and an exit code: an
// ExitError says its error with its code (none when Quiet), several
// joined errors each with the first code that is not 0, a Warn its error
// with code 0.
func TestExecuteSaysWhatEndedTheCommand(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
		says string
	}{
		{nil, ExitOK, ""},
		{Exit(ExitUsage, "안 됨"), ExitUsage, "안 됨\n"},
		{Fail(errors.New("실패")), ExitFail, "실패\n"},
		{Env(errors.New("환경")), ExitUsage, "환경\n"},
		{Quiet(ExitFail), ExitFail, ""},
		{Quiet(ExitOK), ExitOK, ""},
		{Warn(errors.New("경고")), ExitOK, "경고\n"},
		{errors.Join(Quiet(ExitFail), Warn(errors.New("기록 실패"))), ExitFail, "기록 실패\n"},
		{errors.Join(Exit(ExitUsage, "먼저"), errors.New("다음")), ExitUsage, "먼저\n다음\n"},
	} {
		var out strings.Builder
		root := NewCommand("check", "", NoArgs, func(*cobra.Command, []string) error { return tc.err })
		Root(root, Streams{ErrOut: &out})
		if got := Execute(root, nil, Streams{ErrOut: &out}); got != tc.code || out.String() != tc.says {
			t.Errorf("%v: exit %d, said %q; want %d, %q", tc.err, got, out.String(), tc.code, tc.says)
		}
	}
}

// A suggested command line keeps every flag the learner gave (in a form
// a shell reads back as given), but the ones the suggestion replaces.
func TestCommandLineKeepsTheFlagsGiven(t *testing.T) {
	root := &cobra.Command{Use: "labmate"}
	root.PersistentFlags().String("lab", "", "")
	up := &cobra.Command{Use: "up", Run: func(*cobra.Command, []string) {}}
	up.Flags().String("from", "", "")
	up.Flags().String("sha256", "", "")
	up.Flags().Bool("verbose", false, "")
	up.Flags().String("name", "", "")
	sandbox := &cobra.Command{Use: "sandbox"}
	sandbox.AddCommand(up)
	root.AddCommand(sandbox)
	var got string
	up.PreRun = func(cmd *cobra.Command, _ []string) { got = CommandLine(cmd, "lab") }
	root.SetArgs([]string{"sandbox", "up", "--from", "/media/usb 1/bundle.tar.gz", "--sha256", "ab12", "--verbose", "--lab", "x"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if want := "labmate sandbox up --from '/media/usb 1/bundle.tar.gz' --sha256 ab12 --verbose"; got != want {
		t.Errorf("CommandLine = %q, want %q", got, want)
	}
}

// Confirm: a yes-word is yes, anything else no; with nothing to read it
// names the flag that answers yes.
func TestConfirm(t *testing.T) {
	for in, want := range map[string]error{"y\n": nil, "네\n": nil, "n\n": ErrNotConfirmed, "\n": ErrNotConfirmed, "maybe": ErrNotConfirmed} {
		var out strings.Builder
		if err := ConfirmOn(Streams{In: strings.NewReader(in), Out: &out}, "계속할까요? [y/N] ", "--yes"); !errors.Is(err, want) {
			t.Errorf("answer %q: %v, want %v", in, err, want)
		}
	}
	var out strings.Builder
	err := ConfirmOn(Streams{In: strings.NewReader(""), Out: &out}, "계속할까요? [y/N] ", "--yes")
	if err == nil || errors.Is(err, ErrNotConfirmed) || !strings.Contains(err.Error(), "--yes") {
		t.Errorf("no answer: %v, want an exit naming --yes", err)
	}
}
