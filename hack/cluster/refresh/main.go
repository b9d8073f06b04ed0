// Command refresh writes hack/cluster/digests.txt, the digests labmate
// carries of the cluster binaries' release files, from upstream: every
// file of the download table, for every platform, downloaded and checked
// against upstream's own published checksum (cluster.Refresh). Run it
// from the repository's root on a networked machine when a version in
// hack/cluster/recipe.go changes, and commit the file:
//
//	go run ./hack/cluster/refresh             rewrite hack/cluster/digests.txt
//	go run ./hack/cluster/refresh -check      exit 1 listing each file labmate carries no digest for (the release check)
//	go run ./hack/cluster/refresh -base URL   read from a server with upstream's layout under URL instead
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/labhub/labmate/hack/cluster"
)

func main() {
	check := flag.Bool("check", false, "only list the files without a carried digest; exit 1 if there is one")
	base := flag.String("base", "", "a server with upstream's layout to read from instead of upstream")
	out := flag.String("o", filepath.Join("hack", "cluster", "digests.txt"), "the file to write")
	flag.Parse()
	if *check {
		missing := cluster.Uncarried()
		for _, m := range missing {
			fmt.Println(m)
		}
		if len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "refresh: labmate carries no digest for %d file(s) above: no release until `go run ./hack/cluster/refresh` has read them\n", len(missing))
			os.Exit(1)
		}
		fmt.Println("refresh: every file of the download table has a carried digest")
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	digests, err := cluster.Refresh(ctx, cluster.RefreshOptions{Base: *base, Log: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "refresh:", err)
		os.Exit(1)
	}
	if err := writeFile(*out, cluster.FormatDigests(cluster.DigestsHeader, digests)); err != nil {
		fmt.Fprintln(os.Stderr, "refresh:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "refresh: wrote %d digests to %s\n", len(digests), *out)
}

// writeFile replaces path only when the new content is whole.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
