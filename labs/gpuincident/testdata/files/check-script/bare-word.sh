#!/bin/sh
# Any mention of nvidia counts (wrong: the default runtime name says it too).
containerd config dump | grep -q nvidia
