package doctor

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the result for scripts (`doctor --json`): the
// findings and whether nothing failed ("ok"), indented.
func WriteJSON(w io.Writer, res Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		OK bool `json:"ok"`
		Result
	}{res.OK(), res})
}
