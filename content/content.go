// Package content holds every piece of user-facing Korean text: the lab's
// introduction and steps (markdown), hints and worked solutions, check
// messages and UI strings. It is data, embedded with go:embed, plus the
// small loader that reads it. A second lab is a second directory here.
package content

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

//go:embed all:gpu-incident ui.toml ui-*.toml
var files embed.FS

// DefaultLabID is the lab labmate opens when none is named.
const DefaultLabID = "gpu-incident"

// Lab is one lab's text.
type Lab struct {
	ID          string `toml:"id"`
	Title       string `toml:"title"`
	DefaultRoot string `toml:"default_root"`
	IntroFile   string `toml:"intro"`
	Steps       []Step `toml:"steps"`

	Intro string `toml:"-"` // markdown, with {{ROOT}} placeholders
}

// Step is one step's text. Body and Solution are markdown with {{ROOT}}
// placeholders; Hints escalate from a nudge to nearly the answer.
type Step struct {
	Number       int      `toml:"number"`
	ID           string   `toml:"id"`
	Title        string   `toml:"title"`
	BodyFile     string   `toml:"body"`
	SolutionFile string   `toml:"solution"`
	Hints        []string `toml:"hints"`

	Body     string `toml:"-"`
	Solution string `toml:"-"`
}

var (
	labsOnce sync.Once
	labs     map[string]*Lab
	msgs     map[string]string
	labsErr  error
)

func load() {
	labs = map[string]*Lab{}
	msgs = map[string]string{}
	// ui.toml holds strings every part shares; ui-*.toml hold one part's
	// strings each (ui-tui.toml: the TUI), so parts can be edited apart.
	uis, _ := fs.Glob(files, "ui-*.toml")
	sort.Strings(uis)
	for _, name := range append([]string{"ui.toml"}, uis...) {
		if err := loadMessages(name); err != nil {
			labsErr = err
			return
		}
	}
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		labsErr = err
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		l, err := loadLab(e.Name())
		if err != nil {
			labsErr = fmt.Errorf("content %s: %w", e.Name(), err)
			return
		}
		labs[l.ID] = l
	}
}

func loadLab(dir string) (*Lab, error) {
	raw, err := files.ReadFile(path.Join(dir, "lab.toml"))
	if err != nil {
		return nil, err
	}
	var l Lab
	if err := toml.Unmarshal(raw, &l); err != nil {
		return nil, fmt.Errorf("lab.toml: %w", err)
	}
	read := func(name string) (string, error) {
		if name == "" {
			return "", nil
		}
		b, err := files.ReadFile(path.Join(dir, name))
		return string(b), err
	}
	if l.Intro, err = read(l.IntroFile); err != nil {
		return nil, err
	}
	for i := range l.Steps {
		s := &l.Steps[i]
		if s.Body, err = read(s.BodyFile); err != nil {
			return nil, err
		}
		if s.Solution, err = read(s.SolutionFile); err != nil {
			return nil, err
		}
	}
	ms, _ := fs.Glob(files, path.Join(dir, "messages*.toml"))
	sort.Strings(ms)
	for _, m := range ms {
		if err := loadMessages(m); err != nil {
			return nil, err
		}
	}
	return &l, nil
}

// loadMessages merges a flat TOML table of key = "text" into msgs. Nested
// tables become dotted keys.
func loadMessages(name string) error {
	raw, err := files.ReadFile(name)
	if err != nil {
		return err
	}
	var tree map[string]any
	if err := toml.Unmarshal(raw, &tree); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var walk func(prefix string, v any) error
	walk = func(prefix string, v any) error {
		switch t := v.(type) {
		case map[string]any:
			for k, sub := range t {
				key := k
				if prefix != "" {
					key = prefix + "." + k
				}
				if err := walk(key, sub); err != nil {
					return err
				}
			}
		case string:
			if _, dup := msgs[prefix]; dup {
				return fmt.Errorf("%s: message %q defined twice", name, prefix)
			}
			msgs[prefix] = t
		default:
			return fmt.Errorf("%s: message %q is not a string", name, prefix)
		}
		return nil
	}
	return walk("", tree)
}

// Load returns a lab by ID.
func Load(id string) (*Lab, error) {
	labsOnce.Do(load)
	if labsErr != nil {
		return nil, labsErr
	}
	l, ok := labs[id]
	if !ok {
		return nil, fmt.Errorf("no lab %q", id)
	}
	return l, nil
}

// Msg returns the Korean message for key with {name} placeholders filled
// from kv pairs ("name", value, ...). An unknown key returns the key itself
// so a missing text is visible but never fatal; a test keeps keys complete.
func Msg(key string, kv ...any) string {
	labsOnce.Do(load)
	t, ok := msgs[key]
	if !ok {
		t = key
	}
	if len(kv) == 0 {
		return t
	}
	pairs := make([]string, 0, len(kv))
	for i := 0; i+1 < len(kv); i += 2 {
		pairs = append(pairs, "{"+fmt.Sprint(kv[i])+"}", fmt.Sprint(kv[i+1]))
	}
	return strings.NewReplacer(pairs...).Replace(t)
}

// HasMsg reports whether a message key exists (for tests).
func HasMsg(key string) bool {
	labsOnce.Do(load)
	_, ok := msgs[key]
	return ok
}

// Expand replaces the {{ROOT}} placeholder with the lab root in use, so the
// learner sees the real paths.
func Expand(md, root string) string {
	return strings.ReplaceAll(md, "{{ROOT}}", root)
}
