package prebuilt

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/labhub/labmate/internal/lockfile"
)

// recordName is the bin dir's record of each binary's sha256 as it was
// installed (or built), in sha256sum's format, so that
// `cd BIN && sha256sum -c .sha256sums` checks it too.
const recordName = ".sha256sums"

// readRecord is the bin dir's record, by binary.
func readRecord(binDir string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(binDir, recordName))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 {
			out[strings.TrimPrefix(f[1], "*")] = f[0]
		}
	}
	return out, nil
}

// writeRecord records sums (binary -> sha256) in the bin dir's record,
// keeping what it says of the other binaries.
func writeRecord(binDir string, sums map[string]string) error {
	all, _ := readRecord(binDir)
	if all == nil {
		all = map[string]string{}
	}
	for b, s := range sums {
		all[b] = s
	}
	names := make([]string, 0, len(all))
	for b := range all {
		names = append(names, b)
	}
	slices.Sort(names)
	var out strings.Builder
	for _, b := range names {
		out.WriteString(all[b] + "  " + b + "\n")
	}
	return lockfile.WriteAtomic(filepath.Join(binDir, recordName), []byte(out.String()), 0o644)
}

// Record records the sha256 of each of binaries in binDir as they are
// now: what sandbox.Build does with what it built.
func Record(binDir string, binaries []string) error {
	sums := map[string]string{}
	for _, b := range binaries {
		s, _, err := sumFile(filepath.Join(binDir, b))
		if err != nil {
			return err
		}
		sums[b] = s
	}
	return writeRecord(binDir, sums)
}

// Recorded is how many binaries the bin dir's record names.
func Recorded(binDir string) (int, error) {
	rec, err := readRecord(binDir)
	return len(rec), err
}

// Changed lists the binaries of binDir whose sha256 is no longer the one
// recorded when they were installed or built: replaced or altered since.
// binaries nil means every binary the record names. recorded is false
// when the bin dir has no record (filled by hand, or by a labmate before
// this one); a missing binary is not changed.
func Changed(binDir string, binaries []string) (changed []string, recorded bool, err error) {
	rec, err := readRecord(binDir)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if binaries == nil {
		for b := range rec {
			binaries = append(binaries, b)
		}
		slices.Sort(binaries)
	}
	for _, b := range binaries {
		want, ok := rec[b]
		if !ok {
			continue
		}
		got, _, err := sumFile(filepath.Join(binDir, b))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil || got != want {
			changed = append(changed, b)
		}
	}
	return changed, true, nil
}
