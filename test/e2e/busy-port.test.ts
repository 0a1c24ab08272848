// Issue 22, point 8: a port already in use (8080 is on many developer machines) never ends in a
// Node stack trace. The controller stops with one line naming the port and the flag; `make run`
// (hack/run.sh) moves to a free port and says so, and passes ARGS to the controller.
import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../support/cluster.js';
import { freePort } from '../support/ports.js';

const execFileAsync = promisify(execFile);

/** Listens on 127.0.0.1:`port` (0: any) until closed; resolves with the bound port. */
async function holdPort(port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Runs `script` in bash with hack/run.sh sourced (its functions, nothing run). */
function runScriptFunction(
  script: string,
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('bash', ['-c', `source hack/run.sh && ${script}`], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: {
      ...process.env,
      ...env,
      // The node that runs the tests: port_free listens with it.
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('a port already in use', function () {
  this.timeout(120_000);

  it('stops the controller with one line naming the address and the flag, no stack trace', async () => {
    const held = await holdPort();
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'catalogd-busy-port-'));
    try {
      const addr = `127.0.0.1:${held.port}`;
      const result = await execFileAsync(
        process.execPath,
        // It stops at the busy port, before it watches or writes anything in the cluster; the
        // other two addresses take any free port.
        ['--import', 'tsx', 'src/cmd/catalogd.ts', 'controller', '--metrics-addr', addr]
          .concat(['--health-addr', '127.0.0.1:0', '--server-addr', '127.0.0.1:0'])
          .concat(['--kubeconfig', process.env.KUBECONFIG ?? '', '--cache-dir', cacheDir]),
        { cwd: repoRoot, encoding: 'utf8' },
      ).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
      );
      expect(result.code).to.equal(1);
      expect(result.stderr).to.equal(
        `catalogd: cannot listen on ${addr} for --metrics-addr: address already in use; ` +
          'choose another with --metrics-addr\n',
      );
      expect(result.stderr).not.to.include('    at ');
    } finally {
      await held.close();
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  it("hack/run.sh's pick_port keeps a free port and moves off a taken one, saying so", async () => {
    const held = await holdPort();
    try {
      const free = await freePort();
      const kept = runScriptFunction(`pick_port metrics-addr 127.0.0.1 ${free}`);
      expect(kept).to.include({ status: 0, stdout: `${free}\n`, stderr: '' });

      const moved = runScriptFunction(`pick_port metrics-addr 127.0.0.1 ${held.port}`);
      expect(moved.status).to.equal(0);
      const picked = Number(moved.stdout.trim());
      expect(picked).to.be.above(held.port);
      expect(moved.stderr).to.equal(
        `run: 127.0.0.1:${held.port} is in use; --metrics-addr uses 127.0.0.1:${picked} ` +
          '(choose one with make run ARGS="--metrics-addr 127.0.0.1:PORT")\n',
      );
      // The port it names can be listened on.
      await (await holdPort(picked)).close();
    } finally {
      await held.close();
    }
  });

  it('hack/run.sh stops with one line when no port near a taken one is free', async () => {
    const held = await holdPort();
    try {
      const result = runScriptFunction(`pick_port health-addr 127.0.0.1 ${held.port}`, {
        RUN_PORT_TRIES: '0',
      });
      expect(result).to.include({ status: 1, stdout: '' });
      expect(result.stderr).to.equal(
        `run: 127.0.0.1:${held.port} is in use, and so are the 0 ports after it; choose a port ` +
          'for --health-addr with make run ARGS="--health-addr 127.0.0.1:PORT"\n',
      );
    } finally {
      await held.close();
    }
  });

  it("hack/run.sh's listen_args leave an address flag given in ARGS to the controller", () => {
    const result = runScriptFunction('listen_args --log-level debug --metrics-addr=127.0.0.1:9');
    expect(result.status).to.equal(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('--'))).to.deep.equal([
      '--health-addr',
      '--server-addr',
    ]);
  });

  it('make run ARGS="..." passes the flags to hack/run.sh', () => {
    const result = spawnSync('make', ['-n', 'run', 'ARGS=--log-level debug --workers 3'], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    expect(result.status).to.equal(0);
    expect(result.stdout.split('\n')).to.include('hack/run.sh --log-level debug --workers 3');
  });
});
