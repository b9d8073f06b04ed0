package content

import (
	"fmt"
	"sync"
)

// schemaFile holds the Korean descriptions of lab.toml's and
// verify.toml's keys that the published JSON Schemas carry
// (labkit.Schemas): what an author's editor shows on hovering a key.
// It is no learner's text, so the shared messages leave it out.
const schemaFile = "schema.toml"

// SchemaTable is one table of schema.toml: "lab.toml" and "verify.toml"
// describe each key by its TOML path ("steps.checks.path"),
// "check_types" each check type by its name ("manifest").
type SchemaTable = string

// The tables of schema.toml.
const (
	SchemaLab        SchemaTable = "lab.toml"
	SchemaVerify     SchemaTable = "verify.toml"
	SchemaCheckTypes SchemaTable = "check_types"
)

var schemaText = sync.OnceValues(func() (map[string]map[string]string, error) {
	raw, err := files.ReadFile(schemaFile)
	if err != nil {
		return nil, err
	}
	var tables map[string]map[string]string
	if err := decodeTOML(schemaFile, raw, &tables, false); err != nil {
		return nil, err
	}
	return tables, nil
})

// SchemaText is one table of schema.toml: the Korean description of
// each key (or check type) it names, in markdown (Taplo renders a
// description as markdown).
func SchemaText(table SchemaTable) (map[string]string, error) {
	tables, err := schemaText()
	if err != nil {
		return nil, err
	}
	t, ok := tables[table]
	if !ok {
		return nil, fmt.Errorf("%s: no table [%q]", schemaFile, table)
	}
	return t, nil
}
