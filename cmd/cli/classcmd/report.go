package classcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/classreport"
	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/lockfile"
)

// reportOptions is `labmate class report`: the class's records, read
// once from the class cluster or from a saved export (--from), written
// as one HTML file (classreport).
type reportOptions struct {
	adminFlags
	HTML    string
	From    string
	Lab     string
	streams cli.Streams
	ctx     context.Context
}

func newReportCmd(f *cli.Factory, streams cli.Streams) *cobra.Command {
	o := &reportOptions{streams: streams}
	cmd := o.command("report", f, o)
	cmd.Flags().StringVar(&o.HTML, "html", "", content.Msg("class.flag.html"))
	cmd.Flags().StringVar(&o.From, "from", "", content.Msg("class.flag.from"))
	cmd.Flags().StringVar(&o.Lab, "lab", "", content.Msg("class.flag.report_lab"))
	return cmd
}

// Complete notes the context.
func (o *reportOptions) Complete(_ *cli.Factory, cmd *cobra.Command, _ []string) error {
	o.ctx = cmd.Context()
	return nil
}

// Validate refuses a report with nowhere to go.
func (o *reportOptions) Validate() error {
	if o.HTML == "" {
		return cli.UsageErr("class.cli.html_missing")
	}
	return nil
}

// Run writes the class report: its error said on stderr, as the exit
// code.
func (o *reportOptions) Run() int {
	return cli.ExitWith(o.run(), o.streams.ErrOut)
}

func (o *reportOptions) run() error {
	in := classreport.Input{Lab: o.Lab}
	if o.From != "" {
		f, err := os.Open(o.From)
		if err != nil {
			return cli.UsageErr("class.cli.export_file", "path", o.From, "err", err)
		}
		defer f.Close()
		e, err := class.ReadExport(f)
		if err != nil {
			return cli.UsageErr("class.cli.export_file", "path", o.From, "err", err)
		}
		in.Class = class.FromExport(e)
	} else {
		c, ns, err := o.list(o.ctx, o.Lab)
		if err != nil {
			return err
		}
		in.Class = c
		in.Namespace, in.At = ns, in.Class.At
	}
	var buf bytes.Buffer
	if err := classreport.Write(&buf, in); err != nil {
		return cli.Exit(cli.ExitFail, err.Error())
	}
	if err := lockfile.WriteAtomic(o.HTML, buf.Bytes(), 0o644); err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("class.cli.report_write", "path", o.HTML, "err", err))
	}
	path, err := filepath.Abs(o.HTML)
	if err != nil {
		path = o.HTML
	}
	fmt.Fprintln(o.streams.Out, content.Msg("class.cli.report_written", "path", path, "n", len(in.Class.Records)))
	return nil
}
