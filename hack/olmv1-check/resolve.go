package main

import (
	"context"
	"fmt"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/operator-framework/operator-registry/alpha/declcfg"

	ocv1 "github.com/operator-framework/operator-controller/api/v1"
	"github.com/operator-framework/operator-controller/internal/operator-controller/bundleutil"
	"github.com/operator-framework/operator-controller/internal/operator-controller/resolve"
)

// query is one ClusterExtension's catalog source, and the bundle it has installed (if any).
type query struct {
	label     string
	filter    ocv1.CatalogFilter
	installed *ocv1.BundleMetadata
}

// queries are, for each package upstream serves: no constraint, each channel, and an upgrade
// from each bundle (CatalogProvided: the channels' replaces/skips/skipRange edges).
func queries(up *view) []query {
	var qs []query
	for _, pkg := range up.names() {
		dc := up.packages[pkg]
		qs = append(qs, query{label: pkg, filter: ocv1.CatalogFilter{PackageName: pkg}})
		for _, c := range dc.Channels {
			qs = append(qs, query{
				label:  fmt.Sprintf("%s channel %s", pkg, c.Name),
				filter: ocv1.CatalogFilter{PackageName: pkg, Channels: []string{c.Name}},
			})
		}
		for _, b := range dc.Bundles {
			v, err := bundleutil.GetVersion(b)
			if err != nil {
				continue // operator-controller could not have installed it either
			}
			installed := bundleutil.MetadataFor(b.Name, *v)
			qs = append(qs, query{
				label:     fmt.Sprintf("%s upgrade from %s", pkg, b.Name),
				filter:    ocv1.CatalogFilter{PackageName: pkg},
				installed: &installed,
			})
		}
	}
	return qs
}

// compareResolutions runs operator-controller's resolver for every query on both views.
func (s *summary) compareResolutions(ctx context.Context, up, ours *view) {
	for _, q := range queries(up) {
		a, found := resolveOn(ctx, up, q)
		b, _ := resolveOn(ctx, ours, q)
		s.Resolutions++
		if found {
			s.ResolvedBundles++
		}
		if a != b {
			s.differ("resolution %s: upstream catalogd %s; catalogd-ts %s", q.label, a, b)
		}
	}
}

// resolveOn resolves q with operator-controller's resolver over v's catalog alone, as its
// ClusterExtension reconciler does (CatalogWalker, NoDependencyValidation); the answer is the
// bundle, its version and deprecation, or the error.
func resolveOn(ctx context.Context, v *view, q query) (string, bool) {
	r := &resolve.CatalogResolver{
		WalkCatalogsFunc: resolve.CatalogWalker(
			func(context.Context, ...client.ListOption) ([]ocv1.ClusterCatalog, error) {
				return []ocv1.ClusterCatalog{*v.catalog.DeepCopy()}, nil
			},
			func(_ context.Context, _ *ocv1.ClusterCatalog, pkg string) (*declcfg.DeclarativeConfig, error) {
				return fresh(v.packages[pkg]), nil
			},
		),
		Validations: []resolve.ValidationFunc{resolve.NoDependencyValidation},
	}
	filter := q.filter
	ext := &ocv1.ClusterExtension{Spec: ocv1.ClusterExtensionSpec{
		Source: ocv1.SourceConfig{SourceType: "Catalog", Catalog: &filter},
	}}
	b, version, deprecation, err := r.Resolve(ctx, ext, q.installed)
	if err != nil {
		return "error: " + err.Error(), false
	}
	return fmt.Sprintf("%s %s deprecation %s", b.Name, version, normalized(deprecation)), true
}

// fresh is what GetPackage returns for the package each time it is called: the resolver
// filters and sorts the slices it gets in place, so each resolution gets its own.
func fresh(dc *declcfg.DeclarativeConfig) *declcfg.DeclarativeConfig {
	if dc == nil {
		return &declcfg.DeclarativeConfig{}
	}
	c := *dc
	c.Packages = slices.Clone(dc.Packages)
	c.Channels = slices.Clone(dc.Channels)
	c.Bundles = slices.Clone(dc.Bundles)
	c.Deprecations = slices.Clone(dc.Deprecations)
	c.Others = slices.Clone(dc.Others)
	return &c
}
