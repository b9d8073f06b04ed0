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
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/trace"
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
	replay := fs.String("replay", "", content.Msg("cli.flag.replay"))
	record := fs.String("record", "", content.Msg("cli.flag.record"))
	var cf classFlags
	cf.register(fs)
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	if *replay != "" {
		if *watch || *record != "" {
			fmt.Fprintln(stderr, content.Msg("cli.replay_exclusive"))
			return exitUsage
		}
		return checkReplay(ctx, *replay, *step, *asJSON, stdout, stderr)
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
	if *record != "" {
		stop, err := s.startRecording(*record)
		if err != nil {
			fmt.Fprintln(stderr, content.Msg("cli.record_open", "path", *record, "err", err))
			return exitUsage
		}
		defer func() {
			if err := stop(); err != nil {
				fmt.Fprintln(stderr, content.Msg("cli.record_failed", "path", *record, "err", err))
			}
		}()
	}
	if *watch {
		wo := watchOptions{JSON: *asJSON, Step: *step, ReadyTimeout: *timeout}
		if pub := s.startClass(ctx, cf, false); pub != nil {
			wo.OnReport = func(rep engine.Report) { pub.Publish(class.Update{Report: &rep}) }
		}
		return wo.run(ctx, s, stdout, stderr)
	}
	rep := s.engine.Once(ctx, s.sources, *timeout)
	rep.Problems = append(s.warnings, rep.Problems...)
	return printReport(rep, *step, *asJSON, stdout, stderr)
}

// checkReplay is `labmate check --replay FILE|reference`: the final
// results of a trace, evaluated exactly after every record.
func checkReplay(ctx context.Context, name string, step int, asJSON bool, stdout, stderr io.Writer) int {
	t, err := trace.Open(name)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	lab, err := content.Load(t.Header.Lab)
	if err != nil {
		fmt.Fprintln(stderr, content.Msg("cli.lab_missing", "lab", t.Header.Lab, "err", err))
		return exitUsage
	}
	if step < 0 || step > len(lab.Steps) {
		fmt.Fprintln(stderr, content.Msg("cli.step_range", "step", step, "max", len(lab.Steps)))
		return exitUsage
	}
	rep, _, err := trace.FinalReport(ctx, lab, checks.Labs[lab.ID], t)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	return printReport(rep, step, asJSON, stdout, stderr)
}

// printReport writes a report (one step of it when step > 0) as JSON or a
// table and maps it to the exit code.
func printReport(rep engine.Report, step int, asJSON bool, stdout, stderr io.Writer) int {
	if step > 0 {
		rep.Steps = []engine.StepResult{*rep.Step(step)}
	}
	if asJSON {
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
