// The content server's connection cap: at most `max` connections open, counted from the moment
// they are accepted (TLS handshakes included). Idle connections cost memory (about 7 KB each:
// 15,000 of one client held 111 MB) and a client can open them for nothing, so at the cap a new
// connection closes the oldest idle one (no request in flight: still connecting, in its TLS
// handshake, sending its headers, or between keep-alive requests) and takes its place; only when
// every connection has a request in flight is the new one closed, at once. A flood of idle
// connections therefore never keeps a client out: its request makes its connection busy before
// hundreds of newer idle ones arrive (node's server.maxConnections closes every new connection
// instead, the clients' with the flood's).
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionCap {
  /** Connections counted now. */
  readonly open: number;
  /** Idle connections closed to make room, and new ones closed because all were busy. */
  readonly evicted: number;
  readonly refused: number;
}

/** The key of a connection that its TCP socket and a TLS socket over it share. */
const peer = (s: Socket) => `${s.remoteAddress ?? ''}|${s.remotePort ?? ''}`;

export function capConnections(server: Server, max: number): ConnectionCap {
  /** Every counted connection's TCP socket, by peer (a request's TLS socket finds it so). */
  const sockets = new Map<string, Socket>();
  /** The counted connections with no request in flight, oldest first. */
  const idle = new Set<Socket>();
  const stats = { evicted: 0, refused: 0 };
  const forget = (s: Socket, key: string) => {
    if (sockets.get(key) === s) sockets.delete(key);
    idle.delete(s);
  };
  server.on('connection', (socket: Socket) => {
    if (sockets.size >= max) {
      const oldest = idle.values().next();
      if (oldest.done) {
        stats.refused++;
        socket.destroy();
        return;
      }
      stats.evicted++;
      forget(oldest.value, peer(oldest.value));
      oldest.value.destroy();
    }
    const key = peer(socket);
    sockets.set(key, socket);
    idle.add(socket);
    socket.once('close', () => forget(socket, key));
  });
  server.on('request', (req, res) => {
    const socket = sockets.get(peer(req.socket));
    if (!socket) return;
    idle.delete(socket);
    res.once('close', () => {
      // Idle again, now the newest: a keep-alive connection waiting for its next request.
      if (!socket.destroyed && sockets.get(peer(socket)) === socket) idle.add(socket);
    });
  });
  return {
    get open() {
      return sockets.size;
    },
    get evicted() {
      return stats.evicted;
    },
    get refused() {
      return stats.refused;
    },
  };
}
