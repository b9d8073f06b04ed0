#!/bin/sh
# Look at the main config.
grep -q "runtimes.nvidia" /etc/containerd/config.toml
