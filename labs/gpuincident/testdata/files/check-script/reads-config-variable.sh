#!/bin/sh
D=/etc/containerd
F=config.toml
grep -q "runtimes.nvidia" "$D/$F"
