package gpuincident

import (
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe/scriptprobe"
)

func TestDropInReferencePasses(t *testing.T) {
	root := labRoot(t, nil)
	ev := evalStep(t, stepDropIn, root, observeRoot(t, root))
	assertAllPassed(t, ev, 6)
	if got := fact(ev, "runtimes.nvidia.options.BinaryName"); !strings.Contains(got, nvidiaBinary) {
		t.Errorf("observed BinaryName %q", got)
	}
}

// A drop-in without a version is right (containerd 1.x merges it into the
// root config, whose version 2 stands; 2.x migrates it by its own version
// and errors only when it is higher): step 2 passes, and the steps after
// it, which read the drop-in, stay green.
func TestDropInWithoutVersion(t *testing.T) {
	root := labRoot(t, map[string]string{dropInPath: "dropin/no-version.toml"})
	ev := evalStep(t, stepDropIn, root, observeRoot(t, root))
	assertAllPassed(t, ev, 6)
	if r := result(t, ev, "dropin.version"); !strings.Contains(r.Message, "version = 2") {
		t.Errorf("version without a version: %q", r.Message)
	}
	assertAllPassed(t, evalStep(t, stepMergeVerdict, root, observeRoot(t, root)), 7)
	runs := probeScript(t, root, scriptprobe.Options{})
	assertAllPassed(t, evalStep(t, stepCheckScript, root, observeRoot(t, root, runs...)), 10)
}

func TestDropInWrong(t *testing.T) {
	const (
		rtype   = "dropin.nvidia-runtime-type"
		binary  = "dropin.nvidia-binary-name"
		systemd = "dropin.nvidia-systemd-cgroup"
		file    = "dropin.file"
		version = "dropin.version"
		full    = `plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia`
	)
	runVariants(t, stepDropIn, dropInPath, []variant{
		{name: "version 1", fixture: "dropin/version-1.toml",
			fail: map[string][]string{version: {"값이 1", "plugins.cri"}}},
		{name: "version 3 with the 1.x root", fixture: "dropin/version-3.toml",
			fail: map[string][]string{version: {"값이 3", "containerd 2.x"}}},
		{name: "version under a table", fixture: "dropin/version-under-table.toml",
			fail: map[string][]string{version: {"version", "자리가 다릅니다"}}},
		{name: "version is a string", fixture: "dropin/version-string.toml",
			fail: map[string][]string{version: {`"2"`}}},
		{name: "BinaryName is the hook", fixture: "dropin/binary-hook.toml",
			fail: map[string][]string{binary: {"nvidia-container-runtime-hook", `"/usr/bin/nvidia-container-runtime"`, "훅", "8번째 줄"}}},
		{name: "BinaryName without a path", fixture: "dropin/binary-relative.toml",
			fail: map[string][]string{binary: {`"nvidia-container-runtime"`, "절대 경로"}}},
		{name: "BinaryName with a trailing space", fixture: "dropin/binary-trailing-space.toml",
			fail: map[string][]string{binary: {`"/usr/bin/nvidia-container-runtime "`, "공백"}}},
		{name: "SystemdCgroup is a string", fixture: "dropin/systemd-string.toml",
			fail: map[string][]string{systemd: {`"true"`, "불리언", full + ".options.SystemdCgroup"}}},
		{name: "runtime_type v1 linux", fixture: "dropin/runtime-type-v1.toml",
			fail: map[string][]string{rtype: {"io.containerd.runtime.v1.linux", "예전 shim"}}},
		{name: "runtime_type names the handler", fixture: "dropin/runtime-type-nvidia.toml",
			fail: map[string][]string{rtype: {`"nvidia"`, "shim", "BinaryName"}}},
		{name: "options keys directly under the runtime", fixture: "dropin/missing-options-level.toml",
			fail: map[string][]string{
				binary:  {full + ".BinaryName", "options", "5번째 줄"},
				systemd: {full + ".SystemdCgroup", "options", "6번째 줄"},
			}},
		{name: "plugin name without quotes", fixture: "dropin/unquoted-plugin.toml",
			fail: map[string][]string{
				rtype:   {"plugins.io.containerd.grpc.v1.cri.containerd.runtimes.nvidia.runtime_type", "따옴표"},
				binary:  {"따옴표"},
				systemd: {"따옴표"},
			}},
		{name: "no containerd level", fixture: "dropin/missing-containerd-level.toml",
			fail: map[string][]string{
				rtype:   {`plugins."io.containerd.grpc.v1.cri".runtimes.nvidia.runtime_type`, "containerd 단계"},
				binary:  {"containerd 단계"},
				systemd: {"containerd 단계"},
			}},
		{name: "plugins.cri", fixture: "dropin/v1-plugin-name.toml",
			fail: map[string][]string{rtype: {"plugins.cri.containerd", "version 1"}, binary: {"version 1"}, systemd: {"version 1"}}},
		{name: "containerd 2.x plugin name", fixture: "dropin/v3-plugin-name.toml",
			fail: map[string][]string{rtype: {"io.containerd.cri.v1.runtime", "containerd 2.x"}, binary: {"containerd 2.x"}, systemd: {"containerd 2.x"}, version: {"containerd 2.x"}}},
		{name: "runtime named differently", fixture: "dropin/runtime-name-typo.toml",
			fail: map[string][]string{
				rtype:  {full + ".runtime_type", `plugins."io.containerd.grpc.v1.cri".containerd.runtimes 까지는 있지만`, "nvidia.runtime_type"},
				binary: {"nvidia.options.BinaryName"}, systemd: {"nvidia.options.SystemdCgroup"},
			}},
		{name: "NUL bytes", fixture: "dropin/binary-nul.toml", others: checks.Waiting,
			fail: map[string][]string{file: {"텍스트 파일이 아닙니다", "13번째 바이트", "NUL"}}},
		{name: "not UTF-8", fixture: "dropin/binary-latin1.toml", others: checks.Waiting,
			fail: map[string][]string{file: {"UTF-8", "0xC0", "15번째 바이트"}}},
	})
}

// The observed panel says whether containerd would read the drop-in at
// all: the main config's imports, resolved from its directory.
func TestDropInObservedImports(t *testing.T) {
	label := msg("files.fact.imports_dropin")
	for _, tc := range []struct {
		main string // fixture replacing the main config; "" keeps the reference
		want []string
	}{
		{"", []string{"예", `"/etc/containerd/conf.d/*.toml"`, "etc/containerd/conf.d/*.toml"}},
		{"main-config/imports-relative.toml", []string{"예", `"conf.d/*.toml"`, "etc/containerd/conf.d/*.toml"}},
		{"main-config/imports-elsewhere.toml", []string{"아니오", "certs.d/*.toml", "99-nvidia.toml"}},
		{"main-config/imports-single-file.toml", []string{"예", "99-nvidia.toml"}},
		{"main-config/imports-under-header.toml", []string{"아니오", "최상위 imports"}},
		{"main-config/duplicate-table.toml", []string{"판단할 수 없음"}},
	} {
		replace := map[string]string{}
		if tc.main != "" {
			replace[mainConfigPath] = tc.main
		}
		root := labRoot(t, replace)
		ev := evalStep(t, stepDropIn, root, observeRoot(t, root))
		got := fact(ev, label)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: imports verdict %q lacks %q", tc.main, got, w)
			}
		}
		if tc.main != "" && strings.Contains(tc.want[0], "예") && !strings.Contains(got, root) {
			t.Errorf("%s: verdict %q does not show the real path", tc.main, got)
		}
	}
}
