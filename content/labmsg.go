package content

import (
	"fmt"
	"slices"
	"sync"
)

// msgLog is what Msg was asked for and could not give whole, safe for
// concurrent use: keys no text has, and placeholders a text has that the
// caller did not fill (by key).
type msgLog struct {
	mu       sync.Mutex
	missing  map[string]bool
	unfilled map[string]map[string]bool
}

// addMessages adds the texts of one messages*.toml with where each is
// written (file: its path for errors; name: relative to the lab's
// directory, as MsgAt names it).
func (l *Lab) addMessages(file, name string, raw []byte) error {
	texts := map[string]string{}
	if err := flattenMessages(file, raw, texts); err != nil {
		return err
	}
	at := keyPositions(raw)
	for k, t := range texts {
		if _, dup := l.msgs[k]; dup {
			return fmt.Errorf("%s: message %q defined twice", file, k)
		}
		l.msgs[k] = t
		l.msgAt[k] = MsgPlace{File: name, At: at[k]}
	}
	return nil
}

// Msg returns the lab's message for key (its messages*.toml first, then
// the shared text) with {name} placeholders filled. A key neither has is
// returned as is, and remembered for MissingKeys.
func (l *Lab) Msg(key string, kv ...any) string { return l.MsgIn("", key, kv...) }

// MsgIn is Msg for a lab root: {{ROOT}} in the text becomes root (kept
// as it is when root is ""), before the placeholders are filled, so a
// value filled in is shown as it was given.
func (l *Lab) MsgIn(root, key string, kv ...any) string {
	if l == nil {
		sharedOnce.Do(loadShared)
		t, ok := shared[key]
		if !ok {
			t = key
		}
		return fill(expandRoot(t, root), kv)
	}
	t, ok := l.msgs[key]
	if !ok {
		if !HasMsg(key) && l.log != nil {
			l.log.mu.Lock()
			l.log.missing[key] = true
			l.log.mu.Unlock()
		}
		sharedOnce.Do(loadShared)
		if t, ok = shared[key]; !ok {
			return key
		}
	}
	out, left := fillLeft(expandRoot(t, root), kv)
	if len(left) > 0 && l.log != nil {
		l.log.mu.Lock()
		if l.log.unfilled[key] == nil {
			l.log.unfilled[key] = map[string]bool{}
		}
		for _, name := range left {
			l.log.unfilled[key][name] = true
		}
		l.log.mu.Unlock()
	}
	return out
}

func expandRoot(t, root string) string {
	if root == "" {
		return t
	}
	return Expand(t, root)
}

// HasMsg reports whether the lab or the shared text has key. A nil Lab
// has only the shared text, as for Msg.
func (l *Lab) HasMsg(key string) bool {
	if l != nil {
		if _, ok := l.msgs[key]; ok {
			return true
		}
	}
	return HasMsg(key)
}

// OwnKeys returns the message keys the lab itself defines, sorted.
func (l *Lab) OwnKeys() []string {
	keys := make([]string, 0, len(l.msgs))
	for k := range l.msgs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// MissingKeys returns the keys Msg was asked for that neither the lab nor
// the shared text defines, sorted (`labmate lab verify` fails on them).
func (l *Lab) MissingKeys() []string {
	if l.log == nil {
		return nil
	}
	l.log.mu.Lock()
	defer l.log.mu.Unlock()
	keys := make([]string, 0, len(l.log.missing))
	for k := range l.log.missing {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Unfilled returns, by message key, the placeholders Msg found in a text
// (the lab's or the shared one) that its caller gave no value for, each
// list sorted: the learner read them as written (`labmate lab verify`
// fails on them).
func (l *Lab) Unfilled() map[string][]string {
	out := map[string][]string{}
	if l == nil || l.log == nil {
		return out
	}
	l.log.mu.Lock()
	defer l.log.mu.Unlock()
	for k, names := range l.log.unfilled {
		for n := range names {
			out[k] = append(out[k], n)
		}
		slices.Sort(out[k])
	}
	return out
}
