#!/bin/sh
containerd config dump | grep -qF "containerd.runtimes.nvidia]"
