// The content server alone, as the controller runs it (built dist/, with the NODE_OPTIONS and
// MALLOC_ARENA_MAX the parent gives it): bench/serve.ts measures its speed and RSS.
//
//   node bench/serve-server.mjs STORE_ROOT TLS_CERT TLS_KEY name=sha256:HEX ...
//
// Activates each catalog's stored revision, serves them over HTTP and HTTPS (with the GraphQL
// endpoint mounted on both, as the controller mounts it, when SERVE_GRAPHQL=1), and prints
// `{"http": URL, "https": URL}` on one line; answers any IPC message with process.memoryUsage().
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { createGraphqlEndpoint } from '../dist/src/graphql/index.js';
import { ContentStore, startContentServer } from '../dist/src/server/index.js';

const [root, cert, key, ...catalogs] = process.argv.slice(2);
const store = new ContentStore(root);
for (const c of catalogs) {
  const [name, contentHash] = c.split('=');
  await store.activate(name, contentHash, new Date(0));
}
// SERVE_GRAPHQL_RUNNING: queries executing at once (the endpoint's default otherwise), to try.
const running = Number(process.env.SERVE_GRAPHQL_RUNNING) || undefined;
const graphql =
  process.env.SERVE_GRAPHQL === '1' ? createGraphqlEndpoint(running ? { running } : {}) : undefined;
const http = await startContentServer({ store, graphql });
const https = await startContentServer({
  store,
  graphql,
  tls: { cert: readFileSync(cert), key: readFileSync(key) },
});
process.stdout.write(`${JSON.stringify({ http: http.url, https: https.url })}\n`);
// Where the memory is (V8 heap, external buffers), asked for over the IPC channel.
process.on('message', () => process.send?.(process.memoryUsage()));
