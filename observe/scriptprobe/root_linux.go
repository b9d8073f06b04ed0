package scriptprobe

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// buildRoot makes the run's root file system at c.Root and moves into
// it: a read-only tmpfs with the spec's binds, the layer over the places
// it shadows, a /dev of the spec's devices, a fresh /proc, and the run
// directory as the only writable place.
func buildRoot(c initConfig) error {
	try := func(step string, err error) error {
		if err != nil {
			return stepErr{step, err}
		}
		return nil
	}
	root := c.Root
	if err := try("make mounts private", unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")); err != nil {
		return err
	}
	if err := try("mount root tmpfs", unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=1m")); err != nil {
		return err
	}
	for _, b := range c.Binds {
		if err := showHost(root, b); err != nil {
			return err
		}
	}
	if err := mountLayer(root, c.Layer); err != nil {
		return err
	}
	if err := makeDev(root, c.Devices); err != nil {
		return err
	}
	// A fresh /proc shows only the run's processes. Where the kernel
	// refuses it (a container masking parts of its /proc), there is none.
	if err := os.Mkdir(filepath.Join(root, "proc"), 0o555); err == nil {
		_ = unix.Mount("proc", filepath.Join(root, "proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	}
	for _, d := range []struct{ host, inside string }{
		{c.RunDir, InsideRunDir},
		{filepath.Join(c.RunDir, "tmp"), "/tmp"},
	} {
		if err := try("bind "+d.inside, bind(d.host, filepath.Join(root, d.inside), false)); err != nil {
			return err
		}
	}
	if err := try("remount root read-only", unix.Mount("", root, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")); err != nil {
		return err
	}
	if err := try("chdir root", unix.Chdir(root)); err != nil {
		return err
	}
	if err := try("pivot_root", unix.PivotRoot(".", ".")); err != nil {
		return err
	}
	if err := try("detach old root", unix.Unmount(".", unix.MNT_DETACH)); err != nil {
		return err
	}
	_ = unix.Chdir("/")
	_ = unix.Sethostname([]byte("labmate"))
	return nil
}

// showHost makes one bind of the spec: a host symlink shown at its own
// place stays a symlink (/bin -> usr/bin); anything else is bound
// read-only. A host path that does not exist is left out.
func showHost(root string, b bindSpec) error {
	fi, err := os.Lstat(b.Host)
	if err != nil {
		return nil
	}
	dst := filepath.Join(root, b.Inside)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return stepErr{"bind " + b.Inside, err}
	}
	if fi.Mode()&fs.ModeSymlink != 0 && b.Inside == b.Host {
		target, err := os.Readlink(b.Host)
		if err == nil {
			err = os.Symlink(target, dst)
		}
		if err != nil {
			return stepErr{"link " + b.Host, err}
		}
		return nil
	}
	if err := bindRO(b.Host, dst); err != nil {
		return stepErr{"bind " + b.Host, err}
	}
	return nil
}

// bind mounts host at dst (creating dst as a directory or an empty file
// to match), read-only if ro.
func bind(host, dst string, ro bool) error {
	fi, err := os.Stat(host)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		err = os.MkdirAll(dst, 0o755)
	} else {
		var f *os.File
		if f, err = os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.Close()
		}
	}
	if err != nil {
		return err
	}
	if err := unix.Mount(host, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	if !ro {
		return nil
	}
	return remountRO(dst)
}

func bindRO(host, dst string) error { return bind(host, dst, true) }

// remountRO makes a bind mount read-only, keeping the flags the kernel
// locks for a mount inherited from a more privileged namespace.
func remountRO(dst string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY | unix.MS_NOSUID)
	for _, f := range []uintptr{unix.ST_NOSUID, unix.ST_NODEV, unix.ST_NOEXEC, unix.ST_NOATIME, unix.ST_NODIRATIME, unix.ST_RELATIME} {
		if uintptr(st.Flags)&f != 0 {
			flags |= f // ST_* and MS_* share values for these
		}
	}
	return unix.Mount("", dst, "", flags, "")
}

// mountLayer lays the layer (which mirrors the root: layer/etc/app/
// app.conf, layer/usr/bin/tool, ...) over the new root: a read-only
// overlay at the deepest directory each file's place shares with the
// host, or the layer's directory itself where the host has none of its
// parents (a missing /opt).
func mountLayer(root, layer string) error {
	if layer == "" {
		return nil
	}
	var leaves []string
	_ = filepath.WalkDir(layer, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			leaves = append(leaves, strings.TrimPrefix(filepath.Dir(p), layer))
		}
		return nil
	})
	for _, d := range overlayPoints(leaves) {
		lower := filepath.Join(layer, d)
		dst := filepath.Join(root, d)
		var err error
		if d == "/" {
			return stepErr{"layer", fmt.Errorf("no host directory under %s", lower)}
		}
		if _, statErr := os.Stat(d); statErr != nil {
			err = bindRO(lower, dst)
		} else if err = os.MkdirAll(dst, 0o755); err == nil {
			err = unix.Mount("overlay", dst, "overlay", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV,
				"lowerdir="+escapeOverlay(lower)+":"+escapeOverlay(d))
		}
		if err != nil {
			return stepErr{"layer " + d, err}
		}
	}
	return nil
}

// overlayPoints are the directories to lay the layer over for files in
// dirs: each one's deepest host directory, none inside another.
func overlayPoints(dirs []string) []string {
	seen := map[string]bool{}
	var at []string
	for _, dir := range dirs {
		d := deepestExisting(dir)
		if !seen[d] {
			seen[d] = true
			at = append(at, d)
		}
	}
	sort.Strings(at)
	var done []string
	for _, d := range at {
		nested := false
		for _, p := range done {
			if d == p || strings.HasPrefix(d, p+"/") {
				nested = true
			}
		}
		if !nested {
			done = append(done, d)
		}
	}
	return done
}

// deepestExisting is dir itself if the host has it, else its nearest
// ancestor the host has, one level below "/" at the highest (a missing
// top-level directory is made in the new root from the layer).
func deepestExisting(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			if d == "/" {
				// The top-level part of dir, which the host lacks.
				parts := strings.SplitN(strings.TrimPrefix(dir, "/"), "/", 2)
				return "/" + parts[0]
			}
			return d
		}
		if d == "/" {
			return "/"
		}
	}
}

func escapeOverlay(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `:`, `\:`, `,`, `\,`)
	return r.Replace(p)
}

// makeDev is a tmpfs /dev with the given devices bound from the host.
func makeDev(root string, devices []string) error {
	dev := filepath.Join(root, "dev")
	if err := os.Mkdir(dev, 0o755); err != nil {
		return stepErr{"mkdir /dev", err}
	}
	if err := unix.Mount("tmpfs", dev, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return stepErr{"mount /dev", err}
	}
	for _, n := range devices {
		if err := bind("/dev/"+n, filepath.Join(dev, n), false); err != nil {
			return stepErr{"bind /dev/" + n, err}
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, filepath.Join(dev, name)); err != nil {
			return stepErr{"link /dev/" + name, err}
		}
	}
	return remountRO(dev)
}
