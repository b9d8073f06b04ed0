package classcmd

import (
	"bytes"
	"context"
	"os"

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
	instructor
	HTML    string
	From    string
	streams cli.Streams
	lab     string // the root's --lab: the lab the report is of
}

func newReportCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	o := &reportOptions{streams: streams}
	cmd := o.command("report", f, o)
	cmd.Flags().StringVar(&o.HTML, "html", "", content.Msg("class.flag.html"))
	cmd.Flags().StringVar(&o.From, "from", "", content.Msg("class.flag.from"))
	readsLab(cmd, "class.flag.report_lab")
	return cmd
}

// Complete takes the lab the report is of.
func (o *reportOptions) Complete(f cli.Factory, _ *cobra.Command, _ []string) error {
	labs, _ := f.Flags()
	o.lab = labs.Lab
	return nil
}

// Validate refuses a report with nowhere to go.
func (o *reportOptions) Validate() error {
	if o.HTML == "" {
		return cli.UsageErr("class.cli.html_missing")
	}
	return nil
}

// Run writes the class report.
func (o *reportOptions) Run(ctx context.Context) error {
	in := classreport.Input{Lab: o.lab}
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
		c, ns, err := o.list(ctx, o.lab)
		if err != nil {
			return err
		}
		in.Class = c
		in.Namespace, in.At = ns, in.Class.At
	}
	var buf bytes.Buffer
	if err := classreport.Write(&buf, in); err != nil {
		return cli.Fail(err)
	}
	if err := lockfile.WriteAtomic(o.HTML, buf.Bytes(), 0o644); err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("class.cli.report_write", "path", o.HTML, "err", err))
	}
	return nil
}
