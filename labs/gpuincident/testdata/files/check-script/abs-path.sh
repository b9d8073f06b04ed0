#!/bin/sh
if /usr/bin/containerd config dump | grep -qF "containerd.runtimes.nvidia]"; then
  exit 0
fi
exit 1
