#!/bin/sh
grep -q "runtimes.nvidia" /etc/contain*/*.toml
