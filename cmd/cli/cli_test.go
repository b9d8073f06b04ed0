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
	root := NewCommand("check", "", NoArgs, func(*cobra.Command, []string) int { return ExitOK })
	sub := NewCommand("report", FlagsUse(), MaxArgs(1), func(*cobra.Command, []string) int { return code })
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

// ExitWith says an Exit's message and returns its code; any other error
// is exit 1.
func TestExitWith(t *testing.T) {
	var out strings.Builder
	if got := ExitWith(Exit(ExitUsage, "안 됨"), &out); got != ExitUsage || out.String() != "안 됨\n" {
		t.Errorf("Exit: %d %q", got, out.String())
	}
	out.Reset()
	if got := ExitWith(errors.New("x"), &out); got != ExitFail || out.String() != "x\n" {
		t.Errorf("other: %d %q", got, out.String())
	}
	if got := ExitWith(nil, &out); got != ExitOK {
		t.Errorf("nil: %d", got)
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
		if err := Confirm(Streams{In: strings.NewReader(in), Out: &out}, "계속할까요? [y/N] ", "--yes"); !errors.Is(err, want) {
			t.Errorf("answer %q: %v, want %v", in, err, want)
		}
	}
	var out strings.Builder
	err := Confirm(Streams{In: strings.NewReader(""), Out: &out}, "계속할까요? [y/N] ", "--yes")
	if err == nil || errors.Is(err, ErrNotConfirmed) || !strings.Contains(err.Error(), "--yes") {
		t.Errorf("no answer: %v, want an exit naming --yes", err)
	}
}
