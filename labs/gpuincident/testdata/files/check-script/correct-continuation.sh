#!/bin/sh
CONF_DIR=/etc/containerd
[ -d /var/lib/containerd ] || echo "no state dir (fine here)"
containerd \
  config dump | grep -qF 'containerd.runtimes.nvidia'
