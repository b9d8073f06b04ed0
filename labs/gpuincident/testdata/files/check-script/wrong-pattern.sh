#!/bin/sh
# Without quotes, as if the table name had none.
containerd config dump | grep -qF "plugins.io.containerd.grpc.v1.cri.containerd.runtimes.nvidia"
