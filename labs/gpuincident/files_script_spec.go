package gpuincident

import (
	"strings"

	"github.com/labhub/labmate/observe"
)

// Step 4's probe: the scenarios its script runs under, the dumps the
// fake containerd prints in each, and the sandbox policy of the runs
// (the node's config file as a watched trap, containerd's usual places
// as trap commands).

const (
	scenarioNvidia   = "nvidia"
	scenarioRuncOnly = "runc-only"
	// scenarioNvidiaDefault: runc only, although the word nvidia appears
	// (default_runtime_name, a runc BinaryName): the common trap where a
	// grep for the bare word lies. Not the incident node's dump (neither
	// LabHub page shows it; its default runtime was runc).
	scenarioNvidiaDefault = "nvidia-default-only"
	fakeCommand           = "containerd"
	// mainConfigOnNode is what the lab's grader forbids the script to
	// read: in a sandbox with a root of its own it is a trap file whose
	// opening is observed.
	mainConfigOnNode = "/etc/containerd/config.toml"
)

// containerdDirs are the usual absolute locations of containerd: in a
// sandbox with a root of its own each holds a trap command that records
// being called by its absolute path, then acts as the fake.
var containerdDirs = []string{"/usr/bin", "/usr/local/bin", "/usr/sbin", "/usr/local/sbin", "/bin", "/sbin", "/opt/containerd/bin"}

// trapConfig is what the trap at mainConfigOnNode holds: what was
// written (an nvidia runtime), never what was loaded, which is the lab's
// lesson.
const trapConfig = `# labmate: a trap. The lab's grader forbids reading this file:
# it is what was written, not what containerd loaded.
version = 2
imports = ["/etc/containerd/conf.d/*.toml"]

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"
`

// checkScriptSandbox is the lab's policy for the runs: the prober's
// system binds and devices, the config trap, and the trap commands.
func checkScriptSandbox() observe.SandboxSpec {
	s := observe.SandboxSpec{
		Files: []observe.SandboxFile{{Path: mainConfigOnNode, Content: trapConfig, Mode: 0o644, Watch: true}},
	}
	for _, d := range containerdDirs {
		s.Commands = append(s.Commands, d+"/"+fakeCommand)
	}
	return s
}

// scriptScenarios are the runs step 4 asks for, in order, with the exit
// code each must end with and the check that says so.
var scriptScenarios = []struct {
	name string
	exit int
	id   string
}{
	{scenarioNvidia, 0, "check-script.run-nvidia"},
	{scenarioRuncOnly, 1, "check-script.run-runc-only"},
	{scenarioNvidiaDefault, 1, "check-script.run-nvidia-default"},
}

// scenarioLabel is a scenario's name for learners.
func scenarioLabel(name string) string {
	switch name {
	case scenarioNvidia:
		return msg("files.script.scenario.nvidia")
	case scenarioRuncOnly:
		return msg("files.script.scenario.runc-only")
	case scenarioNvidiaDefault:
		return msg("files.script.scenario.nvidia-default-only")
	}
	return name
}

// checkScriptProbe asks the prober to run the script once per scenario.
var checkScriptProbe = &observe.ProbeSpec{
	Script:      checkScriptPath,
	FakeCommand: fakeCommand,
	Scenarios: []observe.Scenario{
		{Name: scenarioNvidia, Stdout: configDump(dumpNvidia)},
		{Name: scenarioRuncOnly, Stdout: configDump(dumpRuncOnly)},
		{Name: scenarioNvidiaDefault, Stdout: configDump(dumpNvidiaDefaultOnly)},
	},
	Sandbox: checkScriptSandbox(),
}

type dumpKind int

const (
	dumpNvidia dumpKind = iota
	dumpRuncOnly
	dumpNvidiaDefaultOnly
)

// configDump is what `containerd config dump` prints on a containerd 1.7
// node (trimmed to the parts that matter): with the nvidia runtime
// handler loaded; with runc only, never saying "nvidia"; or with runc
// only while the word nvidia appears elsewhere (the default runtime's
// name set by a drop-in whose table was not loaded, and runc pointed at
// the nvidia binary): the trap a grep for the bare word falls into.
func configDump(kind dumpKind) string {
	defaultRuntime, runcBinary := "runc", ""
	if kind == dumpNvidiaDefaultOnly {
		defaultRuntime, runcBinary = "nvidia", nvidiaBinary
	}
	var b strings.Builder
	b.WriteString(`disabled_plugins = []
imports = ["/etc/containerd/config.toml"]
oom_score = 0
plugin_dir = ""
required_plugins = []
root = "/var/lib/containerd"
state = "/run/containerd"
temp = ""
version = 2

[cgroup]
  path = ""

[grpc]
  address = "/run/containerd/containerd.sock"
  gid = 0
  max_recv_message_size = 16777216
  max_send_message_size = 16777216
  uid = 0

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    device_ownership_from_security_context = false
    disable_apparmor = false
    enable_cdi = false
    enable_selinux = false
    max_container_log_line_size = 16384
    sandbox_image = "registry.k8s.io/pause:3.8"

    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/opt/cni/bin"
      conf_dir = "/etc/cni/net.d"

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "` + defaultRuntime + `"
      discard_unpacked_layers = false
      snapshotter = "overlayfs"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]
`)
	if kind == dumpNvidia {
		b.WriteString(dumpRuntime("nvidia", nvidiaBinary))
	}
	b.WriteString(dumpRuntime("runc", runcBinary))
	b.WriteString(`
  [plugins."io.containerd.internal.v1.opt"]
    path = "/opt/containerd"

  [plugins."io.containerd.snapshotter.v1.overlayfs"]
    root_path = ""
    upperdir_label = false

[ttrpc]
  address = ""
  gid = 0
  uid = 0
`)
	return b.String()
}

// dumpRuntime is one runtime handler's tables as config dump prints them.
func dumpRuntime(name, binary string) string {
	t := `plugins."io.containerd.grpc.v1.cri".containerd.runtimes.` + name
	return `
        [` + t + `]
          base_runtime_spec = ""
          cni_conf_dir = ""
          cni_max_conf_num = 0
          container_annotations = []
          pod_annotations = []
          privileged_without_host_devices = false
          runtime_engine = ""
          runtime_path = ""
          runtime_root = ""
          runtime_type = "io.containerd.runc.v2"
          sandbox_mode = "podsandbox"

          [` + t + `.options]
            BinaryName = "` + binary + `"
            SystemdCgroup = true
`
}
