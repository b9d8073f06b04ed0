package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/doctor"
	"github.com/labhub/labmate/state"
)

// runDoctor is `labmate doctor`: one screen, in Korean, of what is right
// and wrong in the learner's environment, each problem with the command
// that fixes it. Exit 0 when nothing failed, 1 otherwise, 2 on a usage
// error. It never waits more than about 5 seconds.
func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	asJSON := fs.Bool("json", false, content.Msg("ops.flag.doctor_json"))
	classFile := fs.String("class", "", content.Msg("class.flag.class"))
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	lab, err := content.Load(c.lab)
	if err != nil {
		fmt.Fprintln(stderr, content.Msg("cli.lab_missing", "lab", c.lab, "err", err))
		return exitUsage
	}
	// Unlike build(), a root that is a file is a finding here, not an
	// error: doctor is where the learner finds out.
	root := labRoot(&c, lab)
	_, nodes := checks.ClusterScope(lab.ID)
	opts := doctor.Options{
		Kubeconfig: c.kubeconfigOrSandbox(), Context: c.kubeCtx, NoCluster: c.noCluster,
		Nodes: nodes, Root: root, TTY: isTerminal(stdout),
	}
	if st, err := state.Open(c.stateDir, lab.ID, root); err == nil {
		opts.StatePath = st.Path
	}
	res := doctor.Run(ctx, opts)
	if *classFile != "" {
		res.Findings = append(res.Findings, classFinding(ctx, *classFile, lab.ID))
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(struct {
			OK bool `json:"ok"`
			doctor.Result
		}{res.OK(), res})
	} else {
		err = doctor.Write(stdout, res)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	if !res.OK() {
		return exitFail
	}
	return exitOK
}

// labRoot resolves the lab root as build() does: --root, $LABMATE_ROOT,
// the lab's default; made absolute.
func labRoot(c *common, lab *content.Lab) string {
	root := c.root
	if root == "" {
		root = os.Getenv("LABMATE_ROOT")
	}
	if root == "" {
		root = lab.DefaultRoot
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return root
}

// isTerminal reports whether stdin or stdout is a character device (a
// terminal), without pulling in a terminal package for one bit.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
