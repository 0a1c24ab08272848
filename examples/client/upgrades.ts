// Example program for the client library (docs/client.md): the upgrades of an installed
// version in a package's default channel, as `kubectl catalog upgrades` shows them, read with
// one consistent, label-selected list.
//
//   npx tsx examples/client/upgrades.ts CATALOG PACKAGE VERSION
//
// In a program of your own, import from 'catalogd-ts/client' instead of the relative path.
import {
  CatalogClient,
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  SCHEMA_PACKAGE,
  isBundleBlob,
  isChannelBlob,
  isDeprecationsBlob,
  isPackageBlob,
  resolveInstalled,
  resolverBlob,
  upgradesFrom,
  versionMap,
} from '../../src/client/index.js';

const [catalog, pkg, version] = process.argv.slice(2);
if (!catalog || !pkg || !version) {
  console.error('usage: npx tsx examples/client/upgrades.ts CATALOG PACKAGE VERSION');
  process.exit(2);
}

const client = new CatalogClient(); // $KUBECONFIG, ~/.kube/config, else in-cluster
try {
  // The package, its channels, bundles and deprecations: one revision of the catalog.
  const { items } = await client.consistentList({
    catalog,
    packageOrName: pkg,
    schema: [SCHEMA_PACKAGE, SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS],
  });
  // What resolvers read: a lean catalog's objects as they are (no fetch); only blobs omitted
  // whole for size are fetched, a few at a time. (blobOf/blobsOf: the whole blobs.)
  const blobs = (await client.resolverContents(items)).map(resolverBlob);
  const p = blobs.find(isPackageBlob);
  const channel = blobs.filter(isChannelBlob).find((c) => c.name === p?.defaultChannel);
  if (!p || !channel) throw new Error(`no package ${pkg} with a default channel in ${catalog}`);
  const bundles = blobs.filter(isBundleBlob);
  const installed = resolveInstalled(bundles, version, channel);
  const u = upgradesFrom(
    channel,
    installed.name,
    versionMap(bundles),
    blobs.find(isDeprecationsBlob),
  );
  for (const i of u.items)
    console.log(
      `${i.name} ${i.version ?? ''} via ${i.via.join('+')}${i.deprecated ? ' (deprecated)' : ''}`,
    );
  console.log(`path: ${u.path.map((s) => s.name).join(' -> ') || 'none'}`);
} finally {
  client.close();
}
