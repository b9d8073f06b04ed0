package labkit

import (
	"maps"
	"slices"
	"strings"

	"github.com/labhub/labmate/checks"
)

// reportType: a KEY=VALUE report file, its values computed from the live
// objects.
type reportType struct{}

type reportFields struct {
	Path     string            `toml:"path"`
	Keys     []string          `toml:"keys"`
	NoSpaces bool              `toml:"no_spaces"`
	Values   map[string]string `toml:"values"`
	Why      map[string]string `toml:"why"`
	Keep     bool              `toml:"remember"`
}

var reportKind = Kind{"report", "A KEY=VALUE report file: exactly the keys, in order, one per line. With `values`, each line's value must equal what labmate computes from the live objects at that moment (never a literal the author guessed).", []Field{
	{"path", true, "The report, relative to the lab root."},
	{"keys", true, "Its keys, in order."},
	{"no_spaces", false, "`true`: spaces around `=` are a mistake (otherwise read past)."},
	{"values", false, "Key → CEL expression over `cluster` giving the expected value (a string, number or boolean); a key without one is only checked for shape."},
	{"why", false, "Key → message key saying where the expected value comes from (shown with a wrong value)."},
	{"remember", false, "`true`: once the file's values equalled the live ones while labmate watched, that content stays right (remembered by its hash in the state file), so fixing the incident afterwards does not turn the report red; editing the file asks again."},
}, []Text{
	{"pass", []string{"path"}},
	{"why", nil},
}}

func (reportType) Kind() Kind     { return reportKind }
func (reportType) Vars() []string { return []string{"cluster"} }

func (reportType) Compile(c *compiler) check {
	d := &reportCheck{base: c.base(), values: map[string]*expr{}}
	c.decode(&d.reportFields)
	for _, k := range slices.Sorted(maps.Keys(d.Why)) {
		c.textIn(c.typ.Kind().Texts, "why."+k, "why", d.Why[k], c.keySpan("why."+k))
	}
	for key, src := range d.Values {
		if !slices.Contains(d.Keys, key) {
			c.problem("labkit.value_not_key", "key", key)
		}
		d.values[key] = c.expr(src, "value")
	}
	return d
}

type reportCheck struct {
	base
	reportFields
	values map[string]*expr
}

func (d *reportCheck) Files() []string { return []string{d.Path} }

// Live: only a report with values reads the cluster.
func (d *reportCheck) Live() bool { return len(d.Values) > 0 }

func (d *reportCheck) evalLive(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	rel := d.Path
	label := in.Msg("labkit.fact.file", "path", rel)
	rf := checks.ReportFile{Rel: rel, Keys: d.Keys, NoSpaces: d.NoSpaces}
	byKey, format, ok := checks.ReadReport(in, d.id, rf)
	if !ok || format.Status != checks.Passed || len(d.values) == 0 {
		if format.Status == checks.Passed && d.spec.Pass != "" {
			format.Message = in.Msg(d.spec.Pass, "path", checks.Shown(in, rel))
		}
		return format, &checks.Fact{Label: label, Value: reportSummary(byKey, d.Keys)}
	}
	var vals []checks.ReportValue
	for _, key := range d.Keys {
		e := d.values[key]
		if e == nil {
			continue
		}
		want, absent, err := e.evalText(vars{cluster: cv})
		fact := &checks.Fact{Label: label, Value: reportSummary(byKey, d.Keys)}
		if err != nil { // not an absence: the expression is wrong
			return checks.Result{ID: d.id, Status: checks.Error, Message: in.Msg("labkit.report.value_error", "key", key, "expr", d.Values[key], "err", err)}, fact
		}
		if absent {
			return checks.Wait(d.id, in.Msg("labkit.report.value_unknown", "key", key)), fact
		}
		rv := checks.ReportValue{Key: key, Want: want, Why: in.Msg("labkit.report.why_live")}
		if k := d.Why[key]; k != "" {
			rv.Why = in.Msg(k)
		}
		vals = append(vals, rv)
	}
	r := checks.CheckReportValues(in.Msg, d.id, rel, byKey, vals, text(in, d.spec.Pass, "labkit.report.ok", "path", checks.Shown(in, rel)))
	return r, &checks.Fact{Label: label, Value: reportSummary(byKey, d.Keys)}
}

func reportSummary(byKey map[string]checks.KVLine, keys []string) string {
	var parts []string
	for _, k := range keys {
		if l, ok := byKey[k]; ok {
			parts = append(parts, k+"="+l.Value)
		}
	}
	return strings.Join(parts, ", ")
}
