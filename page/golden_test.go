package page

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"
)

// A page holding the longest keys, paths, commands and messages the labs
// put in inline code (testdata/longkeys.md), rendered as a learner reads
// it at 60 columns (the width lab verify checks pages at) and at the
// narrowest pane the TUI draws. The golden files are the reviewed answer:
// any drift fails, and
//
//	go test ./page -run TestLongKeysGolden -update
//
// rewrites them (testdata/TestLongKeysGolden/*.golden).
func TestLongKeysGolden(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("testdata", "longkeys.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{60, 40} {
		t.Run(fmt.Sprintf("%dcols", width), func(t *testing.T) {
			blocks, err := Render(string(md), width, Look{Profile: termenv.Ascii})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, bl := range blocks {
				if i > 0 {
					b.WriteString("\n")
				}
				for _, l := range bl {
					b.WriteString(l + "\n")
				}
			}
			golden.RequireEqual(t, []byte(b.String()))
		})
	}
}
