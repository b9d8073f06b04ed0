package labkit

import (
	"strconv"

	"github.com/labhub/labmate/checks"
)

// ruleSpec is one condition of a manifest or object check
// ([[steps.checks.rules]]): a CEL expression over `object` (and `file`,
// `cluster`, as the type's Vars say), the field it is about, and the
// lab's text for it.
type ruleSpec struct {
	Expr   string `toml:"expr"`
	Field  string `toml:"field"`
	Show   string `toml:"show"`
	Expect string `toml:"expect"`
	Fail   string `toml:"fail"`
}

// ruleFields document a rule.
var ruleFields = []Field{
	{"expr", true, "A CEL condition (must be boolean). A field that is absent makes it false, not an error."},
	{"field", false, "The field it is about (`spec.nodeSelector`): the message names its line in the file, or it in the live object."},
	{"show", false, "A CEL expression for what was observed (`{got}` in the message; 관측 in the TUI)."},
	{"expect", false, "Message key for what is expected (기대)."},
	{"fail", true, "Message key for the failing text."},
}

// ruleTexts are a rule's messages and the placeholders it fills.
var ruleTexts = []Text{
	{"fail", []string{"got", "field", "line", "path", "object"}},
	{"expect", []string{"field"}},
}

// rule is a compiled rule.
type rule struct {
	spec       ruleSpec
	cond, show *expr
}

// rules compiles a check's rules.
func (c *compiler) rules(specs []ruleSpec) []rule {
	var out []rule
	for i, r := range specs {
		cr := rule{spec: r, cond: c.expr(r.Expr, "bool")}
		if r.Show != "" {
			cr.show = c.expr(r.Show, "value")
		}
		at := "rules." + strconv.Itoa(i) + "."
		c.textIn(ruleTexts, "rules.fail", "fail", r.Fail, c.keySpan(at+"fail"))
		c.textIn(ruleTexts, "rules.expect", "expect", r.Expect, c.keySpan(at+"expect"))
		if r.Fail == "" {
			c.problem("labkit.rule_needs_fail")
		}
		out = append(out, cr)
	}
	return out
}

// applyRules evaluates rules, adding to fc what each expects, what was
// observed, and a problem for each that does not hold. object names the
// object under check; at says, for a field, what the learner should look
// at and the line there (0 for a live object).
func applyRules(in checks.Input, rules []rule, fc *checks.FieldCheck, v vars, object string, at func(field string) (string, int)) {
	for _, r := range rules {
		ok, err := r.cond.evalBool(v)
		got := ""
		if r.show != nil {
			if s, absent, serr := r.show.evalText(v); serr == nil && !absent {
				got = s
			}
		}
		expect := r.spec.Field
		if r.spec.Expect != "" {
			expect = in.Msg(r.spec.Expect, "field", r.spec.Field)
		}
		fc.Note(expect, checks.OrNone(in.Msg, got))
		if ok {
			continue
		}
		where, line := at(r.spec.Field)
		if err != nil {
			fc.Problem(r.spec.Field, in.Msg("labkit.rule_error", "expr", r.spec.Expr, "err", err))
			continue
		}
		fc.Problem(r.spec.Field, in.Msg(r.spec.Fail, "got", checks.OrNone(in.Msg, got), "field", r.spec.Field, "line", line,
			"path", where, "object", object))
	}
}
