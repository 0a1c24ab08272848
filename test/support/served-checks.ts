// The served view's checks through the real aggregation layer (issue 55; docs/served.md), shared
// by the suite whose controller runs on this host behind the APIService (served-view.test.ts) and
// the one that deploys it on the node as users do (served-node.test.ts: `make deploy VIEW=served`,
// 2 replicas): discovery and OpenAPI (kubectl explain), the printer columns and `-o wide`, field
// selectors, pagination (limit/continue, --chunk-size), 403 for a user without `list` and the
// objects once RBAC grants it, 401 for a direct connection without the front proxy's certificate,
// and `kubectl diff` of `render --object-view served` output exiting 0. What differs between the
// two is a parameter: the catalog and its rendered objects, the URL and CA of a direct connection,
// the RBAC user's name.
import { expect } from 'chai';
import { SERVED_GROUP } from '../../src/api/v1/index.js';
import { kubectl, kubectlOk } from './kubectl.js';
import { pollUntil } from './poll.js';
import { httpsGet, listServed } from './served-e2e.js';
import type { ServedList } from './served-e2e.js';

export const SERVED_RESOURCE = `catalogmetadata.${SERVED_GROUP}`;
export const SERVED_COLLECTION = `/apis/${SERVED_GROUP}/v1/catalogmetadata`;
const RESOURCE = SERVED_RESOURCE;

/** A served CatalogMetadata object, as the API answers it and render prints it. */
export interface ServedItem {
  apiVersion: string;
  metadata: {
    name: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: { catalog: { name: string }; package?: string; schema: string; name?: string };
}

/** A synced catalog served through the APIService, and what render prints for its content. */
export interface ServedTarget {
  catalog: string;
  /** `catalogd render --object-view served` of the catalog's content (with its --catalog). */
  rendered: readonly ServedItem[];
  /** The file that output was written to (`kubectl diff -f`). */
  renderedFile: string;
}

export const servedNames = (items: readonly ServedItem[]) =>
  items.map((i) => i.metadata.name).sort();

/** The served collection of `catalog` (labelSelector catalog=…) through the apiserver. */
export const listCatalog = (catalog: string, query: Record<string, string> = {}) =>
  listServed<ServedItem>(SERVED_COLLECTION, { labelSelector: `catalog=${catalog}`, ...query });

/** `kubectl api-resources` lists the resource, and `kubectl explain` reads its OpenAPI. */
async function expectDiscoveredAndExplained(): Promise<void> {
  const resources = await kubectlOk([
    ...['api-resources', '--api-group', SERVED_GROUP, '-o', 'name'],
  ]);
  expect(resources.split('\n')).to.include(RESOURCE);
  // The aggregator merges an APIService's OpenAPI v3 into the cluster's when it has fetched it.
  await pollUntil(
    async () => {
      const index = JSON.parse(await kubectlOk(['get', '--raw', '/openapi/v3'])) as {
        paths: Record<string, unknown>;
      };
      return index.paths[`apis/${SERVED_GROUP}/v1`];
    },
    { timeoutMs: 60_000, what: 'the served group in the cluster OpenAPI v3 index' },
  );
  const explained = await kubectlOk(['explain', `${RESOURCE}.spec`]);
  expect(explained).to.match(/catalog/);
  expect(explained).to.match(/schema/);
}

/** The CRD's printer columns in `kubectl get`, more with `-o wide`, a row per rendered object. */
async function expectPrinterColumns(t: ServedTarget): Promise<void> {
  const table = await kubectlOk(['get', RESOURCE, '-l', `catalog=${t.catalog}`]);
  expect(table.split('\n')[0]).to.match(/^NAME\s+CATALOG\s+SCHEMA\s+PACKAGE\s+NAME\s+AGE$/);
  const wide = await kubectlOk(['get', RESOURCE, '-l', `catalog=${t.catalog}`, '-o', 'wide']);
  const header = wide.split('\n')[0] ?? '';
  expect(header).to.match(/^NAME\s+CATALOG\s+SCHEMA\s+PACKAGE\s+NAME\s+AGE\s+\S/);
  expect(header.trim().split(/\s+/).length).to.be.greaterThan(6);
  expect(wide.trim().split('\n')).to.have.length(t.rendered.length + 1);
}

/** --field-selector on spec.catalog.name + spec.package and on metadata.name; others refused. */
async function expectFieldSelectors(t: ServedTarget): Promise<void> {
  const pkg = 'utility-operator';
  const got = JSON.parse(
    await kubectlOk([
      ...[
        'get',
        RESOURCE,
        '--field-selector',
        `spec.catalog.name=${t.catalog},spec.package=${pkg}`,
      ],
      ...['-o', 'json'],
    ]),
  ) as ServedList<ServedItem>;
  expect(servedNames(got.items)).to.deep.equal(
    servedNames(t.rendered.filter((o) => o.spec.package === pkg)),
  );
  const one = t.rendered[0]!.metadata.name;
  const byName = JSON.parse(
    await kubectlOk(['get', RESOURCE, '--field-selector', `metadata.name=${one}`, '-o', 'json']),
  ) as ServedList<ServedItem>;
  expect(servedNames(byName.items)).to.deep.equal([one]);
  const bad = await kubectl(['get', RESOURCE, '--field-selector', 'spec.nope=1']);
  expect(bad.code).to.not.equal(0);
  expect(bad.stderr).to.match(/field label not supported|not supported/i);
}

/** limit/continue pages of one resourceVersion covering the rendered objects; --chunk-size. */
async function expectPages(t: ServedTarget): Promise<void> {
  const seen: string[] = [];
  let page = await listCatalog(t.catalog, { limit: '2' });
  const rv = page.metadata.resourceVersion;
  seen.push(...page.items.map((i) => i.metadata.name));
  let pages = 1;
  while (page.metadata.continue) {
    expect(page.items.length).to.be.at.most(2);
    page = await listCatalog(t.catalog, { limit: '2', continue: page.metadata.continue });
    expect(page.metadata.resourceVersion).to.equal(rv);
    seen.push(...page.items.map((i) => i.metadata.name));
    pages++;
  }
  expect(pages).to.be.greaterThan(1);
  expect(seen.sort()).to.deep.equal(servedNames(t.rendered));
  const chunked = await kubectlOk([
    'get',
    RESOURCE,
    '-l',
    `catalog=${t.catalog}`,
    '--chunk-size=2',
  ]);
  expect(chunked.trim().split('\n')).to.have.length(t.rendered.length + 1);
}

/**
 * `user` (a name unique to the run) is refused a list (403 from the apiserver), then, once a
 * ClusterRole and ClusterRoleBinding named `user` grant get/list/watch, gets the catalog's
 * objects. deleteReader removes them.
 */
async function expectListNeedsRbac(t: ServedTarget, user: string): Promise<void> {
  const denied = await kubectl(['get', RESOURCE, '--as', user]);
  expect(denied.code).to.not.equal(0);
  expect(denied.stderr).to.include(
    `User "${user}" cannot list resource "catalogmetadata" in API group "${SERVED_GROUP}"`,
  );
  await kubectlOk([
    'create',
    'clusterrole',
    user,
    '--verb=get,list,watch',
    `--resource=${RESOURCE}`,
  ]);
  await kubectlOk([
    ...['create', 'clusterrolebinding', user, `--clusterrole=${user}`, `--user=${user}`],
  ]);
  // The front caches a denial for a few seconds: poll.
  const allowed = await pollUntil(
    async () => {
      const r = await kubectl([
        ...['get', RESOURCE, '-l', `catalog=${t.catalog}`, '--as', user, '-o', 'name'],
      ]);
      return r.code === 0 ? r.stdout : undefined;
    },
    { timeoutMs: 60_000, what: `${user} to be allowed to list` },
  );
  expect(allowed.trim().split('\n')).to.have.length(t.rendered.length);
}

/** Deletes what expectListNeedsRbac created for `user`. */
export async function deleteReader(user: string): Promise<void> {
  await kubectl(['delete', 'clusterrolebinding,clusterrole', user, '--ignore-not-found']);
}

/**
 * A GET of the collection straight to the API at `directUrl` (no apiserver, so no front-proxy
 * client certificate), trusting `ca` (for `servername`, when the URL's host is not in the
 * certificate), answers 401.
 */
export async function expectDirectRefused(
  directUrl: string,
  ca: string,
  servername?: string,
): Promise<void> {
  const answer = await httpsGet(`${directUrl}${SERVED_COLLECTION}`, ca, {}, servername);
  expect(answer.status, directUrl).to.equal(401);
}

/** `kubectl diff` (client-side, then --server-side) of render's output: exit 0, no output. */
async function expectDiffClean(t: ServedTarget): Promise<void> {
  for (const args of [[], ['--server-side']]) {
    const diff = await kubectl(['diff', ...args, '-f', t.renderedFile]);
    expect([diff.code, diff.stdout, diff.stderr], args.join(' ')).to.deep.equal([0, '', '']);
  }
}

/**
 * Declares the shared checks as the suite's tests (`suffix` ends each name: both suites run
 * them, one on this host, one on the node), with the suite's target, RBAC user, and direct
 * connection check (`direct`, named `directName`).
 */
export function itChecksTheServedView(o: {
  suffix: string;
  target: () => ServedTarget;
  reader: string;
  directName: string;
  direct: () => Promise<void>;
}): void {
  const { suffix, target } = o;
  it(`is discovered (api-resources) and explained from its OpenAPI${suffix}`, async () => {
    await expectDiscoveredAndExplained();
  });
  it(`prints the CRD printer columns, -o wide too${suffix}`, async () => {
    await expectPrinterColumns(target());
  });
  it(`selects by field (spec.package, metadata.name)${suffix}`, async () => {
    await expectFieldSelectors(target());
  });
  it(`pages with limit and continue, one revision across the pages${suffix}`, async () => {
    await expectPages(target());
  });
  it(`refuses a user without list (403 through the apiserver) and answers one with it${suffix}`, async () => {
    await expectListNeedsRbac(target(), o.reader);
  });
  it(`${o.directName}${suffix}`, o.direct);
  it(`\`kubectl diff\` of \`render --object-view served\` output exits 0, client- and server-side${suffix}`, async () => {
    await expectDiffClean(target());
  });
}
