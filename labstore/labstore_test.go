package labstore

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
)

// shipped is a lab of this repository with declarative checks only.
const shipped = "../content/labs/driver-reboot"

// copyLab copies a lab directory to a new temporary one, every file with
// the given mode and modification time, and returns it.
func copyLab(t *testing.T, src string, mode fs.FileMode, mtime time.Time) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "lab")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if err := os.Chmod(p, mode); err != nil {
			return err
		}
		return os.Chtimes(p, mtime, mtime)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// useStore points the store at a fresh XDG_DATA_HOME.
func useStore(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func refusal(t *testing.T, err error, want Reason) *Refusal {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("err = %v, want a Refusal %s", err, want)
	}
	if r.Reason != want {
		t.Fatalf("reason = %s (%v), want %s", r.Reason, r, want)
	}
	if !hasHangul(r.Error()) {
		t.Errorf("message is not Korean: %q", r.Error())
	}
	if strings.Contains(r.Error(), "labstore.") {
		t.Errorf("message key left unfilled: %q", r.Error())
	}
	return r
}

func hasHangul(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Hangul, r) {
			return true
		}
	}
	return false
}

func TestPackIsDeterministic(t *testing.T) {
	a, err := Pack(shipped)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Pack(shipped)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("packing the same directory twice gave different bytes")
	}
	// Other places, modes and times; same content, same bytes.
	c1 := copyLab(t, shipped, 0o600, time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC))
	c2 := copyLab(t, shipped, 0o755, time.Date(1999, 1, 2, 3, 4, 5, 0, time.UTC))
	for _, dir := range []string{c1, c2} {
		c, err := Pack(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, c) {
			t.Errorf("%s: same lab elsewhere packed to %s, want %s", dir, Sum(c), Sum(a))
		}
	}
	// A changed byte is a changed archive.
	p := filepath.Join(c1, "intro.md")
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Pack(c1)
	if err != nil {
		t.Fatal(err)
	}
	if Sum(d) == Sum(a) {
		t.Error("a changed intro.md packed to the same sum")
	}
	if len(Sum(a)) != 64 {
		t.Errorf("Sum = %q, want 64 hex digits", Sum(a))
	}
}

// A built-in lab packs to the bytes its directory packs to.
func TestPackEmbeddedIsPackOfItsDirectory(t *testing.T) {
	a, err := PackEmbedded("driver-reboot")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Pack(shipped)
	if err != nil {
		t.Fatal(err)
	}
	if Sum(a) != Sum(b) {
		t.Errorf("embedded driver-reboot packs to %s, its directory to %s", Sum(a), Sum(b))
	}
	_, err = PackEmbedded("gpu-incident")
	refusal(t, err, GoChecks)
}

func TestPackRefusesALabThatNeedsGo(t *testing.T) {
	_, err := Pack("../content/labs/gpu-incident")
	r := refusal(t, err, GoChecks)
	if r.Lab != "gpu-incident" || len(r.Steps) == 0 || !strings.Contains(r.Error(), r.Steps[0]) {
		t.Errorf("refusal %+v: want the lab and its Go steps named", r)
	}
}

func TestPackRefusesASymlink(t *testing.T) {
	dir := copyLab(t, shipped, 0o644, time.Now())
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "steps", "leak.md")); err != nil {
		t.Fatal(err)
	}
	_, err := Pack(dir)
	r := refusal(t, err, Special)
	if r.Entry != "steps/leak.md" {
		t.Errorf("entry = %q", r.Entry)
	}
	// A FIFO where a message file would be: refused, never opened.
	fifo := copyLab(t, shipped, 0o644, time.Now())
	if err := syscall.Mkfifo(filepath.Join(fifo, "messages-x.toml"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Pack(fifo)
	refusal(t, err, Special)
	useStore(t)
	_, err = InstallFile(filepath.Join(fifo, "messages-x.toml"))
	refusal(t, err, Special)
}

// lineOf is the 1-based number of the first line of file that starts
// (after indentation) with prefix.
func lineOf(t *testing.T, file, prefix string) int {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return i + 1
		}
	}
	t.Fatalf("%s: no line starts with %q", file, prefix)
	return 0
}

// breakKey replaces the first line of the lab's lab.toml that starts
// with key (its line found, never counted by hand: the header's comment
// may grow) and returns that line's number.
func breakKey(t *testing.T, dir, key, with string) int {
	t.Helper()
	n := lineOf(t, filepath.Join(dir, "lab.toml"), key)
	breakLine(t, dir, n, with)
	return n
}

// breakLine replaces line n (1-based) of the lab's lab.toml.
func breakLine(t *testing.T, dir string, n int, with string) {
	t.Helper()
	p := filepath.Join(dir, "lab.toml")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	lines[n-1] = with
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInstallRefusesASyntaxErrorAtItsLine(t *testing.T) {
	root := useStore(t)
	dir := copyLab(t, shipped, 0o644, time.Now())
	at := breakKey(t, dir, "intro = ", `intro = "intro.md`) // unterminated string
	archive, err := packFS(os.DirFS(dir))                   // Pack would refuse it itself
	if err != nil {
		t.Fatal(err)
	}
	// What a killed install left is swept by the next, once it is old.
	stale := filepath.Join(root, ".unpack-killed")
	if err := os.MkdirAll(filepath.Join(stale, "lab"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	_, err = Install(archive, "test")
	r := refusal(t, err, NotALab)
	p := r.Problems[0]
	if p.File != "lab.toml" || p.Line != at {
		t.Errorf("problem at %s:%d, want lab.toml:%d", p.File, p.Line, at)
	}
	if !strings.Contains(r.Error(), fmt.Sprintf("lab.toml %d행", at)) {
		t.Errorf("message does not name the line: %s", r.Error())
	}
	if all, _ := List(); len(all) != 0 {
		t.Errorf("refused lab listed: %+v", all)
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".unpack-*")); len(left) != 0 {
		t.Errorf("temporary directories left (an hour-old one not swept?): %v", left)
	}
	_, err = InstallDir(dir, dir)
	refusal(t, err, NotALab)
}

func TestInstallRefusesAMalformedVersion(t *testing.T) {
	useStore(t)
	dir := copyLab(t, shipped, 0o644, time.Now())
	at := breakKey(t, dir, "version = ", `version = "../../etc"`)
	_, err := InstallDir(dir, dir)
	r := refusal(t, err, NotALab)
	if p := r.Problems[0]; p.File != "lab.toml" || p.Line != at {
		t.Errorf("problem at %s:%d, want lab.toml:%d", p.File, p.Line, at)
	}
}

func TestInstallListRemove(t *testing.T) {
	root := useStore(t)
	dir := copyLab(t, shipped, 0o644, time.Now())
	breakKey(t, dir, "id = ", `id = "my-reboot"`)
	in, err := InstallDir(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, "my-reboot", "1.0.0")
	if in.ID != "my-reboot" || in.Version != "1.0.0" || in.Dir != want || in.Source != dir || in.Shadowed {
		t.Errorf("installed %+v", in)
	}
	if _, err := os.Stat(filepath.Join(want, "lab.toml")); err != nil {
		t.Errorf("lab not at %s: %v", want, err)
	}
	archive, _ := Pack(dir)
	if in.Sum != Sum(archive) {
		t.Errorf("recorded sum %s, want the archive's %s", in.Sum, Sum(archive))
	}
	kit, err := in.Open()
	if err != nil || kit.ID() != "my-reboot" {
		t.Fatalf("installed lab does not open: %v", err)
	}

	// A second version, then the first again with a change: both kept,
	// the last installed current, the replaced copy's sum reported.
	breakKey(t, dir, "version = ", `version = "1.1.0"`)
	if _, err := InstallDir(dir, "second"); err != nil {
		t.Fatal(err)
	}
	breakKey(t, dir, "version = ", `version = "1.0.0"`)
	breakKey(t, dir, "title = ", `title = "바뀐 제목"`)
	again, err := InstallDir(dir, "third")
	if err != nil {
		t.Fatal(err)
	}
	if again.Replaced != in.Sum {
		t.Errorf("Replaced = %q, want the first copy's sum", again.Replaced)
	}
	all, err := List()
	if err != nil || len(all) != 2 {
		t.Fatalf("List = %+v, %v; want two versions", all, err)
	}
	cur, err := Find("my-reboot")
	if err != nil || cur.Version != "1.0.0" || cur.Title != "바뀐 제목" || cur.Source != "third" {
		t.Errorf("Find(my-reboot) = %+v, %v; want 1.0.0 installed last", cur, err)
	}
	if old, err := Find("my-reboot@1.1.0"); err != nil || old.Current || old.Source != "second" {
		t.Errorf("Find(my-reboot@1.1.0) = %+v, %v", old, err)
	}

	if err := Remove("my-reboot@1.1.0"); err != nil {
		t.Fatal(err)
	}
	if all, _ := List(); len(all) != 1 || all[0].Version != "1.0.0" {
		t.Errorf("after removing 1.1.0: %+v", all)
	}
	if err := Remove("my-reboot"); err != nil {
		t.Fatal(err)
	}
	if all, _ := List(); len(all) != 0 {
		t.Errorf("after remove: %+v", all)
	}
	if _, err := os.Stat(filepath.Join(root, "my-reboot")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lab directory left: %v", err)
	}
	refusal(t, Remove("my-reboot"), NotInstalled)
	refusal(t, Remove("../etc"), NotInstalled)
}

// A re-install of the same version that fails keeps the copy that was
// installed, where its record says it is.
func TestAFailedReinstallKeepsTheOldCopy(t *testing.T) {
	useStore(t)
	dir := copyLab(t, shipped, 0o644, time.Now())
	breakKey(t, dir, "id = ", `id = "my-reboot"`)
	in, err := InstallDir(dir, "first")
	if err != nil {
		t.Fatal(err)
	}
	breakKey(t, dir, "title = ", `title = "바뀐 제목"`)
	failed := errors.New("the disk is full")
	moveIn = func(string, string) error { return failed }
	defer func() { moveIn = os.Rename }()
	if _, err := InstallDir(dir, "second"); !errors.Is(err, failed) {
		t.Fatalf("a re-install whose move failed: %v", err)
	}
	cur, err := Find("my-reboot")
	if err != nil || cur.Sum != in.Sum || cur.Source != "first" {
		t.Fatalf("after the failed re-install, Find = %+v, %v; want the first copy", cur, err)
	}
	kit, err := cur.Open()
	if err != nil || kit.Text.Title == "바뀐 제목" {
		t.Errorf("the first copy is gone: %v", err)
	}
}

func TestInstallOfAnEmbeddedIDIsShadowed(t *testing.T) {
	useStore(t)
	in, err := InstallDir(shipped, "copy")
	if err != nil {
		t.Fatal(err)
	}
	if !in.Shadowed {
		t.Error("a copy of driver-reboot is not marked shadowed by the embedded one")
	}
	if all, _ := List(); len(all) != 1 || !all[0].Shadowed {
		t.Errorf("List = %+v", all)
	}
}

// entry is one tar entry of a hand-made archive.
type entry struct {
	hdr  tar.Header
	data []byte
}

func archiveOf(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := e.hdr
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(e.data))
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func file(name string, data []byte) entry {
	return entry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name}, data: data}
}

func TestInstallRefusesUnsafeArchives(t *testing.T) {
	ok := file("lab.toml", []byte("id = \"x\"\n"))
	many := []entry{}
	for i := range MaxEntries + 1 {
		many = append(many, entry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: "d" + strings.Repeat("x", i%7) + "/" + strconv.Itoa(i) + "/"}})
	}
	cases := []struct {
		name    string
		archive []byte
		want    Reason
		entry   string
	}{
		{"dotdot", archiveOf(t, ok, file("../x", []byte("escape"))), UnsafePath, "../x"},
		{"dotdot inside", archiveOf(t, ok, file("steps/../../x", []byte("escape"))), UnsafePath, "steps/../../x"},
		{"absolute", archiveOf(t, ok, file("/tmp/labmate-escape", []byte("escape"))), UnsafePath, "/tmp/labmate-escape"},
		{"symlink", archiveOf(t, ok, entry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "steps", Linkname: "/etc"}}), Special, "steps"},
		{"hard link", archiveOf(t, ok, entry{hdr: tar.Header{Typeflag: tar.TypeLink, Name: "p", Linkname: "/etc/passwd"}}), Special, "p"},
		{"device", archiveOf(t, ok, entry{hdr: tar.Header{Typeflag: tar.TypeChar, Name: "null", Devmajor: 1, Devminor: 3}}), Special, "null"},
		{"oversized file", archiveOf(t, ok, file("big.md", make([]byte, MaxFileSize+1))), TooBig, "big.md"},
		{"twice", archiveOf(t, ok, ok), Duplicate, "lab.toml"},
		{"too many", archiveOf(t, many...), TooMany, ""},
		{"not gzip", []byte("lab.toml"), NotArchive, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := useStore(t)
			_, err := Install(c.archive, "test")
			r := refusal(t, err, c.want)
			if r.Entry != c.entry {
				t.Errorf("entry = %q, want %q", r.Entry, c.entry)
			}
			if c.entry != "" && !strings.Contains(r.Error(), c.entry) {
				t.Errorf("message does not name %q: %s", c.entry, r.Error())
			}
			if escaped(root) {
				t.Error("an entry escaped the unpack directory")
			}
			if _, err := os.Stat("/tmp/labmate-escape"); err == nil {
				t.Error("an absolute entry was written")
			}
			if left, _ := filepath.Glob(filepath.Join(root, ".unpack-*")); len(left) != 0 {
				t.Errorf("temporary directories left: %v", left)
			}
		})
	}
}

// escaped reports whether a file named x was written anywhere under root.
func escaped(root string) bool {
	found := false
	_ = filepath.WalkDir(filepath.Dir(root), func(p string, d fs.DirEntry, err error) error {
		found = found || err == nil && d.Name() == "x"
		return nil
	})
	return found
}

// A lab whose page, hint or message holds a control character (here a
// window title, a clipboard write and a screen clear) is refused by
// install and pack, each problem at its file and line; the refusal,
// which quotes the lab (a message key with an escape in it), is itself
// shown escaped.
func TestControlCharactersAreRefusedAtTheirLine(t *testing.T) {
	useStore(t)
	dir := copyLab(t, shipped, 0o644, time.Now())
	page := filepath.Join(dir, "steps", "02-require-label.md")
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(raw), "\n", 3)
	lines[1] = "\x1b]2;PWNED\x07" + lines[1]
	if err := os.WriteFile(page, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	// The first hint of the lab: a hint's problem is placed at its key.
	hintsAt := lineOf(t, filepath.Join(dir, "lab.toml"), "hints = [")
	breakLine(t, dir, hintsAt+1, `  "힌트 \u001b]52;c;UFdORUQ=\u0007",`)
	msgs := filepath.Join(dir, "messages.toml")
	raw, err = os.ReadFile(msgs)
	if err != nil {
		t.Fatal(err)
	}
	raw = bytes.Replace(raw, []byte(`expect = "gpu.example.com`), []byte(`expect = "\u001b[2Jgpu.example.com`), 1)
	raw = append(raw, []byte("\n[drv.quoted]\n\"key\\u001b]2;PWNED\\u0007\" = \"x\\u0007\"\n")...)
	if err := os.WriteFile(msgs, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = InstallDir(dir, dir)
	r := refusal(t, err, NotALab)
	want := map[string]int{"steps/02-require-label.md": 2, "lab.toml": hintsAt, "messages.toml": lineOf(t, msgs, `expect = "\u001b[2Jgpu.example.com`)}
	for _, p := range r.Problems {
		if line, ok := want[p.File]; ok && p.Line == line {
			delete(want, p.File)
		}
	}
	if len(want) > 0 {
		t.Errorf("not refused at their lines: %v\n%s", want, r.Error())
	}
	for _, s := range []string{"02-require-label.md 2행 1열", "U+001B ESC", "제어 문자 U+001B ESC"} {
		if !strings.Contains(r.Error(), s) {
			t.Errorf("refusal does not say %q:\n%s", s, r.Error())
		}
	}
	if strings.ContainsRune(r.Error(), 0x1b) {
		t.Errorf("the refusal itself carries an escape: %q", r.Error())
	}
	_, err = Pack(dir)
	refusal(t, err, NotALab)
}
