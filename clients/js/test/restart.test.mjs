// Mirrors across a server of the test's own that goes away and comes back (own-server.mjs): a
// server back on a store that went back (a new, empty database at the same address) is behind
// the mirror, which must reload, not skip its events or fail; a server killed during the sync
// after an event does not end updates(), whether it comes back where it was or behind the event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

test('a mirror ahead of a server whose store went back reloads: updates() and sync()', async () => {
  // Not a memory store: a restarted one numbers its changes from the clock, past the mirror's.
  const folder = await mkdtemp(join(tmpdir(), 'sectional-js-'));
  let server = await startServer({ flags: ['--data', join(folder, 'first.sqlite')] });
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
      // The same address, an empty database: the list is back at a version below the mirror's.
      const port = server.port;
      await server.stop();
      server = await startServer({ port, flags: ['--data', join(folder, 'second.sqlite')] });
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
    await rm(folder, { recursive: true, force: true });
  }
});

for (const back of ['its own database', 'a database behind the event']) {
  test(`updates() goes on when the server dies during the sync after an event, back on ${back}`, async () => {
    const folder = await mkdtemp(join(tmpdir(), 'sectional-js-'));
    const flags = ['--data', join(folder, 'data.sqlite')];
    // Behind: a new database, its version below the event's, so that a sync reading at least
    // the event's version is never answered (`503 not-caught-up`) until it reads without.
    const flagsBack = back === 'its own database' ? flags : ['--data', join(folder, 'behind.sqlite')];
    let server = await startServer({ flags });
    // The mirror's requests: once armed with a write, its next `changes` request (the sync the
    // write's event started) finds the server killed (SIGKILL, once the write is answered), and
    // fails as a network error.
    /** @type {Promise<void>|null} */
    let killed = null;
    /** @type {Promise<unknown>|null} */
    let armed = null;
    const client = new SectionalClient(server.url, {
      fetch: async (input, init) => {
        if (armed && String(input).includes('/changes')) {
          const write = armed;
          armed = null;
          killed = write.then(() => server.stop('SIGKILL'));
          await killed;
        }
        return fetch(input, init);
      },
    });
    const writer = new SectionalClient(server.url).collection('crew');
    const list = client.list('crew');
    try {
      await writer.put('a', member('a', 'Ada', 'Eng'));
      const mirror = list.mirror();
      await mirror.reload();
      const controller = new AbortController();
      /** @type {unknown} */
      let ended = null;
      const reading = (async () => {
        for await (const _ of mirror.updates({ signal: controller.signal, reconnectDelay: 100 }));
        ended = 'returned';
      })().catch((e) => { ended = e; });
      const state = () => `updates() ${ended === null ? 'runs' : `ended: ${ended}`}, its mirror at ${mirror.snapshot?.version}`;
      try {
        await waitUntil(async () => (await openStreams(server.url)) === 1, () => 'the mirror never opened its stream');
        const write = writer.put('b', member('b', 'Bob', 'Ops'));
        armed = write;
        const { version: written } = await write;
        await waitUntil(() => killed !== null, () => `no sync after the write; ${state()}`);
        await killed;
        server = await startServer({ port: server.port, flags: flagsBack });
        if (flagsBack !== flags) {
          const now = await list.outline();
          assert.ok(now.version < written, `the list (${now.version}) is behind the event (${written})`);
          await waitUntil(() => mirror.snapshot?.version === now.version && ended === null, () => `${state()}, the list at ${now.version}`);
          assert.deepEqual(ids(mirror.snapshot), ['me']);
          return;
        }
        await waitUntil(() => mirror.snapshot?.version === written && ended === null, () => `${state()}, the list at ${written}`);
        assert.deepEqual(ids(mirror.snapshot), ['me', 'a', 'b']);
        // And it still follows the list.
        const { version: later } = await writer.put('c', member('c', 'Cy', 'Eng'));
        await waitUntil(() => mirror.snapshot?.version === later && ended === null, () => `${state()}, the list at ${later}`);
        assert.deepEqual(ids(mirror.snapshot), ['me', 'a', 'c', 'b']);
      } finally {
        controller.abort();
        await reading;
      }
    } finally {
      await server.stop();
      await rm(folder, { recursive: true, force: true });
    }
  });
}

/** The server's open event streams (its `/metrics` gauge). */
async function openStreams(url) {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const found = metrics.match(/^sectional_event_streams (\d+)$/m);
  return found ? Number(found[1]) : -1;
}
