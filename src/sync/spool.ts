// The writes of a sync, spooled to disk by the scan pass and read back in order by the apply
// pass. The scan already holds every object in its final form, so it writes each object the
// plan will send as the exact request body: the apply pass then neither parses the catalog a
// third time nor serializes an object again, and memory stays bounded whatever the catalog's
// size (one read chunk, plus the bodies in flight).
//
// One record per line: `<verb> <omitted> <name> <body>\n`. The body is compact JSON (a raw
// newline never occurs in it); the name is a DNS-1123 subdomain (no spaces).
import { open, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { BufferedFileWriter } from '../util/file-io.js';
import type { Chunk } from './chunk-pool.js';
import { ChunkPool } from './chunk-pool.js';

export type WriteVerb = 'create' | 'update';

export interface SpooledWrite {
  verb: WriteVerb;
  /** The object's name. */
  name: string;
  /** It carries spec.contentOmitted (set by --max-object-bytes). */
  omitted: boolean;
  /** The request body: the whole object as JSON. */
  body: Buffer;
  /**
   * Says the body is no longer needed (the apiserver answered its write), so that its read
   * buffer may be reused (chunk-pool.ts). Optional: a record never released only keeps its
   * buffer from being reused. Never call it while the body may still be read or sent.
   */
  release?: () => void;
}

const READ_CHUNK_BYTES = 1 << 20;
/**
 * Idle read chunks kept for reuse. The bodies in flight (--write-concurrency of them) hold the
 * chunk being read and usually the one before it; two idle ones cover the turnover.
 */
const IDLE_READ_CHUNKS = 2;
const NEWLINE = 0x0a;
const SPACE = 0x20;

export class WriteSpool {
  private writer?: BufferedFileWriter;
  private written = 0;

  private constructor(
    /** The spool file. */
    readonly file: string,
    private readonly handle: FileHandle,
  ) {
    this.writer = new BufferedFileWriter(handle);
  }

  /** A new, empty spool file in `dir` (which must exist). */
  static async create(dir: string): Promise<WriteSpool> {
    const file = path.join(dir, `writes-${randomBytes(6).toString('hex')}.spool`);
    return new WriteSpool(file, await open(file, 'wx'));
  }

  /** Records spooled so far. */
  get count(): number {
    return this.written;
  }

  async add(verb: WriteVerb, name: string, omitted: boolean, body: string): Promise<void> {
    const writer = this.writer;
    if (!writer) throw new Error('write spool is closed for writing');
    if (name.includes(' '))
      throw new Error(`spooled object name ${JSON.stringify(name)} has a space`);
    if (body.includes('\n')) throw new Error(`spooled body of ${name} holds a newline`);
    await writer.writeString(`${verb} ${omitted ? 1 : 0} ${name} `);
    await writer.writeString(body);
    await writer.writeString('\n');
    this.written++;
  }

  /** Ends writing: flushes and closes the file. Reading is possible after it. */
  async finish(): Promise<void> {
    if (!this.writer) return;
    const writer = this.writer;
    this.writer = undefined;
    try {
      await writer.flush();
    } finally {
      await this.handle.close();
    }
  }

  /**
   * The records in the order they were added. Each body is cut from a read chunk; a consumer
   * that calls a record's `release` once its write was answered lets the chunk be reused.
   */
  async *read(): AsyncGenerator<SpooledWrite> {
    if (this.writer) throw new Error('write spool is still open for writing');
    const fh = await open(this.file, 'r');
    const pool = new ChunkPool(READ_CHUNK_BYTES, IDLE_READ_CHUNKS);
    let prev: Chunk | undefined;
    try {
      // The start of a record cut by the previous chunk's end, completed from the next read.
      let pending: Buffer = Buffer.alloc(0);
      for (;;) {
        // Room for the pending bytes and as many again (a record longer than a chunk).
        const chunk = pool.take(2 * pending.length);
        pending.copy(chunk.buf, 0);
        prev?.retire();
        prev = chunk;
        const room = chunk.buf.length - pending.length;
        const { bytesRead } = await fh.read(chunk.buf, pending.length, room, null);
        if (bytesRead === 0) break;
        const data = chunk.buf.subarray(0, pending.length + bytesRead);
        let start = 0;
        for (let nl = data.indexOf(NEWLINE, start); nl >= 0; nl = data.indexOf(NEWLINE, start)) {
          yield parseRecord(data.subarray(start, nl), chunk.lease());
          start = nl + 1;
        }
        pending = data.subarray(start);
      }
      if (pending.length > 0) throw new Error(`write spool ${this.file} ends in a partial record`);
    } finally {
      prev?.retire();
      await fh.close();
    }
  }

  /** Closes and removes the spool file. */
  async dispose(): Promise<void> {
    await this.finish().catch(() => {});
    await rm(this.file, { force: true });
  }
}

function parseRecord(line: Buffer, release: () => void): SpooledWrite {
  const a = line.indexOf(SPACE);
  const b = line.indexOf(SPACE, a + 1);
  const c = line.indexOf(SPACE, b + 1);
  const verb = line.toString('latin1', 0, a);
  if (c < 0 || (verb !== 'create' && verb !== 'update'))
    throw new Error('write spool holds a malformed record');
  return {
    verb,
    omitted: line[a + 1] === 0x31, // '1'
    name: line.toString('latin1', b + 1, c),
    body: line.subarray(c + 1),
    release,
  };
}
