package state

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/labhub/labmate/internal/lockfile"
)

// choicesFile is the lab the learner chose for each lab root, in the
// state dir: labs.json, {"roots": {"/root/gpuop": "gpu-incident"}}. The
// root "" stands for "no root named" (each lab's default root).
const choicesFile = "labs.json"

type choices struct {
	Roots map[string]string `json:"roots"`
}

// ChosenLab returns the lab last chosen for root under dir (Dir() when
// empty), or "" when none was. It takes no lock and writes nothing: the
// file is only ever replaced whole (WriteAtomic), so a read sees one
// version or the other.
func ChosenLab(dir, root string) (string, error) {
	path, err := choicesPath(dir)
	if err != nil {
		return "", err
	}
	c, err := readChoices(path)
	return c.Roots[root], err
}

// RememberLab records lab as the choice for root.
func RememberLab(dir, root, lab string) error {
	path, err := choicesPath(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	unlock, err := lockfile.Lock(context.Background(), path+".lock", lockfile.Options{})
	if err != nil {
		return err
	}
	defer unlock()
	c, err := readChoices(path)
	if err != nil {
		c = choices{} // a damaged choices file only loses choices
	}
	if c.Roots == nil {
		c.Roots = map[string]string{}
	}
	if c.Roots[root] == lab {
		return nil
	}
	c.Roots[root] = lab
	raw, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return lockfile.WriteAtomic(path, append(raw, '\n'), 0o600)
}

func choicesPath(dir string) (string, error) {
	dir, err := orDir(dir)
	return filepath.Join(dir, choicesFile), err
}

func readChoices(path string) (choices, error) {
	var c choices
	raw, err := readRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return choices{}, err
	}
	return c, nil
}
