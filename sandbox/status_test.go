package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/labmate/sandbox/prebuilt"
)

// sandbox status says when a binary is no longer the one labmate
// installed or built (its sha256 differs from the bin dir's record),
// with or without a cluster.
func TestStatusSaysWhenABinaryChanged(t *testing.T) {
	t.Setenv("KWOK_WORKDIR", t.TempDir())
	bin := t.TempDir()
	for _, b := range Binaries {
		os.WriteFile(filepath.Join(bin, b), []byte("built "+b), 0o755)
	}
	if err := prebuilt.Record(bin, Binaries); err != nil {
		t.Fatal(err)
	}
	opts := Options{BinDir: bin, Name: "labmate-status-test"}
	st, err := Status(context.Background(), opts)
	if err != nil || len(st.ChangedBinaries) != 0 {
		t.Fatalf("as built: %+v, %v", st, err)
	}
	os.WriteFile(filepath.Join(bin, "kube-apiserver"), []byte("#!/bin/sh\n"), 0o755)
	st, _ = Status(context.Background(), opts)
	if strings.Join(st.ChangedBinaries, ",") != "kube-apiserver" || !strings.Contains(st.String(), "kube-apiserver") ||
		!strings.Contains(st.String(), "labmate sandbox up") {
		t.Errorf("kube-apiserver replaced: %v\n%s", st.ChangedBinaries, st.String())
	}
}
