// The metas latency client of the peer scenario (bench/lib/content-client.ts queryLatency), in a
// process of its own: plain node, no loader, nothing else on its heap. Measured inside the bench
// process, the tail was the bench's own garbage collections (its heap holds the scenario's
// state and the readers' garbage): 200 requests of ~0.5 ms each had 4–5 pauses of 7–15 ms, for
// either server, so p99 measured the client. Here a request waits for nothing but the server.
//
//   QUERY_LATENCY_CA=PEM node bench/query-latency-client.mjs BASE_URL N SUFFIX...
//
// One warm-up request per suffix, then N sequential requests cycling over the suffixes over one
// keep-alive connection (HTTPS trusting QUERY_LATENCY_CA when given), each timed from the
// request to its last byte (identity encoding); prints the N latencies in milliseconds as a JSON array.
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const [base, count, ...suffixes] = process.argv.slice(2);
const ca = process.env.QUERY_LATENCY_CA;
const secure = base.startsWith('https:');
const agentOptions = { keepAlive: true, maxSockets: 1 };
const agent = secure
  ? new https.Agent({ ...agentOptions, ...(ca && { ca }) })
  : new http.Agent(agentOptions);
const request = secure ? https.get : http.get;

function timedGet(url) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    request(url, { agent, headers: { 'Accept-Encoding': 'identity' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${url}: HTTP ${res.statusCode}`));
        return;
      }
      res.on('data', () => undefined);
      res.on('end', () => resolve(performance.now() - t0));
      res.on('error', reject);
    }).on('error', reject);
  });
}

for (const s of suffixes) await timedGet(base + s);
const ms = [];
for (let i = 0; i < Number(count); i++)
  ms.push(await timedGet(base + suffixes[i % suffixes.length]));
agent.destroy();
process.stdout.write(`${JSON.stringify(ms)}\n`);
