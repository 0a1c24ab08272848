// The real apiserver's watch responses in test/fixtures/kube-protobuf (its README says how they
// were captured): the protobuf frames as bytes, the JSON lines parsed.
import { readFileSync } from 'node:fs';

export function watchFixture(file: string): Buffer {
  return readFileSync(new URL(`../fixtures/kube-protobuf/${file}`, import.meta.url));
}

/** A JSON watch fixture's events, one per line. */
export function watchFixtureEvents<T = { type: string; object: Record<string, unknown> }>(
  file: string,
): T[] {
  return watchFixture(file)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);
}
