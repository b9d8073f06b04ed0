package terminal

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// panicky panics in Update on the message "update", in View once told to,
// and returns its cmd otherwise.
type panicky struct {
	cmd      tea.Cmd
	viewBoom *bool
}

func (panicky) Init() tea.Cmd { return nil }

func (m panicky) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if msg == "update" {
		panic("boom in Update")
	}
	return m, m.cmd
}

func (m panicky) View() string {
	if m.viewBoom != nil && *m.viewBoom {
		panic("boom in View")
	}
	return ""
}

func newDrawn(inner tea.Model) drawn {
	return drawn{inner, newScreen(io.Discard), &panicked{}}
}

// quits reports whether cmd is tea.Quit.
func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// A panic in the model's Update or View is kept, with its stack, and ends
// the program; later messages no longer reach the model.
func TestDrawnCatchesModelPanics(t *testing.T) {
	for _, where := range []string{"Update", "View"} {
		t.Run(where, func(t *testing.T) {
			boom := where == "View"
			d := newDrawn(panicky{viewBoom: &boom})
			msg := "update"
			if where == "View" {
				msg = "other"
			}
			_, cmd := d.Update(msg)
			if !quits(cmd) {
				t.Fatal("a panic did not end the program")
			}
			if got := d.crash.value; got != "boom in "+where {
				t.Errorf("kept %v", got)
			}
			if !strings.Contains(string(d.crash.stack), "panicky."+where) {
				t.Errorf("stack does not name the panicking method:\n%s", d.crash.stack)
			}
			if err := d.crash.Error(); !strings.Contains(err, "boom in "+where) || !strings.Contains(err, "goroutine ") {
				t.Errorf("error text lacks the value or the stack: %s", err)
			}
			if _, cmd := d.Update(msg); cmd != nil || d.crash.value != "boom in "+where {
				t.Errorf("after the panic: cmd %v, kept %v", cmd, d.crash.value)
			}
		})
	}
}

// A panic in a command or in a batch (nested too) comes back as a
// panicked message, which ends the program.
func TestGuardCatchesCommandPanics(t *testing.T) {
	boom := func() tea.Msg { panic("boom in a command") }
	fine := func() tea.Msg { return "fine" }
	for name, cmd := range map[string]tea.Cmd{
		"command": boom,
		"batch":   tea.Batch(fine, boom),
		"nested":  tea.Batch(fine, tea.Batch(fine, tea.Batch(fine, boom))),
	} {
		t.Run(name, func(t *testing.T) {
			d := newDrawn(panicky{cmd: cmd})
			_, guarded := d.Update("go")
			p := firstPanic(guarded)
			if p == nil || p.value != "boom in a command" {
				t.Fatalf("panic not caught: %+v", p)
			}
			if _, cmd := d.Update(*p); !quits(cmd) || d.crash.value != "boom in a command" {
				t.Errorf("the panicked message did not end the program: kept %v", d.crash.value)
			}
		})
	}
}

// firstPanic runs cmd the way bubbletea does, the commands of a batch
// too, and returns the first panicked message; a panic that escapes fails
// as a panic of the test.
func firstPanic(cmd tea.Cmd) *panicked {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case panicked:
		return &msg
	case tea.BatchMsg:
		for _, c := range msg {
			if p := firstPanic(c); p != nil {
				return p
			}
		}
	}
	return nil
}

// guard cannot look into a tea.Sequence (its message type is not
// exported), so no program labmate runs may use one: its commands'
// panics would be caught by bubbletea, which prints them on the
// alternate screen where they vanish.
func TestNoSequences(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		name := ""
		for _, imp := range f.Imports {
			if imp.Path.Value == `"github.com/charmbracelet/bubbletea"` {
				name = "tea"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		if name == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sequence" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == name {
					t.Errorf("%s: tea.Sequence: its commands' panics escape guard", fset.Position(sel.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every line is written from its first column and cut to the window's
// width, Korean counted as two cells each; the rest of the row is erased
// only where the line is narrower than the window (after a line as wide
// as the window the cursor is on its last cell, which erasing would
// blank).
func TestTerminalDrawFitsLinesToTheWidth(t *testing.T) {
	var out bytes.Buffer
	s := newScreen(&out)
	s.width, s.height = 10, 8
	s.submit(strings.Join([]string{
		"0123456789",               // as wide as the window
		"\x1b[1m0123456789\x1b[0m", // the same, styled
		"가나다라마바",                   // 12 cells
		"abc가나다라",                  // 11 cells: 가나다 fits, 라 does not
		"01234567890123",           // 14 cells
		"short",                    // narrower
		"",                         // empty
		"한글",                       // 4 cells
	}, "\n"), true)
	s.draw()
	want := "\x1b[2J" +
		"\x1b[1;1H0123456789\x1b[0m" +
		"\x1b[2;1H\x1b[1m0123456789\x1b[0m\x1b[0m" +
		"\x1b[3;1H가나다라마\x1b[0m" +
		"\x1b[4;1Habc가나다\x1b[0m\x1b[K" +
		"\x1b[5;1H0123456789\x1b[0m" +
		"\x1b[6;1Hshort\x1b[0m\x1b[K" +
		"\x1b[7;1H\x1b[0m\x1b[K" +
		"\x1b[8;1H한글\x1b[0m\x1b[K"
	if got := out.String(); got != want {
		t.Errorf("frame:\n got %q\nwant %q", got, want)
	}
}
