package main

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"

	"github.com/klauspost/compress/gzhttp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-framework/operator-registry/alpha/declcfg"

	ocv1 "github.com/operator-framework/operator-controller/api/v1"
	"github.com/operator-framework/operator-controller/internal/catalogd/storage"
	"github.com/operator-framework/operator-controller/internal/operator-controller/catalogmetadata/cache"
	catalogclient "github.com/operator-framework/operator-controller/internal/operator-controller/catalogmetadata/client"
)

// servingCatalog is a ClusterCatalog with the status upstream catalogd writes once it serves.
func servingCatalog(name string, spec ocv1.ClusterCatalogSpec, base, ref string) *ocv1.ClusterCatalog {
	c := &ocv1.ClusterCatalog{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
	meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{
		Type: ocv1.TypeServing, Status: metav1.ConditionTrue, Reason: ocv1.ReasonAvailable,
	})
	c.Status.ResolvedSource = &ocv1.ResolvedCatalogSource{
		Type: ocv1.SourceTypeImage, Image: &ocv1.ResolvedImageSource{Ref: ref},
	}
	c.Status.URLs = &ocv1.ClusterCatalogURLs{Base: base}
	return c
}

// serveUpstream stores dir as upstream catalogd's controller stores an unpacked catalog
// (LocalDirV1.Store of the catalog's FBC root) and serves it as catalogd's HTTP server does,
// on a loopback port. It returns the ClusterCatalog upstream would then write: ours's name
// and spec, Serving, urls.base from LocalDirV1.BaseURL.
func serveUpstream(ctx context.Context, tmp, dir string, ours *ocv1.ClusterCatalog) (*ocv1.ClusterCatalog, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	root, err := url.Parse(fmt.Sprintf("http://%s/catalogs/", ln.Addr()))
	if err != nil {
		return nil, nil, err
	}
	store := &storage.LocalDirV1{RootDir: tmp + "/upstream-storage", RootURL: root} // APIV1MetasHandler is off by default in v1.5.1
	if err := store.Store(ctx, ours.Name, os.DirFS(dir)); err != nil {
		ln.Close()
		return nil, nil, err
	}
	srv := &http.Server{Handler: gzhttp.GzipHandler(store.StorageServerHandler())}
	go func() { _ = srv.Serve(ln) }()
	upstream := servingCatalog(ours.Name, ours.Spec, store.BaseURL(ours.Name), "upstream-catalogd")
	return upstream, func() { _ = srv.Close() }, nil
}

// view is what operator-controller holds of one catalog: GetPackage of each top-level entry
// of its cache (a package, or the schema of package-less blobs), and the catalog it read.
type view struct {
	catalog  *ocv1.ClusterCatalog
	packages map[string]*declcfg.DeclarativeConfig
}

func (v *view) names() []string {
	names := make([]string, 0, len(v.packages))
	for n := range v.packages {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// readView populates operator-controller's cache from the catalog's urls.base, as its
// ClusterExtension reconciler does, then reads every package back through GetPackage, as its
// resolver does.
func readView(ctx context.Context, cacheDir string, c *ocv1.ClusterCatalog, httpClient func() (*http.Client, error)) (*view, error) {
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		return nil, err
	}
	client := catalogclient.New(cache.NewFilesystemCache(cacheDir), httpClient)
	fsys, err := client.PopulateCache(ctx, c)
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	v := &view{catalog: c, packages: map[string]*declcfg.DeclarativeConfig{}}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dc, err := client.GetPackage(ctx, c, e.Name())
		if err != nil {
			return nil, err
		}
		v.packages[e.Name()] = dc
	}
	return v, nil
}
