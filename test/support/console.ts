// `kubectl catalog ui` in process on a free loopback port, with Debian's headless chromium
// driven by puppeteer-core: the set-up the browser e2e tests and the console bench share.
import type { Browser, Page } from 'puppeteer-core';
import puppeteer from 'puppeteer-core';
import { runUi } from '../../src/plugin/ui/command.js';
import { pollUntil } from './poll.js';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

export interface RunningConsole {
  /** The console's URL, `http://127.0.0.1:PORT/`. */
  base: string;
  browser: Browser;
  /** A page at 1280×900. */
  page: Page;
  /**
   * Closes the browser and stops the console (Ctrl-C); resolves to the command's exit code.
   * Idempotent.
   */
  close(): Promise<number>;
}

export interface RunningConsoleServer {
  /** The console's URL, `http://127.0.0.1:PORT/`. */
  base: string;
  /** Stops the console (Ctrl-C); resolves to the command's exit code. */
  stop(): Promise<number>;
}

/**
 * Starts the console for `catalog`, without a browser (its pages read over HTTP); `args` are
 * more flags of `kubectl catalog ui` (e.g. --object-view served).
 */
export async function startConsoleServer(
  catalog: string,
  args: readonly string[] = [],
): Promise<RunningConsoleServer> {
  const out: string[] = [];
  let stop = () => {};
  const done = runUi(['--no-open', '--catalog', catalog, ...args], {
    stdout: (s) => out.push(s),
    stderr: (s) => out.push(s),
    stopped: new Promise((r) => (stop = () => r(undefined))),
  });
  try {
    const base = await pollUntil(
      () => Promise.resolve(/(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out.join(''))?.[1]),
      { timeoutMs: 30_000, what: 'the console URL' },
    );
    return {
      base,
      stop: () => {
        stop();
        return done;
      },
    };
  } catch (err) {
    stop();
    throw err;
  }
}

/** Starts the console for `catalog` (with more flags `args`) and a browser. */
export async function startConsole(
  catalog: string,
  args: readonly string[] = [],
): Promise<RunningConsole> {
  const server = await startConsoleServer(catalog, args);
  const { base } = server;
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  let closed: Promise<number> | undefined;
  return {
    base,
    browser,
    page,
    close() {
      closed ??= browser.close().then(() => server.stop());
      return closed;
    },
  };
}
