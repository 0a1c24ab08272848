import { expect } from 'chai';
import { watchFixture as fixture, watchFixtureEvents } from '../../test/support/watch-fixtures.js';
import { FrameSplitter } from './length-frames.js';
import { decodeWatchEvent } from './metadata-protobuf.js';
import { ProtobufError } from './protobuf.js';
import type { ObjectMetadata } from './resource.js';

// Watches of the real apiserver, the same events in both encodings (the fixtures' README).
function frames(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  const splitter = new FrameSplitter((f) => out.push(f));
  splitter.push(bytes);
  expect(splitter.pending).to.equal(0);
  return out;
}

describe('kube/metadata-protobuf: decodeWatchEvent', () => {
  it('decodes what the apiserver sent as the JSON watch read it, managedFields without fieldsV1', () => {
    const json = watchFixtureEvents('watch.jsonl');
    const decoded = frames(fixture('watch.pb')).map(decodeWatchEvent);
    expect(decoded.map((e) => e.type)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED']);
    const withoutFieldsV1 = json.map(({ type, object }) => {
      const o = object as unknown as ObjectMetadata;
      return {
        type,
        object: {
          ...o,
          metadata: {
            ...o.metadata,
            managedFields: o.metadata.managedFields?.map(({ fieldsV1: _, ...m }) => m),
          },
        },
      };
    });
    expect(decoded).to.deep.equal(withoutFieldsV1);
    // What the drift watch reads: two managers, the hand edit the later one.
    const modified = decoded[1]!.object as ObjectMetadata;
    expect(modified.metadata.managedFields?.map((m) => [m.manager, m.operation])).to.deep.equal([
      ['catalogd-ts', 'Update'],
      ['kubectl-edit', 'Update'],
    ]);
  });

  it("decodes a BOOKMARK: its resourceVersion and annotation, no time for Go's zero time", () => {
    const [frame] = frames(fixture('bookmark.pb'));
    expect(decodeWatchEvent(frame!)).to.deep.equal({
      type: 'BOOKMARK',
      object: {
        apiVersion: 'meta.k8s.io/v1',
        kind: 'PartialObjectMetadata',
        // JSON has creationTimestamp: null (Go's zero time); protobuf an empty Time.
        metadata: {
          name: '',
          resourceVersion: '219',
          annotations: { 'k8s.io/initial-events-end': 'true' },
        },
      },
    });
  });

  it("decodes an ERROR event's Status as the JSON watch read it", () => {
    const [json] = watchFixtureEvents('gone.jsonl');
    const [frame] = frames(fixture('gone.pb'));
    const { metadata: _, ...status } = json!.object;
    expect(decodeWatchEvent(frame!)).to.deep.equal({ type: 'ERROR', object: status });
  });

  it('refuses a cut frame, an object without the "k8s\\0" prefix and a kind it does not read', () => {
    const [frame] = frames(fixture('watch.pb'));
    expect(() => decodeWatchEvent(frame!.subarray(0, frame!.length - 7))).to.throw(ProtobufError);
    // WatchEvent{type: "ADDED", object: RawExtension{raw: "{}"}}: a JSON object inside.
    const jsonInside = Buffer.from([
      0x0a,
      5,
      ...Buffer.from('ADDED'),
      0x12,
      4,
      0x0a,
      2,
      0x7b,
      0x7d,
    ]);
    expect(() => decodeWatchEvent(jsonInside)).to.throw(ProtobufError, /prefix/);
    // The same with "k8s\0" + Unknown{typeMeta: {apiVersion: "v1", kind: "Pod"}}.
    const unknown = [0x0a, 9, 0x0a, 2, ...Buffer.from('v1'), 0x12, 3, ...Buffer.from('Pod')];
    const raw = [0x6b, 0x38, 0x73, 0x00, ...unknown];
    const pod = Buffer.from([
      0x0a,
      5,
      ...Buffer.from('ADDED'),
      0x12,
      raw.length + 2,
      0x0a,
      raw.length,
      ...raw,
    ]);
    expect(() => decodeWatchEvent(pod)).to.throw(ProtobufError, /kind Pod/);
    expect(() => decodeWatchEvent(Buffer.from([0x0a, 5, ...Buffer.from('ADDED')]))).to.throw(
      ProtobufError,
      /no object/,
    );
  });
});
