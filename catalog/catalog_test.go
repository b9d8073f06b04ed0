package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/labstore"
	"github.com/labhub/labmate/state"
)

// install installs labkittest.CopiedLab(id, version) into the test's store.
func install(t *testing.T, id, version string) labstore.Installed {
	t.Helper()
	in, err := labstore.InstallDir(labkittest.CopiedLab(t, id, version), "test")
	if err != nil {
		t.Fatal(err)
	}
	return *in
}

// One grammar names every lab: ID (the embedded lab, else the installed
// one), ID@embedded, ID@installed, ID@VERSION, a directory; Locate,
// Open and List agree on it.
func TestGrammar(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	install(t, "trip", "1.0.0")
	trip := install(t, "trip", "1.1.0")
	shadow := install(t, "driver-reboot", "9.0.0")
	dir := labkittest.CopiedLab(t, "from-dir", "3.0.0")

	for _, tc := range []struct {
		ref, embedded, dir, id, version string
	}{
		{ref: "driver-reboot", embedded: "driver-reboot", id: "driver-reboot", version: "1.0.0"},
		{ref: "driver-reboot@embedded", embedded: "driver-reboot", id: "driver-reboot", version: "1.0.0"},
		{ref: "driver-reboot@installed", dir: shadow.Dir, id: "driver-reboot", version: "9.0.0"},
		{ref: "driver-reboot@9.0.0", dir: shadow.Dir, id: "driver-reboot", version: "9.0.0"},
		{ref: "trip", dir: trip.Dir, id: "trip", version: "1.1.0"},
		{ref: "trip@installed", dir: trip.Dir, id: "trip", version: "1.1.0"},
		{ref: "trip@1.0.0", id: "trip", version: "1.0.0"},
	} {
		src, err := Locate(tc.ref)
		if err != nil || src.Embedded != tc.embedded || tc.dir != "" && src.Dir != tc.dir {
			t.Errorf("Locate(%s) = %+v, %v; want embedded %q dir %q", tc.ref, src, err, tc.embedded, tc.dir)
		}
		kit, err := Open(tc.ref, nil)
		if err != nil || kit.ID() != tc.id || kit.Text.Version != tc.version {
			t.Errorf("Open(%s): %v, %v; want %s %s", tc.ref, kit, err, tc.id, tc.version)
		}
	}
	if src, err := Locate(dir); err != nil || src.Dir != dir || src.Embedded != "" {
		t.Errorf("Locate(a directory) = %+v, %v", src, err)
	}
	// A name that is nowhere is said in Korean, with the names there are.
	_, err := Locate("no-such-lab")
	if err == nil || !strings.Contains(err.Error(), "no-such-lab") || !strings.Contains(err.Error(), "driver-reboot@installed") {
		t.Errorf("Locate(no-such-lab): %v", err)
	}
	if _, err := Open("trip@7.7.7", nil); err == nil {
		t.Error("Open(trip@7.7.7) opened a version never installed")
	}

	labs, unread := List()
	var refs []string
	for _, l := range labs {
		refs = append(refs, l.Ref)
	}
	if unread != "" || !slices.Equal(refs, []string{"driver-reboot", "gpu-incident", "gpu-quota", "driver-reboot@installed", "trip"}) {
		t.Errorf("List() = %q, %q", refs, unread)
	}
	entries, err := Entries()
	if err != nil {
		t.Fatal(err)
	}
	byLab := map[string]Entry{}
	for _, e := range entries {
		byLab[e.Lab] = e
	}
	if e := byLab["trip@1.0.0"]; e.Source != SourceInstalled || e.Version != "1.0.0" || e.Shadowed() {
		t.Errorf("trip@1.0.0 listed as %+v", e)
	}
	if e := byLab["driver-reboot@installed"]; !e.Shadowed() || e.Version != "9.0.0" {
		t.Errorf("the installed driver-reboot listed as %+v", e)
	}
	if e := byLab["driver-reboot"]; e.Source != SourceEmbedded || e.Shadowed() {
		t.Errorf("the embedded driver-reboot listed as %+v", e)
	}
	if got := StoreRef("driver-reboot@installed"); got != "driver-reboot" {
		t.Errorf("StoreRef = %q", got)
	}
}

// A command's lab argument is a directory when one is there or it has
// a separator, else a reference.
func TestArg(t *testing.T) {
	dir := t.TempDir()
	for arg, want := range map[string][2]string{
		"trip":         {"trip", ""},
		"trip@1.0.0":   {"trip@1.0.0", ""},
		dir:            {"", dir},
		"./not-there":  {"", "./not-there"},
		"labs/missing": {"", "labs/missing"},
	} {
		if ref, d := Arg(arg); ref != want[0] || d != want[1] {
			t.Errorf("Arg(%q) = %q, %q; want %q", arg, ref, d, want)
		}
	}
}

// Resolve's order: the directory, the reference, $LABMATE_LAB, the lab
// remembered for the root while it is there, then the root; nothing to
// decide by is a Choose naming the commands that choose.
func TestResolve(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", "/root") // the LabHub pod's learner: the default roots as the pages say
	t.Setenv(EnvLab, "")
	t.Setenv(labroot.EnvRoot, "")
	stateDir, root := t.TempDir(), t.TempDir()
	q := Query{Root: root, StateDir: stateDir, Command: "labmate check"}
	lab := func(q Query) string {
		t.Helper()
		r, err := Resolve(q)
		if err != nil {
			t.Fatalf("Resolve(%+v): %v", q, err)
		}
		return r.Ref
	}

	_, err := Resolve(q)
	ch, ok := IsChoose(err)
	if !ok || len(ch.Labs) != 3 {
		t.Fatalf("a fresh root: %v", err)
	}
	for _, want := range []string{"labmate check --lab gpu-incident", "--root ~/gpuop", EnvLab + "="} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Choose lacks %q:\n%s", want, err)
		}
	}
	if len(ch.OpenAll()) != 3 {
		t.Errorf("OpenAll opened %d labs", len(ch.OpenAll()))
	}

	if _, err := Resolve(Query{Lab: "gpu-incident", Dir: root}); err == nil || !strings.Contains(err.Error(), "함께 쓸 수 없습니다") {
		t.Errorf("--lab and --lab-dir: %v", err)
	}
	if r, err := Resolve(Query{Dir: labkittest.CopiedLab(t, "from-dir", "1.0.0")}); err != nil || r.Kit.ID() != "from-dir" || r.Ref != "" {
		t.Errorf("a directory: %+v, %v", r, err)
	}
	if _, err := Resolve(Query{Lab: "no-such-lab"}); err == nil || !strings.Contains(err.Error(), "no-such-lab") {
		t.Errorf("an unknown lab: %v", err)
	}

	t.Setenv(EnvLab, "driver-reboot")
	if got := lab(q); got != "driver-reboot" {
		t.Errorf("%s=driver-reboot chose %q", EnvLab, got)
	}
	q.Lab = "gpu-incident"
	if got := lab(q); got != "gpu-incident" {
		t.Errorf("--lab wins over %s: %q", EnvLab, got)
	}
	t.Setenv(EnvLab, "")

	// Remembered for the root while it is there; a lab gone is no choice.
	Remember(q, "gpu-quota")
	q.Lab = ""
	if got := lab(q); got != "gpu-quota" {
		t.Errorf("remembered gpu-quota: %q", got)
	}
	if err := state.RememberLab(stateDir, RootKey(root), "renamed-lab"); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(q); err == nil {
		t.Error("a remembered lab that is gone chose")
	}
	Remember(Query{Dir: root, Root: root, StateDir: stateDir}, "gpu-quota")
	if _, err := Resolve(q); err == nil {
		t.Error("a lab from a directory was remembered")
	}

	// A root that is a lab's default root chooses it.
	if got := lab(Query{Root: "/root/gpudrv/", StateDir: stateDir}); got != "driver-reboot" {
		t.Errorf("--root /root/gpudrv/ chose %q", got)
	}
	// A root used with one lab before chooses it.
	st, err := state.Open(stateDir, "gpu-incident", RootKey(root))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(func(f *state.File) { f.Progress.CurrentStep = 2 }); err != nil {
		t.Fatal(err)
	}
	if got := lab(q); got != "gpu-incident" {
		t.Errorf("a root gpu-incident was used with chose %q", got)
	}
}

// A store that cannot be read hides the installed labs, and Resolve
// says so: in the Choose, or as a notice beside the lab it chose.
func TestUnreadableStore(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", "/root")
	t.Setenv(EnvLab, "")
	t.Setenv(labroot.EnvRoot, "")
	if err := os.MkdirAll(filepath.Join(data, "labmate"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "labmate", "labs"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	const said = "설치한 실습 목록을 읽지 못했습니다"
	q := Query{Root: t.TempDir(), StateDir: t.TempDir()}
	if _, err := Resolve(q); err == nil || !strings.Contains(err.Error(), said) {
		t.Errorf("Choose without the store: %v", err)
	}
	r, err := Resolve(Query{Root: "/root/gpuop", StateDir: q.StateDir})
	if err != nil || r.Ref != "gpu-incident" || !strings.Contains(r.Notice, said) {
		t.Errorf("a choice without the store: %+v, %v", r, err)
	}
	if r, err := Resolve(Query{Lab: "gpu-incident"}); err != nil || r.Notice != "" {
		t.Errorf("a lab named needs no notice: %+v, %v", r, err)
	}
}

// A learner who is not the LabHub pod's root works in their home: every
// lab's root with nothing named is under $HOME, the settings file's
// [roots] names another, $LABMATE_ROOT and --root come first; the root a
// lab chooses by is the learner's, not /root.
func TestRootsAreTheLearnersOwn(t *testing.T) {
	home, cfgHome := t.TempDir(), t.TempDir()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	t.Setenv("HOME", home)
	t.Setenv(EnvLab, "")
	t.Setenv(labroot.EnvRoot, "")
	gpu, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	q := Query{StateDir: t.TempDir()}
	r, err := q.RootOf(gpu)
	if err != nil || r.Path != filepath.Join(home, "gpuop") || r.From != labroot.FromHome {
		t.Errorf("nothing named: %+v, %v", r, err)
	}
	// The lab whose root exists is the one to open.
	if err := os.Mkdir(filepath.Join(home, "gpuquota"), 0o755); err != nil {
		t.Fatal(err)
	}
	if res, err := Resolve(q); err != nil || res.Ref != "gpu-quota" {
		t.Errorf("the lab whose root exists in the home: %+v, %v", res, err)
	}
	// The root the LabHub pages name chooses its lab for anyone.
	if res, err := Resolve(Query{Root: "/root/gpuop", StateDir: q.StateDir}); err != nil || res.Ref != "gpu-incident" {
		t.Errorf("--root /root/gpuop with another home: %+v, %v", res, err)
	}
	// --root ~/gpudrv, as a shell would not expand it (--root=~/gpudrv).
	if res, err := Resolve(Query{Root: "~/gpudrv", StateDir: q.StateDir}); err != nil || res.Ref != "driver-reboot" {
		t.Errorf("--root=~/gpudrv: %+v, %v", res, err)
	}

	file := filepath.Join(cfgHome, "labmate", "config.toml")
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte("[roots]\ngpu-incident = \"~/labs/gpu\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = q.RootOf(gpu)
	if err != nil || r.Path != filepath.Join(home, "labs", "gpu") || r.From != labroot.FromConfig || r.ConfigPath != file || r.Default != filepath.Join(home, "gpuop") {
		t.Errorf("the settings file: %+v, %v", r, err)
	}
	if res, err := Resolve(Query{Root: filepath.Join(home, "labs", "gpu"), StateDir: q.StateDir}); err != nil || res.Ref != "gpu-incident" {
		t.Errorf("--root of the settings file's gpu-incident root: %+v, %v", res, err)
	}
	t.Setenv(labroot.EnvRoot, "/srv/env")
	if r, err := q.RootOf(gpu); err != nil || r.Path != "/srv/env" || r.From != labroot.FromEnv {
		t.Errorf("%s: %+v, %v", labroot.EnvRoot, r, err)
	}
	q.Root = "/srv/flag"
	if r, err := q.RootOf(gpu); err != nil || r.Path != "/srv/flag" || r.From != labroot.FromFlag {
		t.Errorf("--root: %+v, %v", r, err)
	}
	other := filepath.Join(t.TempDir(), "other.toml")
	os.WriteFile(other, []byte("[roots]\ngpu-incident = \"/srv/other\"\n"), 0o644)
	if r, err := (Query{Config: other}).RootOf(gpu); err == nil && r.Path != "/srv/env" {
		t.Errorf("$LABMATE_ROOT before --config's [roots]: %+v", r)
	}
	t.Setenv(labroot.EnvRoot, "")
	if r, err := (Query{Config: other}).RootOf(gpu); err != nil || r.Path != "/srv/other" || r.ConfigPath != other {
		t.Errorf("--config: %+v, %v", r, err)
	}
}
