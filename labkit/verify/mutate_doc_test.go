package verify

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	yaml "go.yaml.in/yaml/v3"
)

const podYAML = `apiVersion: v1
kind: Pod
metadata:
  name: trainer   # the pod
  namespace: ml
spec:
  tolerations:
    - key: nvidia.com/gpu
      operator: Exists
  containers:
    - name: main
      resources:
        limits:
          nvidia.com/gpu: 1
  hostNetwork: false
  replicas: "4"
`

func descs(es []docEdit) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.desc)
	}
	return out
}

func decodeYAML(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return v
}

// Every field of a YAML file is a near-miss of each kind, named by its
// path, and each edit changes exactly that.
func TestYAMLFieldEdits(t *testing.T) {
	es, err := yamlEdits([]byte(podYAML))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(descs(es), "\n")
	for _, want := range []string{
		"delete metadata.labels", // absent: must not appear
	} {
		if strings.Contains(got, want) {
			t.Errorf("edit of a field that is not there: %s", want)
		}
	}
	for _, want := range []string{
		"delete metadata.name", `set metadata.name "traines"`,
		"delete spec.tolerations[0]", "delete spec.tolerations[0].key",
		"delete spec.containers[0].resources.limits[nvidia.com/gpu]",
		"string spec.containers[0].resources.limits[nvidia.com/gpu]",
		`set spec.containers[0].resources.limits[nvidia.com/gpu] "2"`, `set spec.containers[0].resources.limits[nvidia.com/gpu] "0"`,
		"string spec.hostNetwork", `set spec.hostNetwork "true"`,
		"typed spec.replicas",
	} {
		if !strings.Contains(got, want+"\n") && !strings.HasSuffix(got, want) {
			t.Errorf("no edit %q among\n%s", want, got)
		}
	}
	orig := decodeYAML(t, []byte(podYAML)).(map[string]any)
	for _, e := range es {
		after := decodeYAML(t, e.body).(map[string]any)
		if reflect.DeepEqual(orig, after) {
			t.Errorf("%s changed nothing", e.desc)
		}
		spec, _ := after["spec"].(map[string]any)
		if spec == nil {
			continue
		}
		switch e.desc {
		case "delete spec.tolerations[0].key":
			if _, ok := spec["tolerations"].([]any)[0].(map[string]any)["key"]; ok {
				t.Errorf("%s: key still there", e.desc)
			}
		case "string spec.hostNetwork":
			if spec["hostNetwork"] != "false" {
				t.Errorf("%s: %#v", e.desc, spec["hostNetwork"])
			}
		case "typed spec.replicas":
			if spec["replicas"] != 4 {
				t.Errorf("%s: %#v", e.desc, spec["replicas"])
			}
		}
	}
}

// A restyled YAML file means the same.
func TestYAMLRestylesKeepTheMeaning(t *testing.T) {
	rs, err := yamlRestyles([]byte(podYAML))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 {
		t.Fatalf("%d restyles", len(rs))
	}
	want := decodeYAML(t, []byte(podYAML))
	for _, r := range rs {
		if string(r.body) == podYAML {
			t.Errorf("%s wrote the file unchanged", r.desc)
		}
		if got := decodeYAML(t, r.body); !reflect.DeepEqual(got, want) {
			t.Errorf("%s changed the meaning:\n%s", r.desc, r.body)
		}
	}
}

const mainTOML = `version = 2
imports = ["/etc/containerd/conf.d/*.toml"]

[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "runc"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
  SystemdCgroup = true
`

func TestTOMLFieldEditsAndRestyles(t *testing.T) {
	es, err := tomlEdits([]byte(mainTOML))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(descs(es), "\n")
	for _, want := range []string{
		"delete version", "string version", "set version 3", "set version 1",
		"delete imports[0]", `set imports[0] "/etc/containerd/conf.d/*.tomm"`,
		`string plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options.SystemdCgroup`,
		`set plugins."io.containerd.grpc.v1.cri".containerd.default_runtime_name "rund"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no edit %q among\n%s", want, got)
		}
	}
	var orig map[string]any
	_ = toml.Unmarshal([]byte(mainTOML), &orig)
	for _, e := range es {
		var after map[string]any
		if err := toml.Unmarshal(e.body, &after); err != nil {
			t.Fatalf("%s: %v\n%s", e.desc, err, e.body)
		}
		if reflect.DeepEqual(orig, after) {
			t.Errorf("%s changed nothing", e.desc)
		}
		if e.desc == "string version" && after["version"] != "2" {
			t.Errorf("%s: %#v", e.desc, after["version"])
		}
	}
	rs, err := tomlRestyles([]byte(mainTOML))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		var after map[string]any
		if err := toml.Unmarshal(r.body, &after); err != nil || !reflect.DeepEqual(orig, after) {
			t.Errorf("%s changed the meaning (%v):\n%s", r.desc, err, r.body)
		}
	}
}
