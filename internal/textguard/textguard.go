// Package textguard is for tests: what a learner must never read in a
// check's message (only in what labmate observed).
package textguard

import "regexp"

// DecoderWords matches what a decoder says in English or Go:
// encoding/json's type errors, yaml's and go-toml's parser phrases,
// resource.Quantity's regular expression, Go type names.
var DecoderWords = regexp.MustCompile(`cannot unmarshal|Go struct|Go value|\bjson: |\byaml: |\btoml: |\[\]v1\.|\bv1\.[A-Z][a-z]|\bint(32|64)\b|quantities must|regular expression|did not find expected|mapping values are|found character|unexpected end of|expected character|already set in map|invalid character|unmarshal errors|could not find expected`)
