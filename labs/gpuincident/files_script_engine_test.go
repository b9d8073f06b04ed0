package gpuincident_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/files"
	"github.com/labhub/labmate/observe/scriptprobe"
)

var _ engine.Reactor = (*scriptprobe.Prober)(nil)

// The prober wired as cmd wires it: the file source feeds the engine,
// the engine offers file observations to the prober, the prober's runs
// reach step 4. Editing the script reruns it.
func TestStepFourThroughTheEngine(t *testing.T) {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	script := filepath.Join(root, "bin", "check-runtime.sh")
	ref, err := os.ReadFile("testdata/files/reference/bin/check-runtime.sh")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, ref, 0o755); err != nil {
		t.Fatal(err)
	}

	eng := engine.New(engine.Config{Lab: lab, Steps: labkittest.GPUSteps(t), Root: root})
	sources := []observe.Source{
		files.New(files.Options{Root: root, Paths: eng.Files()}),
		scriptprobe.New(root, eng.Probes(), scriptprobe.Options{TempDir: t.TempDir()}),
	}
	out, stop := eng.Start(context.Background(), sources)
	defer stop()

	await := func(what string, ok func(*engine.StepResult) bool) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case rep := <-out:
				if s := rep.Step(4); rep.Ready && s != nil && ok(s) {
					return
				}
			case <-deadline:
				t.Fatalf("step 4 never became %s", what)
			}
		}
	}
	await("passed", func(s *engine.StepResult) bool { return s.Status == checks.Passed })

	// A script that ignores the dump: the runc-only run must now fail.
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncontainerd config dump >/dev/null\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	await("failed on the runc-only run", func(s *engine.StepResult) bool {
		for _, c := range s.Checks {
			if c.ID == "check-script.run-runc-only" && c.Status == checks.Failed {
				return true
			}
		}
		return false
	})

	if err := os.WriteFile(script, ref, 0o755); err != nil {
		t.Fatal(err)
	}
	await("passed again", func(s *engine.StepResult) bool { return s.Status == checks.Passed })
}
