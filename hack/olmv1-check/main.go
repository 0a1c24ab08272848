// Command olmv1-check shows what operator-controller sees of one catalog served by upstream
// catalogd and by catalogd-ts, and fails when the two views differ.
//
// It is built inside operator-controller's module (hack/olmv1/build.sh overlays the files of this directory as
// github.com/operator-framework/operator-controller/cmd/olmv1-check), so it uses that module's
// internal packages themselves, not copies:
//
//   - upstream catalogd's serving side: internal/catalogd/storage.LocalDirV1 stores -fbc DIR the
//     way catalogd's controller stores an unpacked catalog image (Store), and serves it with the
//     handler catalogd's server runs (StorageServerHandler, gzip-wrapped as serverutil does) on a
//     loopback port;
//   - operator-controller's reading side, for each of the two: its catalog client and
//     filesystem cache (internal/operator-controller/catalogmetadata/client and cache: GET
//     <status.urls.base>/api/v1/all, split into one file per blob, then GetPackage with
//     operator-registry's declcfg), over the HTTP client it builds (10 s timeout);
//   - its resolver (internal/operator-controller/resolve.CatalogResolver with the validation
//     operator-controller runs): for each package, resolution with no constraint, in each
//     channel, and as an upgrade from each bundle.
//
// catalogd-ts's side is a ClusterCatalog as catalogd-ts wrote it (-clustercatalog FILE, JSON as
// `kubectl get clustercatalog NAME -o json` prints it; operator-controller's own checks of its
// status apply), or just -base URL. Upstream's side gets the same spec and upstream's status.
//
// Exit status: 0 same view, 1 the views differ (the differences are printed), 2 an error.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	ocv1 "github.com/operator-framework/operator-controller/api/v1"
	httputil "github.com/operator-framework/operator-controller/internal/shared/util/http"
)

type options struct {
	fbc            string
	clusterCatalog string
	base           string
	casDir         string
	maxDiffs       int
	jsonSummary    bool
}

func main() {
	var o options
	flag.StringVar(&o.fbc, "fbc", "", "FBC directory upstream catalogd serves (required)")
	flag.StringVar(&o.clusterCatalog, "clustercatalog", "", "catalogd-ts's ClusterCatalog as JSON (a file, or - for stdin)")
	flag.StringVar(&o.base, "base", "", "catalogd-ts's status.urls.base (instead of -clustercatalog)")
	flag.StringVar(&o.casDir, "cas-dir", "", "CA directory for an https base (operator-controller's --catalogd-cas-dir)")
	flag.IntVar(&o.maxDiffs, "max-diffs", 20, "differences printed at most")
	flag.BoolVar(&o.jsonSummary, "json", false, "print the summary as one JSON object")
	flag.Parse()
	if o.fbc == "" || (o.clusterCatalog == "") == (o.base == "") {
		fmt.Fprintln(os.Stderr, "usage: olmv1-check -fbc DIR (-clustercatalog FILE | -base URL) [-cas-dir DIR] [-json]")
		os.Exit(2)
	}
	ctrl.SetLogger(logr.Discard())
	ctx := log.IntoContext(context.Background(), logr.Discard())
	s, err := run(ctx, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "olmv1-check: %v\n", err)
		os.Exit(2)
	}
	if o.jsonSummary {
		out, _ := json.Marshal(s)
		fmt.Println(string(out))
	} else {
		s.print(os.Stdout, o.maxDiffs)
	}
	if len(s.Differences) > 0 {
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) (*summary, error) {
	ours, err := ourCatalog(o)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "olmv1-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	upstream, stop, err := serveUpstream(ctx, tmp, o.fbc, ours)
	if err != nil {
		return nil, fmt.Errorf("upstream catalogd storing %s: %w", o.fbc, err)
	}
	defer stop()

	pool, err := httputil.NewCertPoolWatcher(o.casDir, logr.Discard())
	if err != nil {
		return nil, err
	}
	httpClient := func() (*http.Client, error) { return httputil.BuildHTTPClient(pool) }

	upView, err := readView(ctx, tmp+"/cache-upstream", upstream, httpClient)
	if err != nil {
		return nil, fmt.Errorf("operator-controller reading upstream catalogd: %w", err)
	}
	ourView, err := readView(ctx, tmp+"/cache-catalogd-ts", ours, httpClient)
	if err != nil {
		return nil, fmt.Errorf("operator-controller reading catalogd-ts (%s): %w", ours.Status.URLs.Base, err)
	}
	s := &summary{Upstream: upstream.Status.URLs.Base, CatalogdTS: ours.Status.URLs.Base, Differences: []string{}}
	s.compareViews(upView, ourView)
	s.compareResolutions(ctx, upView, ourView)
	return s, nil
}

// ourCatalog is catalogd-ts's ClusterCatalog: as given, or a Serving one at -base.
func ourCatalog(o options) (*ocv1.ClusterCatalog, error) {
	if o.base != "" {
		return servingCatalog("catalog", ocv1.ClusterCatalogSpec{}, o.base, "catalogd-ts"), nil
	}
	in := os.Stdin
	if o.clusterCatalog != "-" {
		f, err := os.Open(o.clusterCatalog)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	var c ocv1.ClusterCatalog
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("-clustercatalog: %w", err)
	}
	if c.Status.URLs == nil {
		return nil, fmt.Errorf("ClusterCatalog %q has no status.urls", c.Name)
	}
	return &c, nil
}
