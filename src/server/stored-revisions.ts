// The content store's revisions on disk, under <root>/<catalog>/ (the layout is in
// revision-format.ts): a revision written under a temporary name and renamed into place when
// complete, looked up by contentHash or revision key, listed after a restart (unfinished builds
// deleted), and the ones nothing uses any more deleted. Catalog names are checked by the store.
import { randomBytes } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { isRevisionKey } from '../api/v1/revision-url.js';
import { FbcError, isDNS1123Subdomain } from '../fbc/index.js';
import { findInChain } from '../util/errors.js';
import { contentHashHex } from './http-cache.js';
import { writeRevisionFiles } from './revision-build.js';
import type { ContentBlob } from './revision-build.js';
import { INDEX_FILE, REVISION_DIR, TEMP_REVISION_DIR, revisionDir } from './revision-format.js';
import type { RevisionIndexFile } from './revision-format.js';

export interface StoredRevision {
  catalog: string;
  contentHash: string;
}

async function exists(p: string): Promise<boolean> {
  try {
    await access(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes the revision the blobs hash to under `root`: `revision` (a contentHash or a revision
 * key) when given, else whatever they hash to (a catalog's new content: its parse errors are
 * thrown as they are). `key` names the temporary directory. A revision already complete on disk
 * (a concurrent or earlier build) is kept and the new files dropped.
 */
export async function writeRevision(
  root: string,
  catalog: string,
  key: string,
  revision: string | undefined,
  blobs: AsyncIterable<ContentBlob>,
): Promise<StoredRevision> {
  const tmp = `${path.join(root, catalog, key)}.${randomBytes(6).toString('hex')}.tmp`;
  let contentHash = revision;
  try {
    await mkdir(tmp, { recursive: true });
    ({ contentHash } = await writeRevisionFiles(tmp, revision, blobs));
    const final = revisionDir(root, catalog, contentHashHex(contentHash));
    try {
      await rename(tmp, final);
    } catch (err) {
      // A concurrent or earlier build of the same content finished first; its files are the
      // same.
      const code = (err as NodeJS.ErrnoException).code;
      if (
        (code !== 'ENOTEMPTY' && code !== 'EEXIST') ||
        (await findStoredRevision(root, catalog, contentHash)) === undefined
      )
        throw err;
      await rm(tmp, { recursive: true, force: true });
    }
  } catch (cause) {
    await rm(tmp, { recursive: true, force: true });
    if (revision === undefined && findInChain(cause, FbcError)) throw cause;
    throw new Error(
      `cannot store revision ${contentHash ?? '(new)'} of catalog ${JSON.stringify(catalog)}`,
      { cause },
    );
  }
  return { catalog, contentHash };
}

/** The contentHash of the complete revision on disk that `revision` names, if any. */
export async function findStoredRevision(
  root: string,
  catalog: string,
  revision: string,
): Promise<string | undefined> {
  if (!isRevisionKey(revision)) {
    const hex = contentHashHex(revision);
    const found = await exists(path.join(revisionDir(root, catalog, hex), INDEX_FILE));
    return found ? revision : undefined;
  }
  let entries: string[];
  try {
    entries = await readdir(path.join(root, catalog));
  } catch {
    return undefined;
  }
  for (const e of entries.sort())
    if (REVISION_DIR.test(e) && e.startsWith(revision))
      if (await exists(path.join(root, catalog, e, INDEX_FILE))) return `sha256:${e}`;
  return undefined;
}

/** Deletes unfinished builds under `root` and lists the complete revisions there. */
export async function listStoredRevisions(root: string): Promise<StoredRevision[]> {
  await mkdir(root, { recursive: true });
  const found: StoredRevision[] = [];
  for (const catalog of (await readdir(root)).sort()) {
    if (!isDNS1123Subdomain(catalog)) continue;
    let entries: string[];
    try {
      entries = (await readdir(path.join(root, catalog))).sort();
    } catch {
      continue;
    }
    for (const e of entries) {
      const dir = path.join(root, catalog, e);
      if (TEMP_REVISION_DIR.test(e)) await rm(dir, { recursive: true, force: true });
      else if (REVISION_DIR.test(e)) {
        try {
          const index = JSON.parse(
            await readFile(path.join(dir, INDEX_FILE), 'utf8'),
          ) as RevisionIndexFile;
          if (index.contentHash === `sha256:${e}`)
            found.push({ catalog, contentHash: index.contentHash });
        } catch {
          // Not a complete revision: never renamed into place by this store; left alone.
        }
      }
    }
  }
  return found;
}

/** Deletes the catalog's complete revisions but those whose hex is in `keep`. */
export async function deleteRevisionsBut(
  root: string,
  catalog: string,
  keep: ReadonlySet<string>,
): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(path.join(root, catalog));
  } catch {
    return;
  }
  for (const e of entries)
    if (REVISION_DIR.test(e) && !keep.has(e))
      await rm(path.join(root, catalog, e), { recursive: true, force: true, maxRetries: 3 });
}
