// The worker thread of PageRenderer (render-thread.ts): renders package pages off the console's
// event loop, one at a time. An error (a catalog value the page cannot show) is answered as its
// message, never as a stack.
import { parentPort } from 'node:worker_threads';
import type { PageAnswer, PageJob } from './render-thread.js';
import { packagePage } from './package-page.js';

parentPort?.on('message', (m: PageJob & { id: number }) => {
  let answer: PageAnswer;
  try {
    answer = { id: m.id, html: packagePage(m.view, m.upgrades).value };
  } catch (err) {
    const message = err instanceof Error ? err.message : undefined;
    answer = { id: m.id, error: typeof message === 'string' ? message : 'unknown error' };
  }
  parentPort!.postMessage(answer);
});
