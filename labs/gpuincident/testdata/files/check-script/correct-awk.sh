#!/bin/sh
# The loaded table, matched with awk.
containerd config dump | awk '/containerd\.runtimes\.nvidia/ { found = 1 } END { exit !found }'
