// `catalogd render <dir>`: print the CatalogMetadata objects a catalog directory produces, exactly
// as the controller would write them (without owner references), for GitOps diffs and review.
// The objects are built and validated by the sync engine's own scan (src/sync), with the same
// --max-object-bytes and content URL, so an oversized blob renders with contentOmitted as the
// controller stores it, and --content-profile lean renders the lean objects (none: no objects).
// Two passes: the first validates the whole catalog, so bad input prints nothing but the error.
import { commandArgs } from './command-args.js';
import path from 'node:path';
import process, { stderr, stdout } from 'node:process';
import { parseArgs } from 'node:util';
import { DEFAULT_SCALAR_STYLE_RULES, SCALAR_STYLE, dump } from 'js-yaml';
import type { ScalarStyleRule } from 'js-yaml';
import type { CatalogMetadata } from '../api/v1/index.js';
import {
  CONTENT_PROFILE_NONE,
  OBJECT_VIEWS,
  SERVED_API_VERSION,
  contentProfileChoices,
  isContentProfile,
  isObjectView,
} from '../api/v1/index.js';
import {
  DEFAULT_MAX_OBJECT_BYTES,
  FbcError,
  contentCanonical,
  isDNS1123Subdomain,
} from '../fbc/index.js';
import type { Blob } from '../fbc/index.js';
import { scanCatalog } from '../sync/index.js';
import { escapeJson, terminalLine } from '../util/terminal-text.js';
import { catalogDirProblem } from './catalog-dir.js';
import { catalogCost, formatCostJson, formatCostText } from './render-cost.js';
import type { Output, RenderOptions } from './render-target.js';
import { DEFAULT_SERVER_URL, renderTarget } from './render-target.js';

const USAGE = `usage: catalogd render <dir> [-o yaml|json] [--catalog NAME] [--server-url URL]
                      [--max-object-bytes N] [--content-profile full|lean|none]
                      [--object-view crd|served] [--cost]

Prints the CatalogMetadata objects that the FBC directory <dir> produces, as the controller
writes them (without owner references):
  -o yaml   a YAML stream, one document per object (default)
  -o json   a JSON List
  --catalog NAME          the ClusterCatalog name (default: the directory's base name)
  --server-url URL        the controller's --server-url: objects whose content is omitted point
                          there (default ${DEFAULT_SERVER_URL}, the controller's default)
  --max-object-bytes N    the controller's --max-object-bytes: larger objects carry
                          spec.contentOmitted instead of spec.content (default ${DEFAULT_MAX_OBJECT_BYTES})
  --content-profile P     the catalog's content profile: full (default); lean, which leaves
                          display-only parts out of spec.content and lists them in
                          spec.contentOmitted.parts, as the controller does for that profile;
                          none, which has no objects (the catalog is checked, nothing is
                          printed but an empty List with -o json, and stderr says why)
  --object-view V         crd (default): the objects as the CRD mode writes them
                          (olm.operatorframework.io/v1); served: as the served mode answers
                          them (content.olm.operatorframework.io/v1, docs/served.md): the
                          same objects but for apiVersion, for \`kubectl diff\` in that mode
  --cost                  print what syncing the catalog costs the control plane instead:
                          objects, their bytes, and etcd bytes and kube-apiserver heap
                          predicted for each content profile (-o json: as JSON)
Objects are in catalog walk order (files in lexical order, blobs in file order).
`;

async function write(s: string): Promise<void> {
  if (!stdout.write(s)) await new Promise<void>((resolve) => stdout.once('drain', () => resolve()));
}

// js-yaml quotes every string that a YAML 1.1 or 1.2 reader would take for another type, except
// numerals that overflow a float64 (e.g. 1e400): quote those too, so no reader sees a number.
const NUMERAL = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const quoteNumerals: ScalarStyleRule = (l) => {
  if (l.style === SCALAR_STYLE.PLAIN && l.node.tag.endsWith(':str') && NUMERAL.test(l.node.value)) {
    l.style = SCALAR_STYLE.SINGLE_QUOTED;
  }
};
const DUMP_OPTIONS = {
  lineWidth: -1,
  noRefs: true,
  scalarStyleRules: [...Object.values(DEFAULT_SCALAR_STYLE_RULES), quoteNumerals],
};

/** Deep copy with object keys in sorted order; only used on the small object shell, never content. */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sorted((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** Nesting beyond which content is printed as compact JSON (recursive printers overflow the stack). */
const PRETTY_MAX_DEPTH = 200;
/** Stands for spec.content in the shell; `%` cannot start a label value or a DNS name. */
const PLACEHOLDER = '%content%';

function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d >= max) return true;
    for (const c of Array.isArray(v) ? v : Object.values(v))
      if (typeof c === 'object' && c !== null) stack.push([c, d + 1]);
  }
  return false;
}

/** JSON that is also a valid YAML flow node: escape the characters YAML 1.1 treats as line breaks. */
function yamlSafeJson(json: string): string {
  return json.replace(
    /[\u0085\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function renderObject(obj: CatalogMetadata, blob: Blob, output: Output): string {
  if (obj.spec.content === undefined) {
    // Content omitted: a small object, printed as it is.
    if (output === 'yaml') return dump(obj, { ...DUMP_OPTIONS, sortKeys: true });
    return JSON.stringify(sorted(obj), null, 2);
  }
  // A lean object's content is part of the blob: its own canonical form, not the blob's.
  const canonical = contentCanonical(obj, blob.canonical);
  const deep = deeperThan(obj.spec.content, PRETTY_MAX_DEPTH);
  const shell = sorted({ ...obj, spec: { ...obj.spec, content: PLACEHOLDER } });
  if (output === 'yaml') {
    if (!deep) return dump(obj, { ...DUMP_OPTIONS, sortKeys: true });
    const text = dump(shell, DUMP_OPTIONS);
    return text.replace(
      /content: '%content%'/,
      () => `content: ${yamlSafeJson(escapeJson(canonical))}`,
    );
  }
  const content = deep
    ? canonical
    : JSON.stringify(JSON.parse(canonical), null, 2).replace(/\n/g, '\n    ');
  return JSON.stringify(shell, null, 2).replace(
    `"content": "${PLACEHOLDER}"`,
    () => `"content": ${content}`,
  );
}

export async function render(
  dir: string,
  opts: RenderOptions,
  emit: (s: string) => Promise<void>,
): Promise<number> {
  const { output } = opts;
  const target = renderTarget(dir, opts);
  // Pass 1: build and validate everything as the controller does; nothing is printed for an
  // invalid catalog.
  const { blobs } = await scanCatalog(target);
  // Pass 2: print.
  if (output === 'json') await emit('{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": [');
  let i = 0;
  await scanCatalog(target, undefined, async (obj, blob) => {
    delete obj.metadata.ownerReferences;
    // The served view answers the same objects under its own group (SPEC §2.3).
    if (opts.objectView === 'served')
      (obj as { apiVersion: string }).apiVersion = SERVED_API_VERSION;
    const text = renderObject(obj, blob, output);
    if (output === 'yaml') await emit(`${i === 0 ? '' : '---\n'}${text}`);
    // DEL, C1 and bidi controls as JSON escapes (JSON.stringify leaves them raw): the same JSON.
    else await emit(`${i === 0 ? '' : ','}\n    ${escapeJson(text).replace(/\n/g, '\n    ')}`);
    i++;
  });
  if (output === 'json') await emit(i === 0 ? ']\n}\n' : '\n  ]\n}\n');
  return blobs;
}

export async function main(args: string[]): Promise<number> {
  const parsed = commandArgs('render', USAGE, () =>
    parseArgs({
      args,
      allowPositionals: true,
      options: {
        output: { type: 'string', short: 'o', default: 'yaml' },
        catalog: { type: 'string' },
        'server-url': { type: 'string' },
        'max-object-bytes': { type: 'string' },
        'content-profile': { type: 'string' },
        'object-view': { type: 'string' },
        cost: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (typeof parsed === 'number') return parsed;
  const [dir, ...extra] = parsed.positionals;
  const output = parsed.values.output;
  if (dir === undefined || extra.length > 0 || (output !== 'yaml' && output !== 'json')) {
    stderr.write(USAGE);
    return 2;
  }
  const catalog = parsed.values.catalog ?? path.basename(path.resolve(dir));
  if (!isDNS1123Subdomain(catalog)) {
    stderr.write(
      `catalogd render: catalog name ${JSON.stringify(catalog)} is not a valid DNS-1123 subdomain; pass --catalog NAME\n`,
    );
    return 2;
  }
  const serverUrl = parsed.values['server-url'];
  if (serverUrl !== undefined && !/^https?:\/\/[^/]/.test(serverUrl)) {
    stderr.write(
      `catalogd render: --server-url ${JSON.stringify(serverUrl)} is not an http(s) URL\n`,
    );
    return 2;
  }
  const maxBytesFlag = parsed.values['max-object-bytes'];
  const maxObjectBytes = maxBytesFlag === undefined ? undefined : Number(maxBytesFlag);
  if (
    maxObjectBytes !== undefined &&
    !(Number.isSafeInteger(maxObjectBytes) && maxObjectBytes > 0)
  ) {
    stderr.write(
      `catalogd render: --max-object-bytes ${JSON.stringify(maxBytesFlag)} is not a positive integer\n`,
    );
    return 2;
  }
  const contentProfile = parsed.values['content-profile'];
  if (contentProfile !== undefined && !isContentProfile(contentProfile)) {
    stderr.write(
      `catalogd render: --content-profile ${JSON.stringify(contentProfile)} is not ${contentProfileChoices()}\n`,
    );
    return 2;
  }
  const objectView = parsed.values['object-view'];
  if (objectView !== undefined && !isObjectView(objectView)) {
    stderr.write(
      `catalogd render: --object-view ${JSON.stringify(objectView)} is not ${OBJECT_VIEWS.join(' or ')}\n`,
    );
    return 2;
  }
  // A closed pipe (`render dir | head`) ends the output quietly, like other CLI tools.
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  const opts: RenderOptions = {
    catalog,
    output,
    ...(serverUrl !== undefined && { serverUrl }),
    ...(maxObjectBytes !== undefined && { maxObjectBytes }),
    ...(contentProfile !== undefined && { contentProfile }),
    ...(objectView !== undefined && { objectView }),
  };
  try {
    const problem = await catalogDirProblem(dir);
    if (problem !== undefined) {
      stderr.write(`catalogd render: ${problem}\n`);
      return 1;
    }
    if (parsed.values.cost) {
      const report = await catalogCost(dir, opts);
      await write(output === 'json' ? formatCostJson(report) : formatCostText(report));
    } else {
      await render(dir, opts, write);
      if (contentProfile === CONTENT_PROFILE_NONE) {
        stderr.write(
          `catalogd render: content profile none: the controller writes no CatalogMetadata objects for catalog ${catalog} (its content is served over HTTP only)\n`,
        );
      }
    }
    return 0;
  } catch (err) {
    const msg = err instanceof FbcError ? err.message : `${(err as Error).message}`;
    // The message quotes catalog content (a file name, a value): one line, controls made visible.
    stderr.write(`catalogd render: ${terminalLine(msg)}\n`);
    return 1;
  }
}
