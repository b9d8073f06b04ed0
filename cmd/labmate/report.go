package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/safefile"
	"github.com/labhub/labmate/report"
	"github.com/labhub/labmate/trace"
)

// reportNow is the report's clock; tests fix it.
var reportNow = time.Now

// runReport is `labmate report [--json] [-o FILE]`: it evaluates once, as
// `labmate check` does, and writes the skeleton of an incident report of
// the learner's run (per step: when it passed, hints used, the values
// that decided it). Exit 0 when the report was written, 2 otherwise; how
// far the learner got is in the report, not in the exit code.
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	asJSON := fs.Bool("json", false, content.Msg("ops.flag.report_json"))
	var out string
	fs.StringVar(&out, "o", "", content.Msg("ops.flag.output"))
	fs.StringVar(&out, "output", "", content.Msg("ops.flag.output"))
	timeout := fs.Duration("timeout", 20*time.Second, content.Msg("cli.flag.timeout"))
	fromTrace := fs.String("trace", "", content.Msg("ops.flag.trace"))
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	if *fromTrace != "" {
		r, err := traceReport(ctx, *fromTrace)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitUsage
		}
		return writeReport(r, *asJSON, out, stdout, stderr)
	}
	s, err := c.build()
	if err != nil {
		return exitFor(err, stderr)
	}
	defer s.closeLog()
	rep := s.engine.Once(ctx, s.sources, *timeout)
	rep.Problems = append(s.warnings, rep.Problems...)
	now := reportNow()
	recordPasses(s, rep, now, stderr)
	progress := s.state.Progress
	if s.store != nil {
		if f, err := s.store.Load(); err == nil {
			progress = f.Progress
		}
	}
	r := report.Build(s.lab, rep, progress, now)
	return writeReport(r, *asJSON, out, stdout, stderr)
}

// traceReport is the report of a recorded session (or "reference").
func traceReport(ctx context.Context, name string) (report.Report, error) {
	tr, err := trace.Open(name)
	if err != nil {
		return report.Report{}, err
	}
	lab, err := content.Load(tr.Header.Lab)
	if err != nil {
		return report.Report{}, errors.New(content.Msg("cli.lab_missing", "lab", tr.Header.Lab, "err", err))
	}
	return report.FromTrace(ctx, lab, checks.Labs[lab.ID], tr)
}

// writeReport prints the report to stdout or, with -o, to a file.
func writeReport(r report.Report, asJSON bool, out string, stdout, stderr io.Writer) int {
	var err error
	var buf bytes.Buffer
	if asJSON {
		err = r.WriteJSON(&buf)
	} else {
		_, err = buf.WriteString(r.Markdown(time.Local))
	}
	if err == nil && out == "" {
		_, err = stdout.Write(buf.Bytes())
	} else if err == nil {
		err = safefile.WriteAtomic(out, buf.Bytes(), 0o644)
		if err == nil {
			fmt.Fprintln(stderr, content.Msg("ops.report.written", "path", out))
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, content.Msg("ops.report.write_failed", "path", orStdout(out), "err", err))
		return exitUsage
	}
	return exitOK
}

func orStdout(path string) string {
	if path == "" {
		return "stdout"
	}
	return path
}
