// A fake apiserver for bench/client-write-path.ts: answers every POST 201 at once with the
// object's metadata (as a metadata-only response), echoes each create as an ADDED event on every
// open watch (in protobuf to a watch that asks for it first, as the apiserver does; else in
// JSON), and answers anything else with an empty list. So only the client side of a write
// costs anything. Usage: node bench/fake-apiserver.mjs DIR PORT [LATENCY_MS], DIR holding
// server.key, server.crt and ca.crt; prints "listening" when ready. LATENCY_MS delays each
// create's answer (and its event), as a busy apiserver does: a write then stays in flight, its
// objects alive in the client's heap, for as long as it would against the real one.
import { Buffer } from 'node:buffer';
import console from 'node:console';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import process from 'node:process';
import { setTimeout } from 'node:timers';

const [dir, port, latency = '0'] = process.argv.slice(2);
const latencyMs = Number(latency);
const pem = (f) => fs.readFileSync(path.join(dir, f));
let resourceVersion = 1000;
const watches = new Set();
// What the apiserver adds to a created CatalogMetadata's metadata (managedFields as its own).
const managedFields = [
  {
    manager: 'catalogd-ts',
    operation: 'Update',
    apiVersion: 'olm.operatorframework.io/v1',
    time: '2026-11-27T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': {
        'f:annotations': { '.': {}, 'f:olm.operatorframework.io/content-hash': {} },
        'f:labels': { '.': {}, 'f:catalog': {}, 'f:name': {}, 'f:package': {}, 'f:schema': {} },
        'f:ownerReferences': { '.': {}, 'k:{"uid":"x"}': {} },
      },
      'f:spec': { '.': {}, 'f:content': {}, 'f:name': {}, 'f:package': {}, 'f:schema': {} },
    },
  },
];
// The protobuf wire format of a metadata-only watch event (src/kube/metadata-protobuf.ts reads it).
const varint = (n) => {
  const b = [];
  for (; n > 127; n = Math.floor(n / 128)) b.push((n % 128) | 128);
  b.push(n);
  return Buffer.from(b);
};
const bytes = (num, b) => Buffer.concat([varint(num * 8 + 2), varint(b.length), b]);
const str = (num, s) => bytes(num, Buffer.from(s));
const int = (num, n) => Buffer.concat([varint(num * 8), varint(n)]);
const time = (num, iso) => bytes(num, int(1, Date.parse(iso) / 1000));
const entries = (num, map) =>
  Buffer.concat(
    Object.entries(map ?? {}).map(([k, v]) => bytes(num, Buffer.concat([str(1, k), str(2, v)]))),
  );
function objectMeta(m) {
  return Buffer.concat([
    str(1, m.name),
    str(5, m.uid),
    str(6, m.resourceVersion),
    int(7, m.generation),
    time(8, m.creationTimestamp),
    entries(11, m.labels),
    entries(12, m.annotations),
    ...(m.ownerReferences ?? []).map((o) =>
      bytes(
        13,
        Buffer.concat([
          str(1, o.kind),
          str(3, o.name),
          str(4, o.uid),
          str(5, o.apiVersion),
          int(6, o.controller ? 1 : 0),
          int(7, o.blockOwnerDeletion ? 1 : 0),
        ]),
      ),
    ),
    ...m.managedFields.map((f) =>
      bytes(
        17,
        Buffer.concat([
          str(1, f.manager),
          str(2, f.operation),
          str(3, f.apiVersion),
          time(4, f.time),
          str(6, f.fieldsType),
          bytes(7, str(1, JSON.stringify(f.fieldsV1))),
        ]),
      ),
    ),
  ]);
}
function protobufEvent(type, metadata) {
  const unknown = Buffer.concat([
    bytes(1, Buffer.concat([str(1, 'meta.k8s.io/v1'), str(2, 'PartialObjectMetadata')])),
    bytes(2, bytes(1, objectMeta(metadata))),
  ]);
  const raw = Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
  const event = Buffer.concat([str(1, type), bytes(2, bytes(1, raw))]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(event.length);
  return Buffer.concat([len, event]);
}
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

const server = https.createServer(
  { key: pem('server.key'), cert: pem('server.crt'), ca: pem('ca.crt'), requestCert: true },
  (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST') {
        const obj = JSON.parse(Buffer.concat(chunks).toString());
        resourceVersion++;
        const metadata = {
          ...obj.metadata,
          uid: `uid-${resourceVersion}`,
          resourceVersion: String(resourceVersion),
          generation: 1,
          creationTimestamp: '2026-11-27T00:00:00Z',
          managedFields,
        };
        const body = JSON.stringify({
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata,
        });
        const answer = () => {
          res.writeHead(201, { 'content-type': 'application/json' }).end(body);
          for (const w of watches) {
            w.write(
              w.protobuf ? protobufEvent('ADDED', metadata) : `{"type":"ADDED","object":${body}}\n`,
            );
          }
        };
        if (latencyMs > 0) setTimeout(answer, latencyMs);
        else answer();
        return;
      }
      if (req.url.includes('watch=1')) {
        res.protobuf = (req.headers.accept ?? '').startsWith(PROTOBUF);
        res.writeHead(200, {
          'content-type': res.protobuf ? `${PROTOBUF};stream=watch` : 'application/json',
        });
        watches.add(res);
        // The response's close, not the request's: a request closes once its body is read.
        res.on('close', () => watches.delete(res));
        res.flushHeaders();
        return;
      }
      const list = {
        kind: 'List',
        metadata: { resourceVersion: String(resourceVersion) },
        items: [],
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
    });
  },
);
server.listen(Number(port), '127.0.0.1', () => console.log('listening'));
