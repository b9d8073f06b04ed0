package gpuincident

import (
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
)

func TestMainConfigReferencePasses(t *testing.T) {
	root := labRoot(t, nil)
	ev := evalStep(t, stepMainConfig, root, observeRoot(t, root))
	assertAllPassed(t, ev, 7)
	if got := fact(ev, "runtimes.runc.options.SystemdCgroup"); !strings.Contains(got, "true") || !strings.Contains(got, "불리언") {
		t.Errorf("observed SystemdCgroup %q", got)
	}
	if got := fact(ev, msg("files.fact.imports_dropin")); !strings.HasPrefix(got, "예") {
		t.Errorf("observed imports verdict %q", got)
	}
}

func TestMainConfigWrong(t *testing.T) {
	const (
		version  = "main-config.version"
		imports  = "main-config.imports"
		def      = "main-config.default-runtime"
		rtype    = "main-config.runc-runtime-type"
		systemd  = "main-config.runc-systemd-cgroup"
		fullRunc = `plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc`
	)
	runVariants(t, stepMainConfig, mainConfigPath, []variant{
		{name: "SystemdCgroup is the string \"true\"", fixture: "main-config/systemd-string.toml",
			fail: map[string][]string{systemd: {`"true"`, "문자열", "불리언", "15번째 줄", fullRunc + ".options.SystemdCgroup"}}},
		{name: "SystemdCgroup false", fixture: "main-config/systemd-false.toml",
			fail: map[string][]string{systemd: {"false", "true", "systemd cgroup"}}},
		{name: "SystemdCgroup key in the wrong case", fixture: "main-config/systemd-key-case.toml",
			fail: map[string][]string{systemd: {"systemdCgroup", "대소문자", "SystemdCgroup"}}},
		{name: "SystemdCgroup without the options level", fixture: "main-config/missing-options-level.toml",
			fail: map[string][]string{systemd: {fullRunc + ".SystemdCgroup", "options", "9번째 줄"}}},
		{name: "version is a string", fixture: "main-config/version-string.toml",
			fail: map[string][]string{version: {`"2"`, "정수", "2번째 줄"}}},
		{name: "version 3", fixture: "main-config/version-3.toml",
			fail: map[string][]string{version: {"3", "기대값은 2", "containerd 2.x"}}},
		{name: "imports names one file", fixture: "main-config/imports-single-file.toml",
			fail: map[string][]string{imports: {"conf.d/*.toml", "99-nvidia.toml", "*.toml"}}},
		{name: "imports is a string", fixture: "main-config/imports-string.toml",
			fail: map[string][]string{imports: {"배열", `["/etc/containerd/conf.d/*.toml"]`}}},
		{name: "imports points elsewhere", fixture: "main-config/imports-elsewhere.toml",
			fail: map[string][]string{imports: {"certs.d/*.toml", "conf.d/*.toml"}}},
		{name: "imports has a number", fixture: "main-config/imports-item-type.toml",
			fail: map[string][]string{imports: {"2번째 항목", "정수", "99"}}},
		{name: "top-level keys under a table header", fixture: "main-config/imports-under-header.toml",
			fail: map[string][]string{
				version: {"plugins.version", "헤더", "3번째 줄"},
				imports: {"plugins.imports", "헤더", "4번째 줄"},
			}},
		{name: "default runtime nvidia", fixture: "main-config/default-nvidia.toml",
			fail: map[string][]string{def: {`"nvidia"`, `"runc"`, "RuntimeClass"}}},
		{name: "runtime_type v1 shim", fixture: "main-config/runtime-type-v1.toml",
			fail: map[string][]string{rtype: {"io.containerd.runc.v1", "io.containerd.runc.v2", "예전 shim"}}},
		{name: "runtime_type is a binary", fixture: "main-config/runtime-type-binary.toml",
			fail: map[string][]string{rtype: {`"runc"`, "shim", "BinaryName"}}},
		{name: "plugins.cri from config version 1", fixture: "main-config/v1-plugin-name.toml",
			fail: map[string][]string{
				def:     {"plugins.cri.containerd.default_runtime_name", "version 1", "5번째 줄"},
				rtype:   {"plugins.cri.containerd.runtimes.runc.runtime_type", "version 1"},
				systemd: {"plugins.cri.containerd.runtimes.runc.options.SystemdCgroup", "version 1"},
			}},
		{name: "plugin name without quotes", fixture: "main-config/unquoted-plugin.toml",
			fail: map[string][]string{
				def:     {"plugins.io.containerd.grpc.v1.cri.containerd.default_runtime_name", "따옴표"},
				rtype:   {"따옴표", `plugins."io.containerd.grpc.v1.cri"`},
				systemd: {"따옴표"},
			}},
		{name: "runtimes without the containerd level", fixture: "main-config/missing-containerd-level.toml",
			fail: map[string][]string{
				rtype:   {`plugins."io.containerd.grpc.v1.cri".runtimes.runc.runtime_type`, "containerd 단계", "8번째 줄"},
				systemd: {"containerd 단계"},
			}},
		{name: "no runc table", fixture: "main-config/no-runc-table.toml",
			fail: map[string][]string{
				rtype:   {`plugins."io.containerd.grpc.v1.cri".containerd`, "runtimes.runc.runtime_type", "4번째 줄"},
				systemd: {"runtimes.runc.options.SystemdCgroup"},
			}},
	})
}

func TestMainConfigBadTOML(t *testing.T) {
	const parse = "main-config.toml"
	runVariants(t, stepMainConfig, mainConfigPath, []variant{
		{name: "capitalised boolean", fixture: "main-config/systemd-capital-bool.toml", others: checks.Waiting,
			fail: map[string][]string{parse: {"15번째 줄", "29번째 칸", "SystemdCgroup = True", "소문자"}}},
		{name: "unquoted string value", fixture: "main-config/runtime-type-bare.toml", others: checks.Waiting,
			fail: map[string][]string{parse: {"12번째 줄", "runtime_type = io.containerd.runc.v2", "큰따옴표"}}},
		{name: "unclosed table header", fixture: "main-config/unclosed-header.toml", others: checks.Waiting,
			fail: map[string][]string{parse: {"7번째 줄", "닫혔는지"}}},
		{name: "table defined twice", fixture: "main-config/duplicate-table.toml", others: checks.Waiting,
			fail: map[string][]string{parse: {"10번째 줄", "두 번"}}},
	})
}

func TestMainConfigParseErrorWhere(t *testing.T) {
	root := labRoot(t, map[string]string{mainConfigPath: "main-config/systemd-capital-bool.toml"})
	r := result(t, evalStep(t, stepMainConfig, root, observeRoot(t, root)), "main-config.toml")
	if r.Where != mainConfigPath+":15:29" {
		t.Errorf("where %q", r.Where)
	}
	if !strings.Contains(r.Message, root) {
		t.Errorf("message does not show the real path under %s: %s", root, r.Message)
	}
}
