package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
)

// runCheck is `labmate check`: evaluate once and exit 0 when every
// requested step passed, 1 when any did not, 2 on a usage or environment
// error.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	step := fs.Int("step", 0, content.Msg("cli.flag.step"))
	asJSON := fs.Bool("json", false, content.Msg("cli.flag.json"))
	timeout := fs.Duration("timeout", 20*time.Second, content.Msg("cli.flag.timeout"))
	watch := fs.Bool("watch", false, content.Msg("ops.flag.watch"))
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, content.Msg("cli.extra_args", "args", strings.Join(fs.Args(), " ")))
		return exitUsage
	}
	s, err := c.build()
	if err != nil {
		return exitFor(err, stderr)
	}
	defer s.closeLog()
	if *step < 0 || *step > len(s.lab.Steps) {
		fmt.Fprintln(stderr, content.Msg("cli.step_range", "step", *step, "max", len(s.lab.Steps)))
		return exitUsage
	}
	if *watch {
		return watchOptions{JSON: *asJSON, Step: *step, ReadyTimeout: *timeout}.run(ctx, s, stdout, stderr)
	}
	rep := s.engine.Once(ctx, s.sources, *timeout)
	rep.Problems = append(s.warnings, rep.Problems...)
	if *step > 0 {
		rep.Steps = []engine.StepResult{*rep.Step(*step)}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
	} else {
		writeTable(stdout, &rep)
	}
	if rep.AllPassed() {
		return exitOK
	}
	return exitFail
}

// writeTable prints a compact, colourless summary for people and shells.
func writeTable(w io.Writer, rep *engine.Report) {
	fmt.Fprintf(w, "%s\n%s\n\n", rep.Title, content.Msg("cli.root_line", "root", rep.Root))
	for _, st := range rep.Steps {
		fmt.Fprintf(w, "%d. [%s] %s\n", st.Number, content.Msg("status."+string(st.Status)), st.Title)
		for _, c := range st.Checks {
			if c.Status == checks.Passed {
				continue
			}
			fmt.Fprintf(w, "   - [%s] %s\n", content.Msg("status."+string(c.Status)), indent(c.Message, "     "))
		}
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "\n! %s\n", p)
	}
}

func indent(s, pad string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}
