// Package pages are rendered in a worker thread (render-worker.ts), never on the event loop that
// answers requests: a page's work grows with what a catalog put in the package (its Markdown
// description, up to MAX_MARKDOWN characters at a few milliseconds a kilobyte on the worst
// input, and its upgrade graphs, up to MAX_GRAPH_EDGES edges), so the catalogs, packages, icons
// and live-update requests of the console never wait behind one. The worker is started on first
// use and holds the process open only while it owes pages; one that fails is replaced on the next
// page, and the pages it owed fail (an error page).
import { Worker } from 'node:worker_threads';
import type { PackageView } from '../../client/index.js';

/** What the worker is asked: a package page's body for the view, with the upgrades form's answer. */
export interface PageJob {
  view: PackageView;
  /** The upgrades form's query (pages.ts, UpgradesQuery). */
  upgrades?: { from: string; channel?: string };
}

/** The worker's answer: the body's HTML, or the message of the error that stopped it. */
export type PageAnswer = { id: number; html: string } | { id: number; error: string };

interface Pending {
  resolve: (html: string) => void;
  reject: (err: Error) => void;
}

/** One worker and the pages it owes. */
interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** A package page's content could not be rendered (its message says why). */
export class RenderError extends Error {
  override name = 'RenderError';
}

export class PageRenderer {
  private thread: Thread | undefined;
  private nextId = 0;

  /** The body of the package page (pages.ts packagePage), rendered by the worker. */
  packagePage(job: PageJob): Promise<string> {
    const t = this.start();
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      t.pending.set(id, { resolve, reject });
      t.worker.ref();
      try {
        t.worker.postMessage({ id, ...job });
      } catch (err) {
        this.settle(t, id)?.reject(err as Error);
      }
    });
  }

  private settle(t: Thread, id: number): Pending | undefined {
    const p = t.pending.get(id);
    t.pending.delete(id);
    if (t.pending.size === 0) t.worker.unref();
    return p;
  }

  private start(): Thread {
    if (this.thread) return this.thread;
    const worker = new Worker(new URL('./render-worker.js', import.meta.url));
    const t: Thread = { worker, pending: new Map() };
    worker.on('message', (m: PageAnswer) => {
      const p = this.settle(t, m.id);
      if ('html' in m) p?.resolve(m.html);
      else p?.reject(new RenderError(m.error));
    });
    const fail = (err: Error) => {
      if (this.thread === t) this.thread = undefined;
      for (const id of [...t.pending.keys()]) this.settle(t, id)?.reject(err);
    };
    worker.on('error', (err: Error) =>
      fail(new RenderError(`the page worker failed: ${err.message}`)),
    );
    worker.on('exit', (code) => fail(new RenderError(`the page worker exited with code ${code}`)));
    worker.unref();
    this.thread = t;
    return t;
  }

  /** Stops the worker; the pages it owed fail. */
  async close(): Promise<void> {
    const t = this.thread;
    this.thread = undefined;
    if (t) await t.worker.terminate();
  }
}
