#!/bin/sh
# Judge containerd's merged config (main config and imports), not one file.
if containerd config dump | grep -qF 'containerd.runtimes.nvidia]'; then
  echo "nvidia runtime handler is loaded"
  exit 0
fi
echo "nvidia runtime handler is NOT loaded" >&2
exit 1
