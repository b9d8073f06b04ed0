#!/bin/sh
if containerd dump config | grep -q "runtimes.nvidia"; then exit 0; fi
exit 1
