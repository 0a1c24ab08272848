// Sends the same GraphQL requests to upstream catalogd v1.11 (GraphQLCatalogQueries on, built
// by hack/upstream-catalogd/build.sh) and to catalogd-ts over the same catalogs, and prints per
// request whether the answers are equal byte for byte after key sorting, and if not, how they
// differ (hack/graphql-compare/compare.ts). docs/graphql.md "Compared with upstream v1.11".
//
//   make cluster-up upstream-catalogd
//   npx tsx hack/graphql-compare.ts [--fbc NAME=DIR ...] [--out FILE.md] [--save DIR]
//
// Default catalogs: excerpt=test/fixtures/graphql-compare/v4.20-excerpt and, when present,
// community-v4-20=/tmp/real/v4.20. Needs the local cluster (.local/env): upstream syncs from its
// registry; it replaces the ClusterCatalog CRD with upstream's while it runs (deleting every
// ClusterCatalog) and puts the project's back at the end. catalogd-ts's side runs in this process.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  SHAPE_QUERY,
  UPSTREAM_HOWTO_QUERIES,
  rootLists,
  upstreamSampleQueries,
} from '../test/support/upstream-graphql-queries.js';
import { repoRoot } from '../test/support/cluster.js';
import type { Answer, Comparison } from './graphql-compare/compare.js';
import { compareAnswers } from './graphql-compare/compare.js';
import type { Shape } from '../test/support/upstream-graphql-queries.js';
import type { CompareRequest } from './graphql-compare/queries.js';
import { fixedRequests, scanPage } from './graphql-compare/queries.js';
import type { CatalogDir, Side } from './graphql-compare/sides.js';
import { startOurs, startUpstreamSide } from './graphql-compare/sides.js';

const log = (s: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${s}\n`);

interface Row extends Comparison {
  catalog: string;
  id: string;
}

function catalogsFromArgs(fbc: string[] | undefined): CatalogDir[] {
  if (fbc?.length)
    return fbc.map((a) => {
      const eq = a.indexOf('=');
      if (eq <= 0) throw new Error(`--fbc ${a}: expected NAME=DIR`);
      return { name: a.slice(0, eq), dir: path.resolve(a.slice(eq + 1)) };
    });
  const out = [
    { name: 'excerpt', dir: path.join(repoRoot, 'test/fixtures/graphql-compare/v4.20-excerpt') },
  ];
  if (existsSync('/tmp/real/v4.20')) out.push({ name: 'community-v4-20', dir: '/tmp/real/v4.20' });
  return out;
}

async function ask(side: Side, name: string, r: CompareRequest): Promise<Answer> {
  const url = side.url(name);
  if (r.method === 'GET')
    return side.send(`${url}?query=${encodeURIComponent(r.query)}`, 'GET', undefined);
  return side.send(url, 'POST', r.body ?? JSON.stringify({ query: r.query }));
}

/** Both answers to `r`, saved under `save` when given. */
async function both(
  sides: { ours: Side; upstream: Side },
  name: string,
  r: CompareRequest,
  save: string | undefined,
): Promise<{ ours: Answer; upstream: Answer }> {
  const [ours, upstream] = [await ask(sides.ours, name, r), await ask(sides.upstream, name, r)];
  if (save) {
    const file = path.join(save, name, r.id.replace(/[^A-Za-z0-9@=._-]/g, '_'));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(`${file}.ours.json`, ours.body);
    await writeFile(`${file}.upstream.json`, upstream.body);
  }
  return { ours, upstream };
}

/** Items of a root list page (none when the answer is not one). */
function items(a: Answer, field: string): unknown[] {
  try {
    const list = (JSON.parse(a.body) as { data?: Record<string, unknown> }).data?.[field];
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Every page of `field` (upstream's introspected fields, all selected), then the whole list. */
async function scan(
  sides: { ours: Side; upstream: Side },
  c: CatalogDir,
  shape: Shape,
  root: { field: string; type: string },
  save: string | undefined,
): Promise<Row> {
  const verdicts = new Map<string, number>();
  const whole = { ours: [] as unknown[], upstream: [] as unknown[] };
  let firstDetail = '';
  for (let offset = 0; ; offset += 100) {
    const r = scanPage(shape, root, offset);
    const a = await both(sides, c.name, r, save);
    const cmp = compareAnswers(a.ours, a.upstream);
    verdicts.set(cmp.verdict, (verdicts.get(cmp.verdict) ?? 0) + 1);
    if (!firstDetail && cmp.detail) firstDetail = `@${offset} ${cmp.detail}`;
    const [o, u] = [items(a.ours, root.field), items(a.upstream, root.field)];
    whole.ours.push(...o);
    whole.upstream.push(...u);
    if (u.length < 100 && o.length < 100) break;
  }
  const pages = [...verdicts].map(([v, n]) => `${n} ${v}`).join(', ');
  const asList = (l: unknown[]) => ({
    status: 200,
    contentType: 'application/json',
    body: JSON.stringify({ data: { [root.field]: l } }),
  });
  const all = compareAnswers(asList(whole.ours), asList(whole.upstream));
  const verdict = verdicts.size === 1 && verdicts.has('equal') ? 'equal' : all.verdict;
  return {
    catalog: c.name,
    id: `all:${root.field}`,
    verdict,
    detail: `${whole.upstream.length} objects; pages: ${pages}; whole list: ${all.verdict}${firstDetail ? `; first: ${firstDetail}` : ''}`,
  };
}

async function compareCatalog(
  sides: { ours: Side; upstream: Side },
  c: CatalogDir,
  save: string | undefined,
): Promise<Row[]> {
  const rows: Row[] = [];
  const one = async (r: CompareRequest) => {
    const a = await both(sides, c.name, r, save);
    rows.push({ catalog: c.name, id: r.id, ...compareAnswers(a.ours, a.upstream) });
    return a;
  };
  for (const r of UPSTREAM_HOWTO_QUERIES) await one(r);
  for (const r of upstreamSampleQueries()) await one(r);
  for (const r of fixedRequests()) await one(r);
  // Upstream's introspection, compared, then the shape the scans select everything of.
  const shapeAnswer = (await one({ id: 'intro:shape', query: SHAPE_QUERY })).upstream;
  const shape = (JSON.parse(shapeAnswer.body) as { data: Shape }).data;
  for (const root of rootLists(shape)) rows.push(await scan(sides, c, shape, root, save));
  return rows;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function table(rows: Row[]): string {
  const lines = ['| catalog | request | verdict | how they differ |', '| --- | --- | --- | --- |'];
  for (const r of rows)
    lines.push(`| ${r.catalog} | ${cell(r.id)} | ${r.verdict} | ${cell(r.detail)} |`);
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.verdict, (counts.get(r.verdict) ?? 0) + 1);
  lines.push('', [...counts].map(([v, n]) => `${n} ${v}`).join(', '));
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      fbc: { type: 'string', multiple: true },
      out: { type: 'string' },
      save: { type: 'string' },
    },
  });
  const catalogs = catalogsFromArgs(values.fbc);
  log(`catalogs: ${catalogs.map((c) => `${c.name}=${c.dir}`).join(', ')}`);
  const ours = await startOurs(catalogs);
  let upstream: Side | undefined;
  try {
    upstream = await startUpstreamSide(catalogs, log);
    const rows: Row[] = [];
    for (const c of catalogs) {
      log(`comparing ${c.name}`);
      rows.push(...(await compareCatalog({ ours, upstream }, c, values.save)));
    }
    const md = table(rows);
    process.stdout.write(md);
    if (values.out) await writeFile(values.out, md);
  } finally {
    await upstream?.close();
    await ours.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  main().catch((err: unknown) => {
    process.stderr.write(`graphql-compare: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
