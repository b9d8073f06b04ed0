package gpuincident

import (
	"path"
	"strings"

	"github.com/labhub/labmate/checks"
)

// Step 1: the incident node's main containerd config.
//
// Each rule's behaviour and source is in the step's 사실 근거
// (content/labs/gpu-incident/steps/01-main-config.md): version an
// integer (containerd's Version int; unversioned reads as 1, RELEASES.md),
// imports a glob array (resolveImports), runc.v2 with SystemdCgroup a
// boolean (kubernetes.io "Container Runtimes", containerd Decode), runc
// the default (the incident node of the LabHub page "GPU 사고 재현").

const runcRuntimeType = "io.containerd.runc.v2"

var (
	defaultRuntimePath = []string{"plugins", criPlugin, "containerd", "default_runtime_name"}
	runcTypePath       = []string{"plugins", criPlugin, "containerd", "runtimes", "runc", "runtime_type"}
	runcSystemdPath    = []string{"plugins", criPlugin, "containerd", "runtimes", "runc", "options", "SystemdCgroup"}
	importsWant        = []any{"/etc/containerd/conf.d/*.toml"}
)

const runtimeAnchor = 4

func evalMainConfig(in checks.Input) checks.StepEval {
	tf := checks.OpenTOML(in, "main-config", mainConfigPath)
	specs := []checks.KeySpec{
		{ID: "main-config.version", Path: []string{"version"}, Anchor: -1, Want: int64(2), Hint: versionHint, PathHint: pathHints},
		{ID: "main-config.default-runtime", Path: defaultRuntimePath, Anchor: -1, Want: "runc", Hint: defaultRuntimeHint, PathHint: pathHints},
		{ID: "main-config.runc-runtime-type", Path: runcTypePath, Anchor: runtimeAnchor, Want: runcRuntimeType, Hint: runtimeTypeHint, PathHint: pathHints},
		{ID: "main-config.runc-systemd-cgroup", Path: runcSystemdPath, Anchor: runtimeAnchor, Want: true, Hint: systemdHint, PathHint: pathHints},
	}
	ev := checks.StepEval{Checks: []checks.Result{tf.File, tf.Parse}}
	if tf.Doc == nil {
		ev.Checks = append(ev.Checks, waitingOnParse(specs[0]), waitingOnParse(checks.KeySpec{ID: "main-config.imports", Path: []string{"imports"}}))
		for _, s := range specs[1:] {
			ev.Checks = append(ev.Checks, waitingOnParse(s))
		}
		ev.Observed = fileFacts(tf)
		return ev
	}
	d := tf.Doc
	ev.Checks = append(ev.Checks, d.Check(in, specs[0]), checkImports(in, d))
	for _, s := range specs[1:] {
		ev.Checks = append(ev.Checks, d.Check(in, s))
	}
	runtimes, _ := runtimeNames(d)
	ev.Observed = append(fileFacts(tf),
		valueFact(d, "version", []string{"version"}),
		valueFact(d, "imports", []string{"imports"}),
		checks.Fact{Label: msg("files.fact.imports_dropin"), Value: importsVerdict(in, d)},
		valueFact(d, "default_runtime_name", defaultRuntimePath),
		checks.Fact{Label: msg("files.fact.runtimes"), Value: checks.JoinOr(msg, runtimes, ", ")},
		valueFact(d, "runtimes.runc.runtime_type", runcTypePath),
		valueFact(d, "runtimes.runc.options.SystemdCgroup", runcSystemdPath),
	)
	return ev
}

// checkImports: a top-level array of strings, one ending in conf.d/*.toml.
func checkImports(in checks.Input, d *checks.TOMLDoc) checks.Result {
	const id = "main-config.imports"
	key := []string{"imports"}
	v, ok := d.Get(key)
	if !ok {
		return d.Missing(in, checks.KeySpec{ID: id, Path: key, Anchor: -1, Want: importsWant, PathHint: pathHints})
	}
	line := d.Line(key)
	at := checks.Where(d.Rel, line)
	expected := msg("files.main.imports_expected")
	got := checks.TOMLValue(msg, v)
	arr, isArray := v.([]any)
	if !isArray {
		if s, isString := v.(string); isString {
			return checks.Fail(id, msg("files.main.imports_string", "got", got, "line", line, "fix", checks.TOMLValue(msg, []any{s})), expected, got, at)
		}
		return checks.Fail(id, msg("files.key.wrong_type", "key", "imports", "got", got, "got_type", checks.TypeName(msg, v),
			"want", checks.TOMLValue(msg, importsWant), "want_type", checks.TypeName(msg, importsWant), "line", line), expected, got, at)
	}
	var items []string
	for i, x := range arr {
		s, isString := x.(string)
		if !isString {
			return checks.Fail(id, msg("files.main.imports_item_type", "index", i+1, "got", checks.TOMLValue(msg, x), "got_type", checks.TypeName(msg, x), "line", line), expected, got, at)
		}
		items = append(items, s)
	}
	for _, s := range items {
		if strings.HasSuffix(s, "conf.d/*.toml") {
			return checks.Pass(id, msg("files.main.imports_ok", "item", checks.TOMLValue(msg, s), "line", line))
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
	return checks.Fail(id, msg("files.main.imports_no_glob", "got", got, "line", line)+hint, expected, got, at)
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
func importsVerdict(in checks.Input, d *checks.TOMLDoc) string {
	v, ok := d.Get([]string{"imports"})
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
			return msg("files.fact.imports_yes", "item", checks.TOMLValue(msg, s), "resolved", checks.Shown(in, pattern))
		}
		tried = append(tried, checks.TOMLValue(msg, s)+" -> "+checks.Shown(in, pattern))
	}
	return msg("files.fact.imports_no", "tried", checks.JoinOr(msg, tried, "; "), "dropin", checks.Shown(in, dropInPath))
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
func fileFacts(tf checks.TOMLFile) []checks.Fact {
	facts := []checks.Fact{{Label: msg("files.fact.file"), Value: tf.File.Message}}
	if tf.File.Status == checks.Passed {
		facts = append(facts, checks.Fact{Label: "TOML", Value: tf.Parse.Message})
	}
	return facts
}

// valueFact shows what the parser found at a key path.
func valueFact(d *checks.TOMLDoc, label string, p []string) checks.Fact {
	v, ok := d.Get(p)
	if !ok {
		return checks.Fact{Label: label, Value: msg("files.seen.absent")}
	}
	return checks.Fact{Label: label, Value: msg("files.fact.value", "value", checks.TOMLValue(msg, v), "type", checks.TypeName(msg, v), "line", d.Line(p))}
}
