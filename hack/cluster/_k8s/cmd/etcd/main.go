// Command etcd is upstream's etcd server entry point, built from the Go module
// proxy for the labmate sandbox. It is built in the same module and the same
// `go build` as the Kubernetes commands: the packages they share (etcd's
// client and API, gRPC, protobuf, OpenTelemetry, Prometheus, zap, x/net)
// then compile once, at the versions the API server uses.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
