#!/bin/sh
if "containerd" config dump | sed -n '/containerd\.runtimes\.nvidia/p' | grep -q .; then
  exit 0
fi
exit 1
