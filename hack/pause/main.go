// Command pause holds a pod's namespaces open, like registry.k8s.io/pause (which this machine
// cannot pull): it waits for SIGINT or SIGTERM and exits. Built by hack/pause-image.sh.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
}
