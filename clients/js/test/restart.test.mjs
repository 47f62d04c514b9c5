// Mirrors across a server of the test's own that goes away and comes back (own-server.mjs): a
// memory store restarted is behind the mirror, which must reload, not skip its events or fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SectionalClient } from '../sectional.mjs';
import { startServer } from './own-server.mjs';

const member = (id, name, team) => ({ id, name, team });

/** Polls `check` (every 20 ms) until it is true; fails with `what()` after `seconds`. */
async function waitUntil(check, what, seconds = 20) {
  const deadline = Date.now() + seconds * 1000;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `not within ${seconds} s: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const ids = (snapshot) => snapshot.sections.flatMap((s) => s.rows.map((r) => (r ? r.id : null)));

test('a mirror ahead of a restarted memory store reloads: updates() and sync()', async () => {
  let server = await startServer({ flags: ['--memory'] });
  const client = new SectionalClient(server.url);
  const list = client.list('crew');
  try {
    await client.collection('crew').batch({ upsert: [member('a', 'Ada', 'Eng'), member('b', 'Bob', 'Ops')] });
    await client.collection('crew').put('c', member('c', 'Cy', 'Eng'));
    const following = list.mirror();
    const asked = list.mirror();
    await following.reload();
    await asked.reload();
    const before = following.snapshot?.version ?? 0;
    assert.ok(before >= 2, `two writes made version ${before}`);
    const controller = new AbortController();
    /** @type {unknown} */
    let ended = null;
    const reading = (async () => {
      for await (const _ of following.updates({ signal: controller.signal, reconnectDelay: 100 }));
      ended = 'returned';
    })().catch((e) => { ended = e; });
    try {
      await waitUntil(async () => (await openStreams(server.url)) === 1, () => 'the mirror never opened its stream');
      // The same address, an empty store: the list is back at a version below the mirror's.
      const port = server.port;
      await server.stop();
      server = await startServer({ port, flags: ['--memory'] });
      await client.collection('crew').put('z', member('z', 'Zoe', 'Sales'));
      const now = await list.outline();
      assert.ok(now.version < before, `the restarted list (${now.version}) is behind the mirror (${before})`);
      await waitUntil(() => following.snapshot?.version === now.version && ended === null,
        () => `updates() ${ended === null ? 'runs' : `ended: ${ended}`}, its mirror at ${following.snapshot?.version}, the list at ${now.version}`);
      assert.deepEqual(ids(following.snapshot), ['me', 'z']);
      const synced = await asked.sync();
      assert.equal(synced.changes.reload, true, 'no diff leads back: a reload');
      assert.equal(synced.snapshot.version, now.version);
      assert.deepEqual(ids(synced.snapshot), ['me', 'z']);
    } finally {
      controller.abort();
      await reading;
    }
  } finally {
    await server.stop();
  }
});

/** The server's open event streams (its `/metrics` gauge). */
async function openStreams(url) {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const found = metrics.match(/^sectional_event_streams (\d+)$/m);
  return found ? Number(found[1]) : -1;
}
