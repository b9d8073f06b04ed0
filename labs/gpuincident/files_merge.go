package gpuincident

import (
	"slices"
	"strings"

	"github.com/labhub/labmate/checks"
	"github.com/pelletier/go-toml/v2"
)

// Step 3: the merge verdict the learner computes from steps 1 and 2.
//
// Rules and sources: steps/03-merge-verdict.md, 사실 근거. The four
// computed lines follow the TOML tables the learner's two files define
// (a [a.b.c] header defines a.b too: TOML v1.0.0, "Table"); the fifth is
// the incident node's config dump (the LabHub page "GPU 사고 재현",
// step 3), never computed, because
// 1.x's merge replaces whole plugin sections (mergeConfig, containerd
// #5837) and what the node's imports picked is not in the files.

// mergeKeys are merge.txt's keys, in the order the file must have them.
var mergeKeys = []string{"MAIN_RUNTIMES", "DROPIN_RUNTIMES", "CONFLICT", "CONFLICT_TABLE", "LOADED_RUNTIMES"}

// mergeReport is merge.txt; step 3 tells the learner: no spaces around '='.
var mergeReport = checks.ReportFile{Rel: mergePath, Keys: mergeKeys, NoSpaces: true}

// loadedRuntimes is not computed: it is what `containerd config dump`
// showed on the incident node.
const loadedRuntimes = "runc"

// mergeTruth is what the companion derives from the learner's two files.
type mergeTruth struct {
	values map[string]string // key -> derived value
	why    map[string]string // key -> where that value comes from (Korean)
}

func deriveMerge(in checks.Input, main, drop *checks.TOMLDoc) mergeTruth {
	table := checks.KeyPath(runtimesPath)
	t := mergeTruth{values: map[string]string{}, why: map[string]string{}}
	side := func(key string, d *checks.TOMLDoc) bool {
		names, has := runtimeNames(d)
		t.values[key] = strings.Join(names, ",")
		if has {
			t.why[key] = msg("files.merge.why.runtimes", "file", checks.Shown(in, d.Rel), "table", table, "list", checks.JoinOr(msg, names, ", "))
		} else {
			t.why[key] = msg("files.merge.why.no_runtimes", "file", checks.Shown(in, d.Rel), "table", table)
		}
		return has
	}
	mainHas := side("MAIN_RUNTIMES", main)
	dropHas := side("DROPIN_RUNTIMES", drop)
	if mainHas && dropHas {
		t.values["CONFLICT"], t.values["CONFLICT_TABLE"] = "yes", table
		t.why["CONFLICT"] = msg("files.merge.why.conflict_yes", "table", table)
	} else {
		var lacking []string
		if !mainHas {
			lacking = append(lacking, checks.Shown(in, main.Rel))
		}
		if !dropHas {
			lacking = append(lacking, checks.Shown(in, drop.Rel))
		}
		t.values["CONFLICT"], t.values["CONFLICT_TABLE"] = "no", ""
		t.why["CONFLICT"] = msg("files.merge.why.conflict_no", "files", strings.Join(lacking, ", "), "table", table)
	}
	t.why["CONFLICT_TABLE"] = t.why["CONFLICT"]
	t.values["LOADED_RUNTIMES"] = loadedRuntimes
	t.why["LOADED_RUNTIMES"] = msg("files.merge.why.loaded")
	return t
}

func evalMergeVerdict(in checks.Input) checks.StepEval {
	main := checks.OpenTOML(in, "main-config", mainConfigPath)
	drop := checks.OpenTOML(in, "dropin", dropInPath)
	if main.Doc == nil || drop.Doc == nil {
		var what []string
		for _, w := range []struct {
			step int
			tf   checks.TOMLFile
			rel  string
		}{{1, main, mainConfigPath}, {2, drop, dropInPath}} {
			if w.tf.Doc != nil {
				continue
			}
			why := w.tf.File.Observed
			if w.tf.File.Status == checks.Passed {
				why = msg("files.merge.wait_toml", "where", w.tf.Parse.Where)
			}
			what = append(what, msg("files.merge.wait_item", "step", w.step, "path", checks.Shown(in, w.rel), "why", why))
		}
		return checks.StepEval{Checks: []checks.Result{checks.Wait("merge-verdict.inputs", msg("files.merge.wait", "what", strings.Join(what, ", ")))}}
	}
	truth := deriveMerge(in, main.Doc, drop.Doc)

	valueIDs := []string{"merge-verdict.main-runtimes", "merge-verdict.dropin-runtimes", "merge-verdict.conflict",
		"merge-verdict.conflict-table", "merge-verdict.loaded-runtimes"}
	text, bad := checks.ReadText(in, "merge-verdict.file", mergePath)
	if bad != nil {
		ev := checks.StepEval{Checks: []checks.Result{*bad, checks.Wait("merge-verdict.format", msg("files.wait.file", "what", "KEY=VALUE"))}}
		for i, id := range valueIDs {
			ev.Checks = append(ev.Checks, checks.Wait(id, msg("files.wait.file", "what", mergeKeys[i])))
		}
		ev.Observed = mergeFacts(truth, nil)
		return ev
	}
	byKey, format := checks.CheckReportFormat(in, "merge-verdict.format", mergeReport, text)
	ev := checks.StepEval{Checks: []checks.Result{
		checks.Pass("merge-verdict.file", msg("files.file.ok", "path", checks.Shown(in, mergePath), "size", len(text))),
		format,
	}}
	for i, key := range mergeKeys {
		ev.Checks = append(ev.Checks, checkMergeValue(in, valueIDs[i], key, truth, byKey))
	}
	ev.Observed = mergeFacts(truth, byKey)
	return ev
}

// checkMergeValue compares one line of merge.txt with the derived value.
func checkMergeValue(in checks.Input, id, key string, truth mergeTruth, byKey map[string]checks.KVLine) checks.Result {
	want := truth.values[key]
	expected := key + "=" + want
	l, ok := byKey[key]
	if !ok {
		return checks.Fail(id, msg("files.merge.value_missing", "key", key, "want", want), expected, msg("files.seen.absent"), mergePath)
	}
	at := checks.Where(mergePath, l.N)
	if mergeValueOK(key, l.Value, want) {
		return checks.Pass(id, msg("files.merge.value_ok", "key", key, "value", l.Value, "line", l.N))
	}
	observed := key + "=" + l.Value
	if key == "LOADED_RUNTIMES" {
		return checks.Fail(id, msg("files.merge.loaded_wrong", "got", checks.ReportShown(msg, l.Value), "line", l.N, "want", want)+quoteHint(l.Value), expected, observed, at)
	}
	m := msg("files.merge.value_wrong", "key", key, "got", checks.ReportShown(msg, l.Value), "line", l.N, "want", checks.ReportShown(msg, want), "why", truth.why[key])
	return checks.Fail(id, m+mergeHint(key, l.Value, want), expected, observed, at)
}

// mergeValueOK accepts the derived value, and for CONFLICT_TABLE any
// spelling of the same TOML key path (single quotes, for one).
func mergeValueOK(key, got, want string) bool {
	if got == want {
		return true
	}
	if key != "CONFLICT_TABLE" {
		return false
	}
	if want == "" {
		return got == "none" || got == "-"
	}
	segs := parseKeyPath(got)
	return segs != nil && slices.Equal(segs, runtimesPath)
}

func mergeHint(key, got, want string) string {
	if h := quoteHint(got); h != "" {
		return h
	}
	switch key {
	case "MAIN_RUNTIMES", "DROPIN_RUNTIMES":
		var parts []string
		for _, p := range strings.Split(got, ",") {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
		norm := append([]string(nil), parts...)
		slices.Sort(norm)
		switch {
		case strings.Join(parts, ",") == want:
			return msg("files.merge.hint.list_spaces")
		case strings.Join(norm, ",") == want:
			return msg("files.merge.hint.unsorted")
		}
	case "CONFLICT":
		if got != "yes" && got != "no" {
			return msg("files.merge.hint.yes_no")
		}
	case "CONFLICT_TABLE":
		if want == "" {
			return msg("files.merge.hint.no_table")
		}
		if got == "" {
			return msg("files.merge.hint.empty_table")
		}
		segs := parseKeyPath(got)
		switch {
		case segs == nil:
			return msg("files.merge.hint.not_key_path")
		case checks.IndexRun(segs, "io", "containerd", "grpc", "v1", "cri") >= 0:
			return msg("files.hint.unquoted_plugin")
		case len(segs) > len(runtimesPath) && slices.Equal(segs[:len(runtimesPath)], runtimesPath):
			return msg("files.merge.hint.table_too_deep")
		case len(segs) < len(runtimesPath) && slices.Equal(segs, runtimesPath[:len(segs)]):
			return msg("files.merge.hint.table_too_shallow")
		}
	}
	return ""
}

func quoteHint(got string) string {
	if len(got) >= 2 && strings.ContainsAny(got[:1], `"'`) && got[len(got)-1] == got[0] {
		return msg("files.merge.hint.quotes")
	}
	return ""
}

// parseKeyPath reads a dotted TOML key path (bare, "basic" or 'literal'
// segments); nil when s is not one.
func parseKeyPath(s string) []string {
	if strings.ContainsAny(s, "\n=#[]") || strings.TrimSpace(s) == "" {
		return nil
	}
	var tree map[string]any
	if err := toml.Unmarshal([]byte(s+" = 0"), &tree); err != nil {
		return nil
	}
	var segs []string
	var cur any = tree
	for {
		m, ok := cur.(map[string]any)
		if !ok {
			return segs
		}
		if len(m) != 1 {
			return nil
		}
		for k, v := range m {
			segs, cur = append(segs, k), v
		}
	}
}

func mergeFacts(truth mergeTruth, byKey map[string]checks.KVLine) []checks.Fact {
	var facts []checks.Fact
	for _, k := range mergeKeys {
		got := msg("files.seen.absent")
		if l, ok := byKey[k]; ok {
			got = checks.ReportShown(msg, l.Value)
		}
		key := "files.fact.merge_derived"
		if k == "LOADED_RUNTIMES" {
			key = "files.fact.merge_observed"
		}
		facts = append(facts, checks.Fact{Label: k, Value: msg(key, "want", checks.ReportShown(msg, truth.values[k]), "got", got)})
	}
	return facts
}
