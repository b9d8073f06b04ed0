package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadGood(t *testing.T) {
	p := write(t, `
theme = "Light"
clipboard = "tmux"

[keys]
next = ["l", "right"]
hint = "?"

[roots]
gpu-incident = "~/labs/gpuop"
driver-reboot = "/srv/labs/gpudrv"
`)
	cfg, warns := Load(p)
	if len(warns) != 0 {
		t.Fatalf("warnings: %q", warns)
	}
	want := Config{Theme: "light", Clipboard: "tmux", Keys: map[string][]string{"next": {"l", "right"}, "hint": {"?"}},
		Roots: map[string]string{"gpu-incident": "~/labs/gpuop", "driver-reboot": "/srv/labs/gpudrv"}}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got %+v, want %+v", cfg, want)
	}
}

func TestLoadMissingIsQuiet(t *testing.T) {
	cfg, warns := Load(filepath.Join(t.TempDir(), "nope", "config.toml"))
	if len(warns) != 0 || !reflect.DeepEqual(cfg, Config{}) {
		t.Errorf("missing file: %+v %q", cfg, warns)
	}
	if cfg, warns := Load(""); len(warns) != 0 || !reflect.DeepEqual(cfg, Config{}) {
		t.Errorf("no path: %+v %q", cfg, warns)
	}
}

func TestLoadBad(t *testing.T) {
	dir := t.TempDir()
	unreadable := filepath.Join(dir, "secret.toml")
	os.WriteFile(unreadable, []byte(`theme = "dark"`), 0o000)
	big := filepath.Join(dir, "big.toml")
	os.WriteFile(big, []byte(strings.Repeat("# padding\n", 10000)), 0o644)

	for _, c := range []struct {
		name, path string
		want       []string // each warning must contain these, in order
		cfg        Config
	}{
		{"syntax", write(t, "theme = \"dark\"\nclipboard = = \"x\"\n"), []string{"2행"}, Config{}},
		{"binary junk", write(t, "\x00\x01\xff\xfe"), []string{"TOML"}, Config{}},
		{"bad values", write(t, "theme = \"neon\"\nclipboard = 3\n"), []string{"clipboard = 3", "theme = neon"}, Config{}},
		{"unknown and partial", write(t, "colour = \"x\"\ntheme = \"dark\"\n"), []string{"colour"}, Config{Theme: "dark"}},
		{"keys not a table", write(t, "keys = \"n\"\n"), []string{"[keys]"}, Config{}},
		{"key not strings", write(t, "[keys]\nnext = [1, 2]\nprev = \"b\"\n"), []string{"next"}, Config{Keys: map[string][]string{"prev": {"b"}}}},
		{"directory", dir, []string{"디렉터리"}, Config{}},
		{"roots not a table", write(t, "roots = \"~/gpuop\"\n"), []string{"[roots]"}, Config{}},
		{"roots bad", write(t, "[roots]\ngpu-quota = \"gpuquota\"\ngpu-incident = \"~/labs/gpuop\"\ndriver-reboot = 7\n"),
			[]string{"driver-reboot = 7", "gpu-quota = gpuquota"}, Config{Roots: map[string]string{"gpu-incident": "~/labs/gpuop"}}},
		{"too large", big, []string{"바이트"}, Config{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, warns := Load(c.path)
			if len(warns) != len(c.want) {
				t.Fatalf("warnings %q, want %d", warns, len(c.want))
			}
			for i, w := range c.want {
				if !strings.Contains(warns[i], w) || !strings.Contains(warns[i], "설정") {
					t.Errorf("warning %q lacks %q", warns[i], w)
				}
			}
			if !reflect.DeepEqual(cfg, c.cfg) {
				t.Errorf("config %+v, want %+v", cfg, c.cfg)
			}
		})
	}
	if os.Geteuid() != 0 { // root reads anything
		if _, warns := Load(unreadable); len(warns) != 1 {
			t.Errorf("unreadable: %q", warns)
		}
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/x/cfg")
	if got := DefaultPath(); got != "/x/cfg/labmate/config.toml" {
		t.Errorf("with XDG_CONFIG_HOME: %q", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative")
	t.Setenv("HOME", "/home/learner")
	if got := DefaultPath(); got != "/home/learner/.config/labmate/config.toml" {
		t.Errorf("relative XDG_CONFIG_HOME is ignored per the spec: %q", got)
	}
}

// Every warning the file can give has its Korean text.
func TestWarningsExist(t *testing.T) {
	src, err := os.ReadFile("config.go")
	if err != nil {
		t.Fatal(err)
	}
	calls := regexp.MustCompile(`warn\("([a-z_]+)"`).FindAllStringSubmatch(string(src), -1)
	if len(calls) < 10 {
		t.Fatalf("found %d warnings: is the pattern still right?", len(calls))
	}
	for _, m := range calls {
		if !content.HasMsg("config." + m[1]) {
			t.Errorf("no message config.%s", m[1])
		}
	}
}
