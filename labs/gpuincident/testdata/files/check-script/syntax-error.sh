#!/bin/sh
if containerd config dump | grep -qF "containerd.runtimes.nvidia]" then
  exit 0
fi
exit 1
