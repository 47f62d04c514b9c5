// A `sectional serve` of a test's own (SECTIONAL_BIN, set by scripts/js-client-test.sh), with
// clients/js/test/config.json, for tests that stop and restart a server: the shared one
// (SECTIONAL_URL) must stay up for the other files.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const binary = process.env.SECTIONAL_BIN;
const config = fileURLToPath(new URL('./config.json', import.meta.url));

/**
 * Starts a server on `port` (0: one the kernel picks) with `flags` (`['--memory']`, or
 * `['--data', PATH]` for a store that outlives a restart) and `env` added to the environment
 * (`{SECTIONAL_API_TOKEN: …}`); resolves once it answers `/readyz`.
 * @param {{port?: number, flags: string[], env?: Record<string, string>}} o
 * @returns {Promise<{url: string, port: number, stop: (signal?: NodeJS.Signals) => Promise<void>}>}
 */
export async function startServer({ port = 0, flags, env = {} }) {
  if (!binary) throw new Error('SECTIONAL_BIN is not set: run scripts/js-client-test.sh');
  const child = spawn(binary, ['serve', '--host', '127.0.0.1', '--port', String(port), '--config', config, ...flags],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let log = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => { log += text; });
  const deadline = Date.now() + 60000;
  // A start that fails stops the child too: left running, its piped stderr kept the test
  // runner alive.
  const fail = async (what) => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    return new Error(`the server ${what}:\n${log}`);
  };
  let url = '';
  while (!url) {
    const found = log.match(/"msg":"listening","address":"(http:\/\/127\.0\.0\.1:(\d+))"/);
    if (found) url = found[1];
    else if (child.exitCode !== null || Date.now() > deadline) throw await fail('did not start');
    else await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (;;) {
    const ready = await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false);
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) throw await fail('was not ready');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url,
    port: Number(new URL(url).port),
    /** Stops it (SIGTERM unless told) and waits until it has exited. */
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
