// A fake apiserver for bench/client-write-path.ts: answers every POST 201 at once with the
// object's metadata (as a metadata-only response), echoes each create as an ADDED event on every
// open watch, and answers anything else with an empty list. So only the client side of a write
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
          for (const w of watches) w.write(`{"type":"ADDED","object":${body}}\n`);
        };
        if (latencyMs > 0) setTimeout(answer, latencyMs);
        else answer();
        return;
      }
      if (req.url.includes('watch=1')) {
        res.writeHead(200, { 'content-type': 'application/json' });
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
