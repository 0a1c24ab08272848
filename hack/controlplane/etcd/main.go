// Command etcd is the etcd server, built from the go.etcd.io/etcd/server/v3 module at the
// version pinned in hack/versions.env (Debian's etcd 3.4 is too old for Kubernetes 1.34+).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
