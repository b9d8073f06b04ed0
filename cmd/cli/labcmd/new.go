package labcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/cmd/cli"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
)

// newOptions is `labmate lab new ID|DIR/ID`: a lab of two steps that
// proves green as it is made (content.Scaffold), in a directory that
// must not exist yet.
type newOptions struct {
	streams cli.Streams
	dir, id string
	// goodID: the ID can name the lab and its namespace; there: something
	// is at dir already.
	goodID, there bool
}

func newNewCmd(f cli.Factory, streams cli.Streams) *cobra.Command {
	cmd := cli.Command("lab.new", "ID|DIR/ID", cli.ExactArgs(1), f, &newOptions{streams: streams})
	cmd.ValidArgsFunction = cobra.NoFileCompletions
	return cmd
}

// Complete takes the directory, whose last element is the lab's ID, and
// looks whether something is there.
func (o *newOptions) Complete(_ cli.Factory, _ *cobra.Command, args []string) error {
	o.dir = filepath.Clean(args[0])
	o.id = filepath.Base(o.dir)
	o.goodID = newID.MatchString(o.id)
	_, err := os.Lstat(o.dir)
	o.there = !errors.Is(err, fs.ErrNotExist)
	return nil
}

// newID is what a new lab's ID may be: it names the lab's namespace
// too, so a DNS label (RFC 1123), as Kubernetes names a namespace.
var newID = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)

// Validate refuses an ID that cannot name the lab and its namespace, and
// a directory that is already there (nothing of it is overwritten).
func (o *newOptions) Validate() error {
	switch {
	case !o.goodID:
		return cli.UsageErr("lab.new.bad_id", "id", o.id)
	case o.id == "default" || strings.HasPrefix(o.id, "kube-"):
		// The proof deletes the lab's namespace before it starts.
		return cli.UsageErr("lab.new.reserved_id", "id", o.id)
	case o.there:
		return cli.Exit(cli.ExitUsage, content.Msg("lab.new.exists", "dir", o.dir))
	}
	return nil
}

// Run writes the lab and says what to run next.
func (o *newOptions) Run(context.Context) error {
	schema, copies, err := schemaDir(o.dir)
	if err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("lab.new.write_failed", "dir", o.dir, "err", err))
	}
	files, err := content.Scaffold(o.id, o.dir, schema)
	if err != nil {
		return cli.Exit(cli.ExitFail, content.Msg("lab.new.write_failed", "dir", o.dir, "err", err))
	}
	files = append(files, copies...)
	if err := write(o.dir, files); err != nil {
		if errors.Is(err, fs.ErrExist) { // made since Validate looked
			return cli.Exit(cli.ExitUsage, content.Msg("lab.new.exists", "dir", o.dir))
		}
		return cli.Exit(cli.ExitFail, content.Msg("lab.new.write_failed", "dir", o.dir, "err", err))
	}
	fmt.Fprintln(o.streams.Out, content.Msg("lab.new.made", "id", o.id, "dir", o.dir, "n", len(files)))
	fmt.Fprintln(o.streams.Out, content.Msg("lab.new.next", "dir", o.dir, "id", o.id))
	return nil
}

// schemaDir is where the new lab's `#:schema` lines point, relative to
// dir: the schema/ of the labmate checkout the lab is made in, as the
// shipped labs point at it; outside one, a copy of the two schemas this
// labmate decodes the files with, written into the lab's schema/
// (docs/AUTHORING.md, "Your editor knows lab.toml and verify.toml").
func schemaDir(dir string) (rel string, copies []content.ScaffoldFile, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, err
	}
	for up := filepath.Dir(abs); ; up = filepath.Dir(up) {
		if isCheckout(up) {
			rel, err := filepath.Rel(abs, filepath.Join(up, "schema"))
			return filepath.ToSlash(rel), nil, err
		}
		if filepath.Dir(up) == up {
			break
		}
	}
	lab, verify, err := labkit.Schemas()
	if err != nil {
		return "", nil, err
	}
	return "./schema", []content.ScaffoldFile{{Path: "schema/lab.schema.json", Data: lab}, {Path: "schema/verify.schema.json", Data: verify}}, nil
}

// isCheckout says whether dir is a labmate checkout with its published
// schemas.
func isCheckout(dir string) bool {
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(mod), "\n")
	if strings.TrimSpace(first) != "module github.com/labhub/labmate" {
		return false
	}
	for _, f := range []string{"lab.schema.json", "verify.schema.json"} {
		if _, err := os.Stat(filepath.Join(dir, "schema", f)); err != nil {
			return false
		}
	}
	return true
}

// write makes dir, which must not exist, and the files in it; when one
// cannot be written the directory it made is removed again.
func write(dir string, files []content.ScaffoldFile) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		mode := os.FileMode(0o644)
		if f.Executable {
			mode = 0o755
		}
		err := os.MkdirAll(filepath.Dir(p), 0o755)
		if err == nil {
			err = os.WriteFile(p, f.Data, mode)
		}
		if err != nil {
			_ = os.RemoveAll(dir) // ours: made above, empty before
			return err
		}
	}
	return nil
}
