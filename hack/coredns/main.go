// Command coredns is the local cluster's DNS: CoreDNS with only the plugins the cluster needs,
// so that it builds in a fraction of the time of the full server (whose plugin list pulls in
// every cloud SDK). Built by hack/controlplane/build.sh; started by hack/cluster.sh.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/ready"
)

func init() {
	// The execution order of the plugins above, as in CoreDNS's generated list (a Corefile may
	// only name a directive that is in this list).
	dnsserver.Directives = []string{"bind", "ready", "errors", "kubernetes"}
}

func main() {
	coremain.Run()
}
