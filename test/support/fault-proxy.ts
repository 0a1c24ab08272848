// A fault proxy in front of a real registry (plain HTTP on 127.0.0.1): requests are forwarded
// untouched unless their path matches a rule, whose fault is then played: an HTTP 500, a body
// that stalls or trickles halfway, a corrupted byte, a body cut short, a connection reset.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  /** Answers HTTP 500 without asking the registry. */
  | { kind: 'status500' }
  /** Sends the headers and half the body, then nothing (the connection stays open). */
  | { kind: 'stall' }
  /** Sends the headers, then one byte every `intervalMs`. */
  | { kind: 'trickle'; intervalMs: number }
  /** Flips one byte in the middle of the body (same length, other content). */
  | { kind: 'corrupt' }
  /** Sends the headers (full Content-Length) and half the body, then closes the connection. */
  | { kind: 'truncate' }
  /** Destroys the connection without an answer. */
  | { kind: 'reset' };

export interface FaultProxy {
  /** host:port of the proxy, to use in image references. */
  readonly host: string;
  /** Plays fault on requests whose path contains `pathPart` (undefined: forwards them again). */
  setFault(pathPart: string, fault: Fault | undefined): void;
  /** When each request whose path contains pathPart arrived (ms since epoch), in order. */
  arrivals(pathPart: string): number[];
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const rules = new Map<string, Fault>();
  const seen: Array<{ path: string; at: number }> = [];
  const timers = new Set<NodeJS.Timeout>();
  /** Responses a fault is holding open (stall, trickle), per rule: cut when the rule clears. */
  const held = new Map<string, Set<http.ServerResponse>>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    seen.push({ path, at: Date.now() });
    const rule = [...rules].find(([part]) => path.includes(part));
    const fault = rule?.[1];
    if (rule) {
      const set = held.get(rule[0]) ?? new Set();
      held.set(rule[0], set);
      set.add(res);
      res.on('close', () => set.delete(res));
    }
    if (fault?.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'status500') {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"errors":[{"code":"UNKNOWN","message":"injected fault"}]}');
      return;
    }
    const up = http.request(
      `http://${upstream}${path}`,
      { method: req.method, headers: { ...req.headers, host: upstream } },
      (upRes) => {
        if (!fault || upRes.statusCode !== 200) {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => play(fault, Buffer.concat(chunks), upRes.headers, res, timers));
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    setFault(pathPart, fault) {
      if (fault) rules.set(pathPart, fault);
      else {
        // The fault clears: what it still holds open ends too, as a repaired registry's would.
        rules.delete(pathPart);
        for (const res of held.get(pathPart) ?? []) res.destroy();
        held.delete(pathPart);
      }
    },
    arrivals: (pathPart) => seen.filter((s) => s.path.includes(pathPart)).map((s) => s.at),
    async close() {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function play(
  fault: Fault,
  body: Buffer,
  headers: http.IncomingHttpHeaders,
  res: http.ServerResponse,
  timers: Set<NodeJS.Timeout>,
): void {
  const half = Math.floor(body.length / 2);
  res.writeHead(200, { ...headers, 'content-length': String(body.length) });
  switch (fault.kind) {
    case 'corrupt': {
      const copy = Buffer.from(body);
      copy[half]! ^= 0xff;
      res.end(copy);
      return;
    }
    case 'stall':
      res.write(body.subarray(0, half));
      return;
    case 'truncate':
      res.write(body.subarray(0, half), () => res.socket?.destroy());
      return;
    case 'trickle': {
      let sent = 0;
      res.flushHeaders();
      const t = setInterval(() => {
        if (sent >= body.length || res.destroyed) {
          clearInterval(t);
          timers.delete(t);
          if (!res.destroyed) res.end();
          return;
        }
        res.write(body.subarray(sent, sent + 1));
        sent++;
      }, fault.intervalMs);
      timers.add(t);
      res.on('close', () => {
        clearInterval(t);
        timers.delete(t);
      });
      return;
    }
    default:
      res.end(body);
  }
}
