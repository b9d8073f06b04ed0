package tui

import "github.com/labhub/labmate/config"

// WithConfig folds the learner's config file into opts: the theme unless
// one was already chosen (a --theme flag wins over the file), the
// clipboard mode, key rebinding, and the file's warnings as notices shown
// at start.
func WithConfig(opts Options, c config.Config, warnings []string) Options {
	if opts.Theme == "" {
		opts.Theme = c.Theme
	}
	if opts.Clipboard == "" {
		opts.Clipboard = c.Clipboard
	}
	if len(c.Keys) > 0 {
		keys := make(map[string][]string, len(opts.Keys)+len(c.Keys))
		for k, v := range c.Keys {
			keys[k] = v
		}
		for k, v := range opts.Keys {
			keys[k] = v
		}
		opts.Keys = keys
	}
	opts.Notices = append(append([]string(nil), opts.Notices...), warnings...)
	return opts
}
