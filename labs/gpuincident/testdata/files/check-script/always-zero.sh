#!/bin/sh
containerd config dump
echo "dumped"
exit 0
