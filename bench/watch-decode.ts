// The client's CPU per drift-watch event in each encoding: the real apiserver's three events of
// test/fixtures/kube-protobuf, read as the controller reads them (split into lines or frames,
// decoded, reduced to a CatalogMetadataRef), many times over, alternating the encodings.
//   npx tsx bench/watch-decode.ts [--events 300000] [--rounds 5]
import { parseArgs } from 'node:util';
import { catalogMetadataRef } from '../src/controllers/clustercatalog/setup/predicates.js';
import { FIELD_MANAGER } from '../src/kube/index.js';
import type { ObjectMetadata } from '../src/kube/index.js';
import { LineSplitter } from '../src/kube/json-lines.js';
import { protobufWatchReader } from '../src/kube/metadata-protobuf.js';
import { watchFixture } from '../test/support/watch-fixtures.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '300000' },
    rounds: { type: 'string', default: '5' },
  },
});
const streams = { json: watchFixture('watch.jsonl'), protobuf: watchFixture('watch.pb') };
const perStream = 3;
const repeats = Math.ceil(Number(values.events) / perStream);

function run(encoding: 'json' | 'protobuf'): number {
  let refs = 0;
  const onEvent = (e: unknown) => {
    const { object } = e as { object: ObjectMetadata };
    if (catalogMetadataRef(object.metadata, FIELD_MANAGER).metadata.name) refs++;
  };
  const reader = encoding === 'json' ? new LineSplitter(onEvent) : protobufWatchReader(onEvent);
  const bytes = streams[encoding];
  const t0 = process.cpuUsage();
  // Each stream's bytes as one chunk, as the apiserver's coalesced writes arrive.
  for (let i = 0; i < repeats; i++) reader.push(bytes);
  const t = process.cpuUsage(t0);
  if (refs !== repeats * perStream) throw new Error(`${encoding}: ${refs} refs`);
  return (t.user + t.system) / refs;
}

const rounds: Array<{ json: number; protobuf: number }> = [];
for (let r = 0; r < Number(values.rounds); r++) {
  const order = r % 2 === 0 ? (['json', 'protobuf'] as const) : (['protobuf', 'json'] as const);
  const x = { json: 0, protobuf: 0 };
  for (const e of order) x[e] = Math.round(run(e) * 100) / 100;
  rounds.push(x);
}
console.log(
  JSON.stringify({
    microsecondsPerEvent: rounds,
    bytesPerEvent: {
      json: Math.round(streams.json.length / perStream),
      protobuf: Math.round(streams.protobuf.length / perStream),
    },
  }),
);
