import { expect } from 'chai';
import path from 'node:path';
import { tempDirEach } from '../../test/support/temp-dir.js';
import { AdmissionRefusals } from './admission-refusals.js';
import type { CatalogMetadataWriter, ObjectWrite, SyncTarget } from './index.js';
import { applyPlan, planCatalogSync, SyncWriteError } from './index.js';
import { KubeApiError } from '../kube/index.js';

const sample = path.resolve(import.meta.dirname, '..', '..', 'examples', 'catalog');
const target: SyncTarget = {
  catalog: { name: 'ops', uid: 'uid-ops' },
  dir: sample,
  maxObjectBytes: 1 << 20,
  contentUrl: () => 'http://content/x',
};

/** The apiserver's answer to a write a ValidatingAdmissionPolicy denies. */
const denied = (name: string) =>
  new KubeApiError(
    422,
    'Invalid',
    `${name} is denied by policy no-x`,
    'create',
    'catalogmetadatas',
  );

/** A writer on an empty cluster whose admission refuses the objects `refuse` names. */
function admissionWriter(refuse: Set<string>) {
  const writes: string[] = [];
  const dryRuns: string[] = [];
  const admit = (w: ObjectWrite) => {
    if (refuse.has(w.name)) throw denied(w.name);
  };
  const writer: CatalogMetadataWriter = {
    async *listExisting() {},
    async create(w) {
      writes.push(`create ${w.name}`);
      admit(w);
    },
    async update(w) {
      writes.push(`update ${w.name}`);
      admit(w);
    },
    async delete(name) {
      writes.push(`delete ${name}`);
    },
    async dryRun(verb, w) {
      dryRuns.push(`${verb} ${w.name}`);
      admit(w);
    },
  };
  return { writer, writes, dryRuns };
}

describe('sync/admission-refusals: a revision admission keeps refusing', () => {
  const spoolDir = tempDirEach('catalogd-refusals-test-');

  /** One attempt: plan, apply with the refusal memory, dispose; the error if it failed. */
  async function attempt(writer: CatalogMetadataWriter, refusals: AdmissionRefusals) {
    const planned = await planCatalogSync(target, writer, spoolDir());
    try {
      await applyPlan(planned, writer, { concurrency: 4, refusals });
      return { hash: planned.scan.contentHash, err: undefined };
    } catch (err) {
      return { hash: planned.scan.contentHash, err: err as Error };
    } finally {
      await planned.dispose();
    }
  }

  it('after a refusal, retries check with dry-run and write nothing while it persists', async () => {
    const planned = await planCatalogSync(target, admissionWriter(new Set()).writer, spoolDir());
    const names = planned.plan.create;
    await planned.dispose();
    const refused = names[Math.floor(names.length / 2)] as string;
    const refuse = new Set([refused]);
    const { writer, writes, dryRuns } = admissionWriter(refuse);
    const refusals = new AdmissionRefusals();

    const first = await attempt(writer, refusals);
    expect(first.err).to.be.instanceOf(SyncWriteError);
    expect(first.err?.message).to.equal(`create CatalogMetadata ${refused}`);
    expect(writes).to.include(`create ${refused}`);
    expect(refusals.get('ops', first.hash)).to.deep.equal({
      contentHash: first.hash,
      verb: 'create',
      object: refused,
    });

    // The reconcile rolls back: a successful apply of the previous revision forgets nothing.
    const rollback = { create: [], update: [], delete: [], unchanged: 0, unchangedOmitted: 0 };
    const previous = { contentHash: 'sha256:previous' };
    await applyPlan({ target, plan: rollback, scan: previous }, writer, {
      concurrency: 1,
      refusals,
    });
    expect(refusals.get('ops', first.hash)?.object).to.equal(refused);

    writes.length = 0;
    for (let i = 0; i < 5; i++) {
      const retry = await attempt(writer, refusals);
      expect(retry.err?.message).to.equal(first.err?.message);
      expect((retry.err?.cause as Error).message).to.equal((first.err?.cause as Error).message);
    }
    expect(writes, 'writes while the refusal persists').to.deep.equal([]);
    expect(dryRuns).to.deep.equal(Array<string>(5).fill(`create ${refused}`));

    // The policy goes: the dry-run passes, then everything is written once.
    refuse.clear();
    dryRuns.length = 0;
    const passed = await attempt(writer, refusals);
    expect(passed.err).to.equal(undefined);
    expect(dryRuns).to.have.length(names.length);
    expect(writes.slice().sort()).to.deep.equal(names.map((n) => `create ${n}`).sort());
    expect(refusals.get('ops', passed.hash)).to.equal(undefined);
  });

  it('a refusal of another object found by the dry-run is remembered in its place', async () => {
    const planned = await planCatalogSync(target, admissionWriter(new Set()).writer, spoolDir());
    const [a, b] = planned.plan.create as [string, string];
    await planned.dispose();
    const refuse = new Set([a]);
    const { writer, writes } = admissionWriter(refuse);
    const refusals = new AdmissionRefusals();
    const first = await attempt(writer, refusals);
    expect(first.err?.message).to.equal(`create CatalogMetadata ${a}`);
    refuse.clear();
    refuse.add(b);
    writes.length = 0;
    const second = await attempt(writer, refusals);
    expect(second.err?.message).to.equal(`create CatalogMetadata ${b}`);
    expect(writes).to.deep.equal([]);
    expect(refusals.get('ops', second.hash)?.object).to.equal(b);
  });

  it('remembers only admission refusals, and only for the refused revision', () => {
    const refusals = new AdmissionRefusals();
    const write = (status: number, reason: string) =>
      new SyncWriteError('update', 'x', new KubeApiError(status, reason, 'no', 'update', 'x'));
    for (const [status, reason] of [
      [409, 'Conflict'],
      [429, 'TooManyRequests'],
      [500, 'InternalError'],
    ] as const) {
      refusals.noteFailure('ops', 'sha256:a', write(status, reason));
      expect(refusals.get('ops', 'sha256:a'), `${status}`).to.equal(undefined);
    }
    refusals.noteFailure('ops', 'sha256:a', new Error('not a write'));
    expect(refusals.get('ops', 'sha256:a')).to.equal(undefined);
    for (const status of [400, 403, 422]) {
      refusals.noteFailure('ops', 'sha256:a', write(status, 'Forbidden'));
      expect(refusals.get('ops', 'sha256:a')?.object, `${status}`).to.equal('x');
      expect(refusals.get('ops', 'sha256:b'), 'another revision').to.equal(undefined);
      refusals.forget('ops', 'sha256:b');
      expect(refusals.get('ops', 'sha256:a'), 'forgetting another revision').not.to.equal(
        undefined,
      );
      refusals.forget('ops', 'sha256:a');
    }
  });
});
