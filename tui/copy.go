package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/page"
)

// copyTargets lists what the copy key can put on the clipboard for one
// page, in the order the text mentions them: shell commands from fenced
// code blocks, and paths and commands from inline code or written out
// under {{ROOT}}. It reads the markdown source, never rendered text, so a
// copied command has no wrapping, margins or styling in it.
func copyTargets(md, root string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(content.Expand(s, root))
		s = strings.TrimRight(s, ".,;:)")
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if fence, lang, ok := fenceOpen(l); ok {
			var body []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), fence); i++ {
				body = append(body, lines[i])
			}
			if shellLang(lang) {
				for _, c := range shellCommands(body) {
					add(c)
				}
			}
			continue
		}
		for _, m := range inlineCode().FindAllStringSubmatchIndex(l, -1) {
			code := l[m[2]:m[3]]
			if looksLikePath(code) || looksLikeCommand(code) {
				add(code)
			}
		}
		// Paths written out in prose, outside code spans.
		prose := inlineCode().ReplaceAllString(l, " ")
		for _, p := range rootPath().FindAllString(prose, -1) {
			add(p)
		}
	}
	return out
}

// Compiled when first used, not at package init: start-up pays only for
// what it runs.
var (
	inlineCode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`]+)`") })
	rootPath   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\{\{ROOT\}\}[^\s"'` + "`" + `,()\p{Hangul}]*`)
	})
)

func fenceOpen(l string) (fence, lang string, ok bool) {
	t := strings.TrimSpace(l)
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f, strings.ToLower(strings.TrimSpace(strings.TrimLeft(t, f[:1]))), true
		}
	}
	return "", "", false
}

func shellLang(lang string) bool {
	switch lang {
	case "", "sh", "bash", "shell", "console", "zsh", "shell-session":
		return true
	}
	return false
}

// shellCommands splits a shell block into commands: one per line, a
// "$ " prompt dropped, comments skipped; a block with a here-document or
// line continuations is one command.
func shellCommands(body []string) []string {
	joined := strings.Join(body, "\n")
	if strings.Contains(joined, "<<") || strings.Contains(joined, "\\\n") {
		var b []string
		for _, l := range body {
			b = append(b, strings.TrimPrefix(l, "$ "))
		}
		return []string{strings.TrimSpace(strings.Join(b, "\n"))}
	}
	var out []string
	for _, l := range body {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "$ "))
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}

func looksLikePath(s string) bool {
	if strings.ContainsAny(s, " \t") {
		return false
	}
	return strings.HasPrefix(s, "{{ROOT}}") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~/")
}

var commandWords = []string{"kubectl ", "containerd ", "cat ", "chmod ", "mkdir ", "sh ", "bash ", "crictl ", "labmate ", "tmux ", "vi ", "nano ", "python3 "}

func looksLikeCommand(s string) bool {
	for _, w := range commandWords {
		if strings.HasPrefix(s, w) {
			return true
		}
	}
	return false
}

// copier is the copy key: what each page offers to copy (read from its
// markdown source once), which of it comes next, and the clipboard it
// goes to.
type copier struct {
	clip    clipboard
	targets [][]string  // by page
	next    map[int]int // by page: which target comes next
}

// newCopier reads the copy targets of every page's markdown (mds, by
// page) under root.
func newCopier(clip clipboard, mds []string, root string) copier {
	if clip.mode == "" {
		clip.mode = ClipboardAuto
	}
	c := copier{clip: clip, next: map[int]int{}}
	for _, md := range mds {
		c.targets = append(c.targets, copyTargets(md, root))
	}
	return c
}

// offers lists what the copy key offers on page.
func (c copier) offers(page int) []string {
	if page >= 0 && page < len(c.targets) {
		return c.targets[page]
	}
	return nil
}

// works reports whether the copy key does something on page.
func (c copier) works(page int) bool { return c.clip.enabled() && len(c.offers(page)) > 0 }

// copyNext copies page's next target (they take turns), from a command.
func (c copier) copyNext(page int) tea.Cmd {
	targets := c.offers(page)
	if len(targets) == 0 || !c.clip.enabled() {
		return nil
	}
	i := c.next[page] % len(targets)
	c.next[page] = i + 1
	return copyCmd(c.clip, targets[i])
}

// copiedMsg reports where a copy went.
type copiedMsg struct {
	text string
	// osc52 is true when the OSC 52 sequence was written to the terminal.
	osc52 bool
	// tmux is true when the text is in a tmux buffer; tmuxErr says why not
	// when it was tried and failed.
	tmux    bool
	tmuxErr error
	// tmuxClipboard is tmux's set-clipboard option ("on", "external",
	// "off") when known: with "off" nothing reaches the system clipboard.
	tmuxClipboard string
}

// clipboard is where copies go. It is resolved once from the options and
// the environment; the writes happen in a command.
type clipboard struct {
	mode string    // ClipboardAuto, ...
	out  io.Writer // the terminal, for OSC 52; nil: none
	tmux bool      // $TMUX is set
}

func (c clipboard) enabled() bool {
	switch c.mode {
	case ClipboardOff:
		return false
	case ClipboardTmux:
		return c.tmux
	case ClipboardOSC52:
		return c.out != nil
	}
	return c.out != nil || c.tmux
}

// copyCmd puts text on the clipboard: an OSC 52 sequence written to the
// terminal in one write (so it never interleaves with a frame), and inside
// tmux `tmux load-buffer -w -` as well, since tmux drops OSC 52 from
// programs unless set-clipboard is on.
func copyCmd(c clipboard, text string) tea.Cmd {
	return func() tea.Msg {
		res := copiedMsg{text: text}
		if c.out != nil && (c.mode == ClipboardAuto || c.mode == ClipboardOSC52 || c.mode == "") {
			seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
			_, err := io.WriteString(c.out, seq)
			res.osc52 = err == nil
		}
		if c.tmux && c.mode != ClipboardOSC52 {
			res.tmuxErr = tmuxLoadBuffer(text)
			res.tmux = res.tmuxErr == nil
			if res.tmux {
				res.tmuxClipboard = tmuxOption("set-clipboard")
			}
		}
		return res
	}
}

const tmuxTimeout = 2 * time.Second

func tmuxLoadBuffer(text string) error {
	// -w also hands the buffer to the outer terminal's clipboard (tmux 3.2+).
	if err := tmuxRun(text, "load-buffer", "-w", "-"); err == nil {
		return nil
	}
	return tmuxRun(text, "load-buffer", "-")
}

// tmuxRun runs tmux with args and stdin, bounded in time; tmux's own
// words on failure become the error.
func tmuxRun(stdin string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), tmuxTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return errors.New(msg)
		}
		return err
	}
	return nil
}

func tmuxOption(name string) string {
	ctx, cancel := context.WithTimeout(context.Background(), tmuxTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", "show-options", "-gv", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// copiedText says where a copy went, with the copied text and any error
// cut to room cells (0: whole).
func copiedText(c copiedMsg, room int) string {
	shown := elide(firstLine(c.text), room)
	if firstLine(c.text) != c.text {
		shown += " ..."
	}
	errText := func() string { return elide(page.Untab(c.tmuxErr.Error()), room) }
	switch {
	case c.tmux && c.tmuxClipboard == "off":
		// tmux drops OSC 52 from programs: only its buffer has the text.
		return content.Msg("tui.toast.copied_tmux_clipboard_off", "text", shown)
	case c.tmux && c.osc52:
		return content.Msg("tui.toast.copied_tmux", "text", shown)
	case c.tmux:
		return content.Msg("tui.toast.copied_tmux_only", "text", shown)
	case c.osc52 && c.tmuxErr != nil:
		return content.Msg("tui.toast.copied_osc52_tmux_failed", "text", shown, "err", errText())
	case c.osc52:
		return content.Msg("tui.toast.copied_osc52", "text", shown)
	case c.tmuxErr != nil:
		return content.Msg("tui.toast.copy_failed", "err", errText())
	}
	return content.Msg("tui.toast.copy_failed", "err", "-")
}

// elide shortens s to n cells (n <= 0: not at all) by cutting its middle:
// the end of a path or a command says the most.
func elide(s string, n int) string {
	w := ansi.StringWidth(s)
	if n <= 0 || w <= n {
		return s
	}
	head := max(n-2, 0) / 3
	tail := max(n-2-head, 0)
	return ansi.Truncate(s, head, "") + ".." + ansi.TruncateLeft(s, w-tail, "")
}

// CopyTargets are what the copy key offers for a page of markdown md
// under root, in the order the text mentions them (plain mode's copy
// command says them).
func CopyTargets(md, root string) []string { return copyTargets(md, root) }
