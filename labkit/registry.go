package labkit

import (
	"slices"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
)

// The declarative check types. Each is one value implementing checkType,
// in a file of its own (type_<name>.go): what it is for and which fields
// it reads (the reference in docs/AUTHORING.md and the validation of a
// check), the CEL variables its expressions see, how a check of it
// compiles, which files it reads, whether it reads the cluster, how it
// judges, and whether it remembers. checkTypes is the one table of them.
// A new type is a file, a line in the table and its Korean text in
// content/checks.toml; nothing else knows the types by name.

// checkType is one type of declarative check: `type = "<name>"`.
type checkType interface {
	// Kind documents the type and names its fields: a check may set only
	// these (besides the fields of every check) and must set the required
	// ones.
	Kind() Kind
	// Vars are the CEL variables the type's expressions see, none when it
	// has no expressions. Only a type whose checks read the cluster, and
	// so run only while it is synced, may see `cluster`: a rule on a file
	// that read it would judge the file by live data that may be stale.
	Vars() []string
	// Compile decodes a check's own fields (c.decode), validates them and
	// compiles its expressions, telling c what is wrong. It returns the
	// check even then: its step still knows what it reads.
	Compile(c *compiler) check
}

// check is one compiled declarative check.
type check interface {
	// Files are the lab files it reads.
	Files() []string
	// Live says it reads the cluster: it runs only while the cluster may
	// be trusted, and its step is one of the lab's cluster steps.
	Live() bool
	// Eval judges it on one evaluation's view of the snapshot.
	Eval(in checks.Input, cv *view) (checks.Result, *checks.Fact)
}

// rememberer is a check that records facts of the past in the witness;
// its step remembers through it before every evaluation.
type rememberer interface {
	// Remembers says this check, as the lab wrote it, keeps facts.
	Remembers() bool
	// Remember records what it saw now, as evidence only when the
	// moment allows it (every earlier step passed, unless the check is
	// any_time).
	Remember(snap *observe.Snapshot, w *checks.Witness, m moment, cv *view) bool
}

// checkTypes are the declarative check types, in the order of the
// reference.
var checkTypes = []checkType{fileType{}, fieldType{}, manifestType{}, objectType{}, reportType{}, witnessType{}}

// typeNamed is the check type called name, or nil.
func typeNamed(name string) checkType {
	i := slices.IndexFunc(checkTypes, func(t checkType) bool { return t.Kind().Type == name })
	if i < 0 {
		return nil
	}
	return checkTypes[i]
}

// Kinds documents the declarative check types, in the reference's order.
func Kinds() []Kind {
	out := make([]Kind, len(checkTypes))
	for i, t := range checkTypes {
		out[i] = t.Kind()
	}
	return out
}
