package labroot

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

// handSpelled is a path that starts at /root: the LabHub pod's home,
// which is not the learner's on their own machine.
var handSpelled = regexp.MustCompile(`(^|[^A-Za-z0-9_.~/-])/root(/|[^A-Za-z0-9_.-]|$)`)

// Every file of every lab labmate carries (pages, hints, solutions,
// messages, reference answers and scripts, verify data, the reference
// run) names a path under the lab root as {{ROOT}} (or relative to it),
// never /root/ by hand: a learner who is not the LabHub pod's root works
// in their own home, and would be sent to a directory they cannot
// write. The one /root there is a reference run's header, which records
// where it ran: the lab's default root as the LabHub pod has it.
func TestNoLabFileSpellsRoot(t *testing.T) {
	files := 0
	for _, id := range content.IDs() {
		lab, err := content.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		if _, under := underHome(lab.DefaultRoot); !under {
			t.Errorf("%s: default_root %q is not under the learner's home (~/...)", id, lab.DefaultRoot)
		}
		if strings.HasPrefix(lab.DefaultRoot, labHubHome) {
			t.Errorf("%s: default_root %q spells /root; write ~/%s", id, lab.DefaultRoot, strings.TrimPrefix(lab.DefaultRoot, labHubHome+"/"))
		}
		err = fs.WalkDir(lab.FS, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(lab.FS, p)
			if err != nil {
				return err
			}
			files++
			text := string(b)
			if p == lab.ReferenceRun {
				text = withoutTraceRoot(t, id, p, text, AtLabHub(lab.DefaultRoot))
			}
			for n, line := range strings.Split(text, "\n") {
				if handSpelled.MatchString(line) {
					t.Errorf("content/labs/%s/%s:%d spells /root by hand; write {{ROOT}} (the lab root in use): %s", id, p, n+1, line)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 30 {
		t.Fatalf("read %d lab files: is the walk still right?", files)
	}
}

// withoutTraceRoot checks that a reference run's header records the
// lab's default root as the LabHub pod has it, and returns the trace
// without that header.
func withoutTraceRoot(t *testing.T, id, p, text, want string) string {
	t.Helper()
	header, rest, _ := strings.Cut(text, "\n")
	var h struct{ Root string }
	if err := json.NewDecoder(bufio.NewReader(strings.NewReader(header))).Decode(&h); err != nil {
		t.Errorf("%s/%s: header: %v", id, p, err)
		return text
	}
	if h.Root != want {
		t.Errorf("%s/%s: recorded at %q, want the LabHub root %q", id, p, h.Root, want)
	}
	return rest
}

func TestHandSpelledFindsPathsAtRoot(t *testing.T) {
	for s, want := range map[string]bool{
		"/root/gpuop/etc/containerd/config.toml 을 만드세요": true,
		"cd /root && ls":           true,
		`default_root = "/root/x"`: true,
		"`/root/gpuop`":            true,
		"{{ROOT}}/etc/containerd":  false,
		"/var/lib/rootless/x":      false,
		"/run/containerd/root/x":   false,
		"/rootfs/etc":              false,
		"~/gpuop":                  false,
		"chroot /mnt":              false,
		"containerd --root /var/x": false,
	} {
		if got := handSpelled.MatchString(s); got != want {
			t.Errorf("%q: %v, want %v", s, got, want)
		}
	}
}
