package checks

import (
	"path"
	"strings"
)

// Step 1: the incident node's main containerd config.

const runcRuntimeType = "io.containerd.runc.v2"

var (
	defaultRuntimePath = append(append([]string(nil), runtimesPath[:3]...), "default_runtime_name")
	runcTypePath       = runtimePath("runc", "runtime_type")
	runcSystemdPath    = runtimePath("runc", "options", "SystemdCgroup")
	importsWant        = []any{"/etc/containerd/conf.d/*.toml"}
)

// runtimePath is a key under runtimes.<name>; the runtime's name is the
// anchor used to find a misplaced key (index 4).
func runtimePath(name string, rest ...string) []string {
	return append(append(append([]string(nil), runtimesPath...), name), rest...)
}

const runtimeAnchor = 4

func evalMainConfig(in Input) StepEval {
	tf := openTOML(in, "main-config", mainConfigPath)
	specs := []keySpec{
		{id: "main-config.version", path: []string{"version"}, anchor: -1, want: int64(2), hint: versionHint},
		{id: "main-config.default-runtime", path: defaultRuntimePath, anchor: -1, want: "runc", hint: defaultRuntimeHint},
		{id: "main-config.runc-runtime-type", path: runcTypePath, anchor: runtimeAnchor, want: runcRuntimeType, hint: runtimeTypeHint},
		{id: "main-config.runc-systemd-cgroup", path: runcSystemdPath, anchor: runtimeAnchor, want: true, hint: systemdHint},
	}
	ev := StepEval{Checks: []Result{tf.file, tf.parse}}
	if tf.doc == nil {
		ev.Checks = append(ev.Checks, waitingOnParse(specs[0]), waitingOnParse(keySpec{id: "main-config.imports", path: []string{"imports"}}))
		for _, s := range specs[1:] {
			ev.Checks = append(ev.Checks, waitingOnParse(s))
		}
		ev.Observed = fileFacts(tf)
		return ev
	}
	d := tf.doc
	ev.Checks = append(ev.Checks, d.check(in, specs[0]), checkImports(in, d))
	for _, s := range specs[1:] {
		ev.Checks = append(ev.Checks, d.check(in, s))
	}
	runtimes, _ := d.runtimeNames()
	ev.Observed = append(fileFacts(tf),
		d.valueFact("version", []string{"version"}),
		d.valueFact("imports", []string{"imports"}),
		Fact{Label: msg("files.fact.imports_dropin"), Value: importsVerdict(in, d)},
		d.valueFact("default_runtime_name", defaultRuntimePath),
		Fact{Label: msg("files.fact.runtimes"), Value: joinOr(runtimes, ", ")},
		d.valueFact("runtimes.runc.runtime_type", runcTypePath),
		d.valueFact("runtimes.runc.options.SystemdCgroup", runcSystemdPath),
	)
	return ev
}

// checkImports: a top-level array of strings, one ending in conf.d/*.toml.
func checkImports(in Input, d *tomlDoc) Result {
	const id = "main-config.imports"
	key := []string{"imports"}
	v, ok := d.get(key)
	if !ok {
		return d.missing(in, keySpec{id: id, path: key, anchor: -1, want: importsWant})
	}
	line := d.line(key)
	at := where(d.rel, line)
	expected := msg("files.main.imports_expected")
	got := tomlValue(v)
	arr, isArray := v.([]any)
	if !isArray {
		if s, isString := v.(string); isString {
			return failed(id, msg("files.main.imports_string", "got", got, "line", line, "fix", tomlValue([]any{s})), expected, got, at)
		}
		return failed(id, msg("files.key.wrong_type", "key", "imports", "got", got, "got_type", typeName(v),
			"want", tomlValue(importsWant), "want_type", typeName(importsWant), "line", line), expected, got, at)
	}
	var items []string
	for i, x := range arr {
		s, isString := x.(string)
		if !isString {
			return failed(id, msg("files.main.imports_item_type", "index", i+1, "got", tomlValue(x), "got_type", typeName(x), "line", line), expected, got, at)
		}
		items = append(items, s)
	}
	for _, s := range items {
		if strings.HasSuffix(s, "conf.d/*.toml") {
			return passed(id, msg("files.main.imports_ok", "item", tomlValue(s), "line", line))
		}
	}
	var hint string
	for _, s := range items {
		switch {
		case strings.Contains(s, "conf.d/") && !strings.Contains(s, "*"):
			hint = msg("files.main.imports_hint_single")
		case strings.Contains(s, "conf.d/") && !strings.HasSuffix(s, ".toml"):
			hint = msg("files.main.imports_hint_ext")
		}
	}
	return failed(id, msg("files.main.imports_no_glob", "got", got, "line", line)+hint, expected, got, at)
}

// resolveImport turns an import pattern into a lab-relative one the way
// containerd resolves it: relative to the main config's directory; an
// absolute path is read inside the lab root, which stands for the node's /.
func resolveImport(imp string) string {
	if path.IsAbs(imp) {
		return strings.TrimPrefix(path.Clean(imp), "/")
	}
	return path.Join(path.Dir(mainConfigPath), imp)
}

// importsVerdict says whether the main config's imports would load the
// drop-in, and through which pattern.
func importsVerdict(in Input, d *tomlDoc) string {
	v, ok := d.get([]string{"imports"})
	if !ok {
		return msg("files.fact.imports_none")
	}
	arr, _ := v.([]any)
	var tried []string
	for _, x := range arr {
		s, isString := x.(string)
		if !isString {
			continue
		}
		pattern := resolveImport(s)
		if m, err := path.Match(pattern, dropInPath); err == nil && m {
			return msg("files.fact.imports_yes", "item", tomlValue(s), "resolved", shown(in, pattern))
		}
		tried = append(tried, tomlValue(s)+" -> "+shown(in, pattern))
	}
	return msg("files.fact.imports_no", "tried", joinOr(tried, "; "), "dropin", shown(in, dropInPath))
}

func versionHint(got any) string {
	switch got {
	case int64(3):
		return msg("files.hint.version_3")
	case int64(1):
		return msg("files.hint.version_1")
	}
	return ""
}

func defaultRuntimeHint(got any) string {
	if got == "nvidia" {
		return msg("files.hint.default_nvidia")
	}
	return stringHint(got, "runc")
}

func systemdHint(got any) string {
	if got == false {
		return msg("files.hint.systemd_false")
	}
	return ""
}

func runtimeTypeHint(got any) string {
	s, _ := got.(string)
	switch {
	case s == "io.containerd.runc.v1" || s == "io.containerd.runtime.v1.linux":
		return msg("files.hint.runtime_type_v1", "got", s)
	case s == "runc" || s == "nvidia" || strings.Contains(s, "/") || strings.Contains(s, "nvidia-container-runtime"):
		return msg("files.hint.runtime_type_binary")
	}
	return stringHint(got, runcRuntimeType)
}

// stringHint catches the near misses of a string value: stray spaces and
// wrong case.
func stringHint(got any, want string) string {
	s, _ := got.(string)
	switch {
	case strings.TrimSpace(s) == want:
		return msg("files.hint.whitespace")
	case strings.EqualFold(s, want):
		return msg("files.hint.value_case")
	}
	return ""
}

// fileFacts are the observed lines every file step starts with.
func fileFacts(tf tomlFile) []Fact {
	facts := []Fact{{Label: msg("files.fact.file"), Value: tf.file.Message}}
	if tf.file.Status == Passed {
		facts = append(facts, Fact{Label: "TOML", Value: tf.parse.Message})
	}
	return facts
}

// valueFact shows what the parser found at a key path.
func (d *tomlDoc) valueFact(label string, p []string) Fact {
	v, ok := d.get(p)
	if !ok {
		return Fact{Label: label, Value: msg("files.seen.absent")}
	}
	return Fact{Label: label, Value: msg("files.fact.value", "value", tomlValue(v), "type", typeName(v), "line", d.line(p))}
}
