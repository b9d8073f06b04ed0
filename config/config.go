// Package config reads the learner's settings from a small TOML file
// ($XDG_CONFIG_HOME/labmate/config.toml, or --config):
//
//	theme = "auto"        # auto | dark | light
//	clipboard = "auto"    # auto | osc52 | tmux | off
//
//	[keys]                # action = key or [keys], see the cheat sheet
//	next = ["l", "right"]
//	hint = "?"
//
//	[roots]               # lab ID = where its files go (absolute or ~/)
//	gpu-incident = "~/labs/gpuop"
//
// The TUI reads the look and the keys; the catalog reads [roots] when it
// chooses a lab's root (labroot). A missing file is no error. A bad file
// never stops labmate: every problem becomes a Korean warning and that
// setting keeps its default.
package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/dirs"
)

// Config is what the file sets; empty fields mean "the default".
type Config struct {
	Theme     string              // "", "auto", "dark" or "light"
	Clipboard string              // "", "auto", "osc52", "tmux" or "off"
	Keys      map[string][]string // action name → keys, checked by the key map
	// Roots are lab roots by lab ID, as written: absolute, or under the
	// home ("~/x"; labroot expands it).
	Roots map[string]string
}

// maxSize caps what is read: a settings file is a few hundred bytes.
const maxSize = 64 << 10

var (
	themes     = []string{"auto", "dark", "light"}
	clipboards = []string{"auto", "osc52", "tmux", "off"}
)

// DefaultPath is $XDG_CONFIG_HOME/labmate/config.toml, or
// ~/.config/labmate/config.toml; "" when neither can be known.
func DefaultPath() string {
	d, err := dirs.Config()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "config.toml")
}

// Path is the settings file: the one named (--config), else DefaultPath.
func Path(named string) string {
	if named != "" {
		return named
	}
	return DefaultPath()
}

// Load reads the file at path. It always returns a usable Config; the
// warnings (Korean) say what was ignored and why.
func Load(path string) (Config, []string) {
	var cfg Config
	if path == "" {
		return cfg, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, []string{warn("unreadable", path, "err", err)}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return cfg, []string{warn("is_dir", path)}
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return cfg, []string{warn("unreadable", path, "err", err)}
	}
	if len(raw) > maxSize {
		return cfg, []string{warn("too_large", path, "max", maxSize)}
	}
	var tree map[string]any
	if err := toml.Unmarshal(raw, &tree); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return cfg, []string{warn("parse", path, "line", row, "column", col, "err", de.Error())}
		}
		return cfg, []string{warn("parse_plain", path, "err", err)}
	}
	var warns []string
	names := make([]string, 0, len(tree))
	for k := range tree {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := tree[k]
		switch k {
		case "theme":
			cfg.Theme, warns = oneOf(path, k, v, themes, warns)
		case "clipboard":
			cfg.Clipboard, warns = oneOf(path, k, v, clipboards, warns)
		case "keys":
			cfg.Keys, warns = keyTable(path, v, warns)
		case "roots":
			cfg.Roots, warns = rootTable(path, v, warns)
		default:
			warns = append(warns, warn("unknown", path, "key", k))
		}
	}
	return cfg, warns
}

func oneOf(path, key string, v any, allowed []string, warns []string) (string, []string) {
	s, ok := v.(string)
	s = strings.ToLower(strings.TrimSpace(s))
	for _, a := range allowed {
		if ok && s == a {
			return s, warns
		}
	}
	return "", append(warns, warn("bad_value", path, "key", key, "value", fmt.Sprint(v), "allowed", strings.Join(allowed, ", ")))
}

func keyTable(path string, v any, warns []string) (map[string][]string, []string) {
	t, ok := v.(map[string]any)
	if !ok {
		return nil, append(warns, warn("keys_not_table", path))
	}
	out := map[string][]string{}
	for action, kv := range t {
		switch k := kv.(type) {
		case string:
			out[action] = []string{k}
		case []any:
			var ks []string
			good := true
			for _, e := range k {
				s, ok := e.(string)
				if !ok {
					good = false
					break
				}
				ks = append(ks, s)
			}
			if good {
				out[action] = ks
				continue
			}
			warns = append(warns, warn("key_not_string", path, "action", action))
		default:
			warns = append(warns, warn("key_not_string", path, "action", action))
		}
	}
	return out, warns
}

// rootTable reads [roots]: a lab ID to a path that is absolute or
// starts at the home (~/). A relative path would change with the
// directory labmate is started in.
func rootTable(path string, v any, warns []string) (map[string]string, []string) {
	t, ok := v.(map[string]any)
	if !ok {
		return nil, append(warns, warn("roots_not_table", path))
	}
	ids := make([]string, 0, len(t))
	for id := range t {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := map[string]string{}
	for _, id := range ids {
		p, ok := t[id].(string)
		if !ok || !(filepath.IsAbs(p) || p == "~" || strings.HasPrefix(p, "~/")) {
			warns = append(warns, warn("root_bad", path, "lab", id, "value", fmt.Sprint(t[id])))
			continue
		}
		out[id] = p
	}
	return out, warns
}

func warn(key, path string, kv ...any) string {
	return content.Msg("config."+key, append([]any{"path", path}, kv...)...)
}
