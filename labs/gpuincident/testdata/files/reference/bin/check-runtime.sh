#!/bin/sh
# Judge what containerd loaded, not what a file on disk says.
if containerd config dump | grep -qF 'containerd.runtimes.nvidia]'; then
  echo "nvidia runtime handler is loaded"
  exit 0
fi
echo "nvidia runtime handler is NOT loaded" >&2
exit 1
