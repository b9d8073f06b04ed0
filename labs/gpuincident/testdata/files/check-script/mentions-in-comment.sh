#!/bin/sh
# Loaded config, not /etc/containerd/config.toml.
containerd config dump | grep -qF "containerd.runtimes.nvidia]"
